package mcpclient

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/logtest"
	"github.com/podcode/podcode/internal/tool"
)

// testdata is this package's testdata folder, absolute.
func testdata(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatalf("the MCP test servers are not installed (scripts/test runs npm ci in internal/mcpclient/testdata): %v", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is needed to run the MCP test servers")
	}
	return dir
}

// everything is the SDK's example server of every feature, over stdio.
func everything(t testing.TB) Spec {
	return Spec{Name: "everything", Transport: Stdio, Command: "node",
		Args: []string{filepath.Join(testdata(t), "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"), "stdio"}}
}

// probe is testdata/servers/probe.mjs, logging to a file of the test's.
func probe(t testing.TB) (Spec, string) {
	logFile := filepath.Join(t.TempDir(), "probe.jsonl")
	return Spec{Name: "probe", Transport: Stdio, Command: "node", Args: []string{filepath.Join(testdata(t), "servers", "probe.mjs")},
		Env: map[string]string{"PROBE_LOG": logFile}}, logFile
}

func start(t testing.TB, specs ...Spec) (*Set, *tool.Registry, *logtest.Logs) {
	t.Helper()
	rec := &logtest.Logs{}
	reg := tool.NewRegistry(rec.Logger())
	set := Start(context.Background(), specs, Options{Cwd: t.TempDir(), Log: rec.Logger(), Tools: reg, StartTimeout: 20 * time.Second})
	t.Cleanup(set.Close)
	return set, reg, rec
}

func call(t testing.TB, reg *tool.Registry, id string, args map[string]any) (tool.Result, error) {
	t.Helper()
	d, ok := reg.Get(id)
	if !ok {
		t.Fatalf("no tool %s; tools: %v", id, ids(reg))
	}
	args, err := d.Check(context.Background(), args)
	if err != nil {
		return tool.Result{}, err
	}
	return d.Execute(context.Background(), tool.Call{SessionID: "ses_test"}, args)
}

func ids(reg *tool.Registry) []string {
	var out []string
	for _, d := range reg.List() {
		out = append(out, d.ID)
	}
	return out
}

// events reads the probe's log.
func events(t testing.TB, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var e map[string]any
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("probe log line %q: %v", sc.Text(), err)
		}
		out = append(out, e)
	}
	return out
}

func eventually(t testing.TB, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("still not so after 20 s: %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A real server's tools are Podcode tools named <server>_<tool>, with the
// server's schema and Claude Code's name as their alias; text, image and
// resource results become text the model reads.
func TestEverythingServerTools(t *testing.T) {
	set, reg, _ := start(t, everything(t))
	st := set.Servers()[0].Status()
	if st.State != StateReady {
		t.Fatalf("status %+v", st)
	}
	for _, id := range []string{"everything_echo", "everything_get-sum", "everything_get-tiny-image", "everything_get-resource-reference"} {
		if !slices.Contains(st.Tools, id) {
			t.Fatalf("tool %s missing from %v", id, st.Tools)
		}
	}
	d, _ := reg.Get("everything_echo")
	if d.Source != "mcp:everything" || d.Alias != "mcp__everything__echo" || !strings.Contains(string(d.Parameters), `"message"`) {
		t.Fatalf("echo's def: source %q alias %q params %s", d.Source, d.Alias, d.Parameters)
	}
	res, err := call(t, reg, "everything_echo", map[string]any{"message": "hello"})
	if err != nil || res.Output != "Echo: hello" {
		t.Fatalf("echo: %+v %v", res, err)
	}
	// The schema is checked before the call, as any tool's.
	if _, err := call(t, reg, "everything_get-sum", map[string]any{"a": "one", "b": 2}); err == nil || !strings.Contains(err.Error(), "a") {
		t.Fatalf("a bad argument reached the server: %v", err)
	}
	res, err = call(t, reg, "everything_get-sum", map[string]any{"a": 2, "b": 3})
	if err != nil || !strings.Contains(res.Output, "5") {
		t.Fatalf("get-sum: %+v %v", res, err)
	}
	res, err = call(t, reg, "everything_get-tiny-image", map[string]any{})
	if err != nil || !strings.Contains(res.Output, "[image: image/png, ") || res.Metadata["images"] != 1 {
		t.Fatalf("get-tiny-image: %+v %v", res, err)
	}
	res, err = call(t, reg, "everything_get-resource-reference", map[string]any{"resourceType": "Text", "resourceId": 1})
	if err != nil || !strings.Contains(res.Output, "[resource <") {
		t.Fatalf("get-resource-reference: %+v %v", res, err)
	}
}

// notifications/tools/list_changed adds the new tool to the registry.
func TestToolListChanged(t *testing.T) {
	spec, _ := probe(t)
	_, reg, _ := start(t, spec)
	if _, ok := reg.Get("probe_added"); ok {
		t.Fatal("probe_added before it was added")
	}
	if res, err := call(t, reg, "probe_grow", nil); err != nil || res.Output != "grown" {
		t.Fatalf("grow: %+v %v", res, err)
	}
	eventually(t, "probe_added registered", func() bool { _, ok := reg.Get("probe_added"); return ok })
	if res, err := call(t, reg, "probe_added", nil); err != nil || res.Output != "added answers" {
		t.Fatalf("added: %+v %v", res, err)
	}
}

// A result marked isError is the call's error, with the server's text.
func TestErrorResult(t *testing.T) {
	spec, _ := probe(t)
	_, reg, _ := start(t, spec)
	if _, err := call(t, reg, "probe_fail", nil); err == nil || err.Error() != "the probe failed on purpose" {
		t.Fatalf("fail: %v", err)
	}
}

// Cancelling the call's context cancels the call at the server
// (notifications/cancelled), and the session goes on.
func TestCancelReachesServer(t *testing.T) {
	spec, logFile := probe(t)
	_, reg, _ := start(t, spec)
	d, _ := reg.Get("probe_wait")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := d.Execute(ctx, tool.Call{}, map[string]any{"ms": 600000})
		done <- err
	}()
	eventually(t, "the server got the call", func() bool {
		return slices.ContainsFunc(events(t, logFile), func(e map[string]any) bool { return e["call"] == "wait" })
	})
	cancel()
	if err := <-done; err == nil {
		t.Fatal("a cancelled call returned no error")
	}
	eventually(t, "the server saw the cancellation", func() bool {
		return slices.ContainsFunc(events(t, logFile), func(e map[string]any) bool { return e["cancelled"] == "wait" })
	})
	if res, err := call(t, reg, "probe_shout", map[string]any{"text": "still here"}); err != nil || !strings.HasPrefix(res.Output, "STILL HERE") {
		t.Fatalf("after the cancel: %+v %v", res, err)
	}
}

// A server that dies is started again, and the next call works; a call
// while it is down says so.
func TestServerRestartsAfterDeath(t *testing.T) {
	spec, _ := probe(t)
	set, reg, rec := start(t, spec)
	first := set.Servers()[0].Status().PID
	if _, err := call(t, reg, "probe_die", nil); err == nil {
		t.Fatal("a call whose server died returned no error")
	}
	eventually(t, "the server restarted", func() bool {
		st := set.Servers()[0].Status()
		return st.State == StateReady && st.PID != 0 && st.PID != first
	})
	res, err := call(t, reg, "probe_shout", map[string]any{"text": "again"})
	if err != nil || !strings.HasPrefix(res.Output, "AGAIN") {
		t.Fatalf("after the restart: %+v %v", res, err)
	}
	if st := set.Servers()[0].Status(); st.Restarts != 1 {
		t.Fatalf("restarts: %+v", st)
	}
	if !func() bool { _, ok := rec.Find("mcp: the server is down; starting it again"); return ok }() {
		t.Fatalf("the death was not logged: %q", rec.Lines())
	}
}

// Close stops the server's whole process group.
func TestCloseStopsProcessGroup(t *testing.T) {
	spec, _ := probe(t)
	set, _, _ := start(t, spec)
	pid := set.Servers()[0].Status().PID
	if pid == 0 {
		t.Fatal("no pid")
	}
	set.Close()
	if err := syscall.Kill(-pid, 0); err == nil {
		t.Fatalf("process group %d still alive after Close", pid)
	}
	if st := set.Servers()[0].Status(); st.State != StateStopped {
		t.Fatalf("state after Close: %+v", st)
	}
}

// A server that cannot start does not hold Start past its bound, is
// reported with its error, and is retried.
func TestBrokenServerReported(t *testing.T) {
	rec := &logtest.Logs{}
	reg := tool.NewRegistry(rec.Logger())
	spec := Spec{Name: "broken", Transport: Stdio, Command: "sh", Args: []string{"-c", "echo not a protocol; sleep 600"}, Timeout: 300 * time.Millisecond}
	began := time.Now()
	set := Start(context.Background(), []Spec{spec}, Options{Cwd: t.TempDir(), Log: rec.Logger(), Tools: reg, StartTimeout: time.Second})
	defer set.Close()
	if waited := time.Since(began); waited > 10*time.Second {
		t.Fatalf("Start waited %s for a broken server", waited)
	}
	eventually(t, "the failure is reported", func() bool {
		st := set.Servers()[0].Status()
		return st.State == StateRetrying && st.Error != ""
	})
}

// A local server's stderr reaches the log, line by line, bounded.
func TestStderrLogged(t *testing.T) {
	spec, _ := probe(t)
	spec.Env["PROBE_STDERR"] = "500"
	_, _, rec := start(t, spec)
	rec.Await(t, "probe stderr line 0", "source=stderr", "mcp_server=probe")
	if n := rec.Count("probe stderr line"); n > 100 {
		t.Fatalf("%d stderr lines logged at once; the budget lets 100 through", n)
	}
}

// The environment of the entry reaches the server.
func TestEnvironmentReachesServer(t *testing.T) {
	spec, logFile := probe(t)
	spec.Env["PROBE_VALUE"] = "from the entry"
	start(t, spec)
	eventually(t, "started", func() bool {
		return slices.ContainsFunc(events(t, logFile), func(e map[string]any) bool { return e["env"] == "from the entry" })
	})
}

// serveEverything runs the example server over HTTP (transport
// "streamableHttp" or "sse") on a free loopback port, and returns its
// base URL; the test stops it.
func serveEverything(t *testing.T, transport string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command("node", filepath.Join(testdata(t), "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js"), transport)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	eventually(t, "the server listens", func() bool {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			c.Close()
		}
		return err == nil
	})
	return base
}

// Remote servers: streamable HTTP, SSE, and "remote", which tries
// streamable HTTP and falls back to SSE. Headers reach the server.
func TestRemoteTransports(t *testing.T) {
	streamable := serveEverything(t, "streamableHttp")
	sse := serveEverything(t, "sse")
	for _, c := range []struct {
		name, transport, url string
	}{
		{"http", HTTP, streamable + "/mcp"},
		{"sse", SSE, sse + "/sse"},
		{"remote-streamable", Remote, streamable + "/mcp"},
		{"remote-sse", Remote, sse + "/sse"},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := Spec{Name: "remote", Transport: c.transport, URL: c.url, Headers: map[string]string{"X-Probe": "1"}}
			set, reg, _ := start(t, spec)
			if st := set.Servers()[0].Status(); st.State != StateReady {
				t.Fatalf("%+v", st)
			}
			res, err := call(t, reg, "remote_echo", map[string]any{"message": c.name})
			if err != nil || res.Output != "Echo: "+c.name {
				t.Fatalf("echo: %+v %v", res, err)
			}
		})
	}
}

// Headers of a remote server are sent with every request.
func TestRemoteHeaders(t *testing.T) {
	seen := make(chan string, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen <- r.Header.Get("Authorization")
		http.Error(w, "no", http.StatusUnauthorized)
	}))
	defer srv.Close()
	set, _, _ := start(t, Spec{Name: "authd", Transport: HTTP, URL: srv.URL, Headers: map[string]string{"Authorization": "Bearer t0ken"}, Timeout: 2 * time.Second})
	if got := <-seen; got != "Bearer t0ken" {
		t.Fatalf("Authorization %q", got)
	}
	eventually(t, "the refusal reported", func() bool {
		st := set.Servers()[0].Status()
		return st.State == StateRetrying && strings.Contains(st.Error, "Unauthorized") && !strings.Contains(st.Error, "not ready within")
	})
}
