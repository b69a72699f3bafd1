// Package e2e runs a real Podcode server, as a separate process built from
// examples/embed (the podcode command with a Go PreToolUse guard compiled
// in), on a free loopback port, and drives it over HTTP.
package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/logtest"
)

// binary is the podcode command built from examples/embed, once, by
// TestMain.
var binary string

func TestMain(m *testing.M) {
	var err error
	if binary, err = apptest.BuildBinary(apptest.Embedded); err != nil {
		fmt.Fprintln(os.Stderr, "e2e: building the server:", err)
		os.Exit(1)
	}
	code := m.Run()
	apptest.RemoveBinaries()
	os.Exit(code)
}

// server is one running podcode serve process.
type server struct {
	t    *testing.T
	cmd  *exec.Cmd
	base string
	logs *logtest.Buffer // read while the server writes it
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// start runs podcode serve in dir and waits for /healthz.
func start(t *testing.T, dir, home string) *server {
	t.Helper()
	addr := freePort(t)
	s := &server{t: t, base: "http://" + addr, logs: &logtest.Buffer{}}
	s.cmd = exec.Command(binary, "serve", "--addr", addr)
	s.cmd.Dir = dir
	s.cmd.Env = env(home)
	s.cmd.Stdout, s.cmd.Stderr = s.logs, s.logs
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if res, err := http.Get(s.base + "/healthz"); err == nil {
			res.Body.Close()
			return s
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the server did not come up; its output:\n%s", s.logs)
	return nil
}

func (s *server) kill() {
	s.cmd.Process.Signal(syscall.SIGKILL)
	s.cmd.Wait()
}

func (s *server) do(method, path string, body any, out any) int {
	s.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.base+path, r)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			s.t.Fatalf("%s %s: %v\n%s", method, path, err, data)
		}
	}
	return res.StatusCode
}

// events collects the server's event stream until the test ends.
func (s *server) events() *sse { return s.follow("") }

// waitFor waits until an event of type typ arrived and returns all so far.
func (e *sse) waitFor(t *testing.T, typ string) []map[string]any {
	t.Helper()
	e.wait(t, typ, func(ev sseEvent) bool { return ev.data["type"] == typ })
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]map[string]any, len(e.items))
	for i, it := range e.items {
		out[i] = it.data
	}
	return out
}

const pluginA = `export default { id: "a-prefix", server: () => ({
  "tool.execute.before": (i) => i.toolID !== "read" ? undefined : { ...i, args: { ...i.args, limit: 50 } },
  "tool.execute.after": (i) => ({ ...i, result: { ...i.result, output: "[a] " + i.result.output } }),
}) }`

const pluginB = `export default { id: "b-suffix", server: () => ({
  "tool.execute.before": (i) => undefined,
  "tool.execute.after": (i) => ({ ...i, result: { ...i.result, output: i.result.output + " [b]" } }),
}) }`

type message struct {
	ID     string `json:"id"`
	Role   string `json:"role"`
	Text   string `json:"text"`
	Result *struct {
		Output  string `json:"output"`
		IsError bool   `json:"isError"`
	} `json:"result"`
	Hooks []struct {
		Kind, Hook, Source, Outcome, Decision string
	} `json:"hooks"`
}

func hookOrder(msgs []message) []string {
	var out []string
	for _, m := range msgs {
		for _, h := range m.Hooks {
			s := h.Hook + "/" + h.Source + "/" + h.Outcome
			if h.Decision != "" {
				s += ":" + h.Decision
			}
			out = append(out, s)
		}
	}
	return out
}

func project(t *testing.T) (dir, home string) {
	dir = apptest.Dir(t, apptest.Project{Files: map[string]string{
		"podcode.json":            `{"plugin": ["./plugins/a.js", "./plugins/b.js"]}`,
		"plugins/a.js":            pluginA,
		"plugins/b.js":            pluginB,
		"notes.txt":               "meeting at noon\n",
		".podcode/plugins/README": "not a plugin",
	}})
	home = t.TempDir()
	// As a user would: the project's plugins run once trusted.
	if out, err := podcode(dir, home, "trust", "--yes"); err != nil {
		t.Fatalf("podcode trust: %v\n%s", err, out)
	}
	return dir, home
}

// userHome is a new home (see env) whose user's config is cfg.
func userHome(t *testing.T, cfg string) string {
	t.Helper()
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, "config", "podcode"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "config", "podcode", "podcode.json"), []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// env is the environment of every podcode the tests run: its own config,
// cache and data folders, no token, and no blanket trust.
func env(home string) []string {
	return append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "PODCODE_API_TOKEN=", "PODCODE_TRUST_ALL=")
}

// podcode runs the binary in dir and returns its output.
func podcode(dir, home string, args ...string) (string, error) {
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Env = dir, env(home)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// running are the processes whose command line is cmdline (its words
// joined by spaces), from /proc.
func running(cmdline string) []string {
	var out []string
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		data, err := os.ReadFile(filepath.Join("/proc", d.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if strings.Join(strings.Split(strings.TrimRight(string(data), "\x00"), "\x00"), " ") == cmdline {
			if st, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat")); err == nil && strings.Contains(string(st), ") Z ") {
				continue // a zombie has ended
			}
			out = append(out, d.Name())
		}
	}
	return out
}

// A turn through the real server: two plugins and a Go guard around a tool
// call, every hook in order, the event stream, and a restart.
func TestServeTurnRestart(t *testing.T) {
	dir, home := project(t)
	srv := start(t, dir, home)
	ev := srv.events()

	var sess struct{ ID string }
	if code := srv.do("POST", "/sessions", map[string]any{"title": "e2e"}, &sess); code != 201 {
		t.Fatalf("create session: %d", code)
	}
	var turn struct {
		Messages []message `json:"messages"`
		Text     string    `json:"text"`
		Error    string    `json:"error"`
	}
	prompt := "read my notes\n/tool read {\"path\": \"notes.txt\"}\n/tool bash {\"command\": \"rm -rf /\"}"
	if code := srv.do("POST", "/sessions/"+sess.ID+"/messages", map[string]any{"text": prompt}, &turn); code != 200 {
		t.Fatalf("turn: %d %s\n%s", code, turn.Error, srv.logs)
	}
	var roles []string
	for _, m := range turn.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "user,assistant,tool,tool,assistant" {
		t.Fatalf("messages %v", roles)
	}
	read, bash := turn.Messages[2].Result, turn.Messages[3].Result
	if read.IsError || read.Output != "[a]      1\tmeeting at noon\n [b]" {
		t.Errorf("read result %q", read.Output)
	}
	if !bash.IsError || !strings.Contains(bash.Output, "destructive commands are not allowed here") {
		t.Errorf("bash result %+v", bash)
	}
	got := hookOrder(turn.Messages)
	wantOrder := []string{
		"PreToolUse/embed-guard/abstained", "PreToolUse/config:permission/abstained",
		"tool.execute.before/a-prefix/changed", "tool.execute.before/b-suffix/unchanged",
		"tool.execute.after/a-prefix/changed", "tool.execute.after/b-suffix/changed",
		"PreToolUse/embed-guard/voted:deny", "PreToolUse/config:permission/abstained",
	}
	if strings.Join(got, " ") != strings.Join(wantOrder, " ") {
		t.Errorf("hooks:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantOrder, "\n"))
	}

	items := ev.waitFor(t, "turn.finished")
	var types []string
	for _, it := range items {
		typ := it["type"].(string)
		if typ == "message.stored" {
			m := it["properties"].(map[string]any)["message"].(map[string]any)
			typ += ":" + m["role"].(string)
		}
		types = append(types, typ)
	}
	wantEvents := "session.created turn.started message.stored:user message.stored:assistant tool.call.started tool.call.finished message.stored:tool message.stored:tool message.delta message.stored:assistant turn.finished"
	if strings.Join(types, " ") != wantEvents {
		t.Errorf("events:\n%s\nwant\n%s", strings.Join(types, " "), wantEvents)
	}

	// GET on a message shows the hooks that ran around it.
	var one message
	if code := srv.do("GET", "/sessions/"+sess.ID+"/messages/"+turn.Messages[2].ID, nil, &one); code != 200 || len(one.Hooks) != 6 {
		t.Errorf("GET message: %d %+v", code, one)
	}

	// Kill the server and start it again: the session is intact.
	srv.kill()
	srv = start(t, dir, home)
	var sessions []struct{ ID, Status string }
	srv.do("GET", "/sessions", nil, &sessions)
	if len(sessions) != 1 || sessions[0].ID != sess.ID || sessions[0].Status != "idle" {
		t.Fatalf("after restart: %+v", sessions)
	}
	var msgs []message
	srv.do("GET", "/sessions/"+sess.ID+"/messages", nil, &msgs)
	if len(msgs) != 5 || msgs[2].Result.Output != read.Output {
		t.Errorf("after restart: %d messages", len(msgs))
	}
}

// Killing the server mid-turn loses nothing acknowledged, and the turn is
// marked interrupted on restart.
func TestKillMidTurn(t *testing.T) {
	dir, home := project(t)
	srv := start(t, dir, home)
	ev := srv.events()
	var sess struct{ ID string }
	srv.do("POST", "/sessions", nil, &sess)
	if code := srv.do("POST", "/sessions/"+sess.ID+"/messages", map[string]any{"text": "/tool bash {\"command\": \"sleep 31.4159\"}", "async": true}, nil); code != 202 {
		t.Fatalf("async turn: %d", code)
	}
	ev.waitFor(t, "tool.call.started")
	for deadline := time.Now().Add(10 * time.Second); len(running("sleep 31.4159")) == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the call's command never ran")
		}
	}
	srv.kill()
	// The command dies with the node that ran it (the kernel's parent-death
	// signal), rather than running on unowned.
	for deadline := time.Now().Add(10 * time.Second); len(running("sleep 31.4159")) > 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the call's command outlived the node killed with SIGKILL: pids %v", running("sleep 31.4159"))
		}
	}
	srv = start(t, dir, home)
	var got struct{ Status string }
	srv.do("GET", "/sessions/"+sess.ID, nil, &got)
	if got.Status != "interrupted" {
		t.Errorf("status %q, want interrupted", got.Status)
	}
	var msgs []message
	srv.do("GET", "/sessions/"+sess.ID+"/messages", nil, &msgs)
	if len(msgs) != 2 || msgs[0].Role != "user" || msgs[1].Role != "assistant" {
		t.Errorf("acknowledged messages lost: %+v", msgs)
	}
}

func TestAPIErrorsAndAuth(t *testing.T) {
	dir, home := project(t)
	srv := start(t, dir, home)
	var e struct{ Error string }
	if code := srv.do("POST", "/sessions", "not an object", &e); code != 400 || !strings.Contains(e.Error, "want") {
		t.Errorf("bad body: %d %q", code, e.Error)
	}
	if code := srv.do("GET", "/sessions/nope", nil, &e); code != 404 {
		t.Errorf("missing session: %d", code)
	}
	var doc map[string]any
	if code := srv.do("GET", "/openapi.json", nil, &doc); code != 200 || doc["openapi"] != "3.1.0" {
		t.Errorf("openapi: %d", code)
	}
	// A non-loopback address without a token refuses to start.
	out, err := podcode(dir, home, "serve", "--addr", "0.0.0.0:0")
	if err == nil || !strings.Contains(out, "needs an API token") {
		t.Errorf("serve on 0.0.0.0 without a token: %v %s", err, out)
	}
}
