package perfbench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/provider/openaitest"
)

// binary is the podcode command, built once by TestMain.
var binary string

func TestMain(m *testing.M) {
	var err error
	if binary, err = apptest.BuildBinary(apptest.Podcode); err != nil {
		fmt.Fprintln(os.Stderr, "perfbench: building the podcode command:", err)
		os.Exit(1)
	}
	code := m.Run()
	apptest.RemoveBinaries()
	os.Exit(code)
}

// The plugins of the figures.
const (
	// zodPlugin defines a tool whose parameters are a zod 4 schema.
	zodPlugin = `import { z } from "zod"
export default {
  id: "zod-%02[1]d",
  server: () => ({
    tool: () => [{ id: "tool_%02[1]d", description: "a tool", parameters: z.object({ path: z.string(), n: z.number().int().optional() }),
      execute: async (args: { path: string }) => ({ title: "t", output: args.path }) }],
  }),
}
`
	// hookPlugin observes every call before and rewrites its output after.
	hookPlugin = `export default {
  id: "hooks-%02[1]d",
  server: () => ({
    "tool.execute.before": (input: any) => { if (input.toolID === "never") return input; return undefined },
    "tool.execute.after": (input: any) => ({ ...input, result: { ...input.result, output: input.result.output + "." } }),
  }),
}
`
)

// Project kinds.
const (
	noPlugins   = "plugins=0"
	hookPlugins = "plugins=5"
	zodPlugins  = "zod=20"
)

// project writes a project and the user's folders for one kind of run and
// returns the project's directory and the home holding the user's config,
// data and cache; the user's podcode.json points the default model at
// modelURL.
func project(tb testing.TB, kind, modelURL string) (dir, home string) {
	tb.Helper()
	files := map[string]string{"a.txt": "some text\nmore text\n", "b.txt": "other text\n"}
	var specs []string
	add := func(n int, src string) {
		for i := 0; i < n; i++ {
			name := fmt.Sprintf("plugins/p%02d.ts", i)
			files[name] = fmt.Sprintf(src, i)
			specs = append(specs, "./"+name)
		}
	}
	switch kind {
	case hookPlugins:
		add(5, hookPlugin)
	case zodPlugins:
		add(20, zodPlugin)
	}
	p := apptest.Project{Plugins: specs, Files: files}
	dir = apptest.Dir(tb, p)
	if kind == zodPlugins {
		// The zod installed for the plugin tests, where the project's
		// plugins resolve "zod".
		modules, err := filepath.Abs(filepath.Join("..", "jsplugin", "testdata"))
		if err != nil {
			tb.Fatal(err)
		}
		apptest.RequireNodeModules(tb, modules, "zod")
		if err := os.Symlink(filepath.Join(modules, "node_modules"), filepath.Join(dir, "node_modules")); err != nil {
			tb.Fatal(err)
		}
	}
	return dir, userHome(tb, benchUser(modelURL))
}

// benchUser is the user's config of every measured server: the fake model
// at modelURL.
func benchUser(modelURL string) map[string]any {
	return map[string]any{
		"model": "fake/bench",
		"provider": map[string]any{"fake": map[string]any{
			"options": map[string]any{"baseURL": modelURL, "maxRetries": 0},
			// A context no turn fills: compaction is not what is measured.
			"models": map[string]any{"bench": map[string]any{"limit": map[string]any{"context": 10000000, "output": 4096}}},
		}},
		"agent": map[string]any{"max_steps": 1000},
	}
}

// userHome is a new home whose user's config is user.
func userHome(tb testing.TB, user map[string]any) string {
	tb.Helper()
	home := tb.TempDir()
	data, _ := json.MarshalIndent(user, "", "  ")
	userDir := filepath.Join(home, "config", "podcode")
	if err := os.MkdirAll(userDir, 0o700); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(userDir, "podcode.json"), data, 0o600); err != nil {
		tb.Fatal(err)
	}
	return home
}

// fakeModel answers each request of a turn with one read call until the
// turn has made steps of them, then with a text. It keeps no state: the
// step is the number of tool messages since the last user message, so
// any number of sessions can run at once.
func fakeModel(tb testing.TB, steps int) *openaitest.StreamServer {
	tb.Helper()
	args := []string{`{"path": "a.txt"}`, `{"path": "b.txt"}`} // alternating, or the loop guard stops the turn
	srv, err := openaitest.NewStreamServer(func(msgs []openaitest.Brief) openaitest.Answer {
		done := 0
		for i := len(msgs) - 1; i >= 0 && msgs[i].Role != "user"; i-- {
			if msgs[i].Role == "tool" {
				done++
			}
		}
		if done >= steps {
			return openaitest.Answer{Text: "done"}
		}
		return openaitest.Answer{Calls: []openaitest.Call{{Name: "read", Args: args[done%2]}}}
	})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { srv.Close() })
	return srv
}

// env is the environment of a spawned server: the test's, without
// anything of Podcode's or the user's folders, plus its own.
func env(home, profile string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PODCODE_") || strings.HasPrefix(k, "XDG_") || k == "HOME" || k == "CLAUDE_CONFIG_DIR" {
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"), "PODCODE_TRUST_ALL=1")
	if profile != "" {
		out = append(out, "PODCODE_CPUPROFILE="+profile)
	}
	return out
}

// profilePath is where the server of the benchmark named name writes its
// CPU profile: PODCODE_BENCH_PROFILE/<name>.pprof, or "" for none.
func profilePath(name string) string {
	dir := os.Getenv("PODCODE_BENCH_PROFILE")
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, regexp.MustCompile(`[^A-Za-z0-9_.=-]+`).ReplaceAllString(name, "_")+".pprof")
}

// tail keeps the last bytes written to it: a server's output, for the
// error that says why it failed.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 64<<10 {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-32<<10:]...)
	}
	t.mu.Unlock()
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// server is one running podcode serve process.
type server struct {
	cmd   *exec.Cmd
	base  string
	out   *tail
	ready time.Duration // from before the fork to the first 200 of /healthz
	done  chan struct{} // closed when the process has been waited for
}

// spawn starts podcode serve in dir on a free loopback port and waits
// until /healthz answers 200. The address is the one the server prints
// once it listens, so no polling blurs the time to ready.
func spawn(tb testing.TB, dir, home, profile string) *server {
	tb.Helper()
	s := &server{out: &tail{}, done: make(chan struct{})}
	s.cmd = exec.Command(binary, "serve", "--addr", "127.0.0.1:0")
	s.cmd.Dir, s.cmd.Env = dir, env(home, profile)
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		tb.Fatal(err)
	}
	s.cmd.Stdout = s.out
	start := time.Now()
	if err := s.cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stderr)
		for {
			line, err := r.ReadString('\n')
			s.out.Write([]byte(line))
			if a, ok := strings.CutPrefix(line, "podcode serving on "); ok {
				addr <- strings.TrimSpace(a)
			}
			if err != nil {
				break
			}
		}
		s.cmd.Wait()
		close(s.done)
	}()
	tb.Cleanup(func() { s.stop(tb) })
	select {
	case s.base = <-addr:
	case <-s.done:
		tb.Fatalf("podcode serve exited before listening: %v\n%s", s.cmd.ProcessState, s.out)
	case <-time.After(60 * time.Second):
		tb.Fatalf("podcode serve did not listen within 60 s:\n%s", s.out)
	}
	for {
		res, err := http.Get(s.base + "/healthz")
		if err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == 200 {
				break
			}
		}
		if time.Since(start) > 60*time.Second {
			tb.Fatalf("/healthz: %v\n%s", err, s.out)
		}
		time.Sleep(time.Millisecond)
	}
	s.ready = time.Since(start)
	return s
}

// stop ends the server gracefully (SIGTERM, so a CPU profile is written)
// and waits; one that does not stop within 20 s is killed.
func (s *server) stop(tb testing.TB) {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(20 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
		tb.Errorf("podcode serve did not stop within 20 s of SIGTERM:\n%s", s.out)
	}
}

// memory returns the server's VmRSS and VmHWM in MiB.
func (s *server) memory(tb testing.TB) (rss, hwm float64) {
	tb.Helper()
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		tb.Fatal(err)
	}
	field := func(name string) float64 {
		for _, l := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(l, name+":"); ok {
				kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
				if err != nil {
					tb.Fatalf("/proc status %s: %q: %v", name, l, err)
				}
				return kb / 1024
			}
		}
		tb.Fatalf("/proc status has no %s", name)
		return 0
	}
	return field("VmRSS"), field("VmHWM")
}

// cpu returns the time the server's threads have run on a CPU and the
// time they waited for one (run_delay), summed over its threads from
// /proc/<pid>/task/*/schedstat. The CPU time does not grow when the
// machine is busy with other work, as wall times do; the wait says how
// busy it was.
func (s *server) cpu(tb testing.TB) (run, wait time.Duration) {
	tb.Helper()
	dir := fmt.Sprintf("/proc/%d/task", s.cmd.Process.Pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	for _, task := range tasks {
		data, err := os.ReadFile(filepath.Join(dir, task.Name(), "schedstat"))
		if err != nil {
			continue // the thread has just exited
		}
		f := strings.Fields(string(data))
		if len(f) < 2 {
			tb.Fatalf("%s/%s/schedstat: %q", dir, task.Name(), data)
		}
		r, err1 := strconv.ParseInt(f[0], 10, 64)
		w, err2 := strconv.ParseInt(f[1], 10, 64)
		if err1 != nil || err2 != nil {
			tb.Fatalf("%s/%s/schedstat: %q", dir, task.Name(), data)
		}
		run, wait = run+time.Duration(r), wait+time.Duration(w)
	}
	return run, wait
}

// call sends a JSON request and decodes the answer into out.
func (s *server) call(method, path string, body, out any) error {
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(method, s.base+path, bytes.NewReader(b))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		return fmt.Errorf("%s %s: %w", method, path, err)
	}
	if res.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, data)
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: %w: %s", method, path, err, data)
	}
	return nil
}

// session creates a session and returns its id.
func (s *server) session() (string, error) {
	var sess struct{ ID string }
	if err := s.call("POST", "/sessions", map[string]any{}, &sess); err != nil {
		return "", err
	}
	return sess.ID, nil
}

// turnResult is what one turn gave.
type turnResult struct {
	wall  time.Duration // the POST of the prompt, as the client saw it
	hooks []time.Duration
}

// turn runs one turn in session id and checks that it made steps tool
// calls, each one read through every plugin's hooks (plugins of them).
func (s *server) turn(id string, steps, plugins int) (turnResult, error) {
	var out struct {
		Messages []struct {
			Role   string
			Text   string
			Result *struct {
				Output  string
				IsError bool
			}
			Hooks []struct {
				Kind, Hook string
				DurationUs int64
			}
		}
	}
	start := time.Now()
	if err := s.call("POST", "/sessions/"+id+"/messages", map[string]any{"text": "read the notes"}, &out); err != nil {
		return turnResult{}, err
	}
	res := turnResult{wall: time.Since(start)}
	tools := 0
	for _, m := range out.Messages {
		if m.Role != "tool" {
			continue
		}
		tools++
		if m.Result == nil || m.Result.IsError || !strings.HasSuffix(m.Result.Output, "text\n"+strings.Repeat(".", plugins)) {
			return res, fmt.Errorf("tool call %d: %+v", tools, m.Result)
		}
		var d time.Duration
		n := 0
		for _, h := range m.Hooks {
			if h.Kind == "pipeline" && strings.HasPrefix(h.Hook, "tool.execute.") {
				d += time.Duration(h.DurationUs) * time.Microsecond
				n++
			}
		}
		if n != 2*plugins {
			return res, fmt.Errorf("tool call %d: %d pipeline hooks ran, want %d", tools, n, 2*plugins)
		}
		if plugins > 0 {
			res.hooks = append(res.hooks, d)
		}
	}
	if tools != steps || len(out.Messages) != 2*steps+2 || out.Messages[len(out.Messages)-1].Text != "done" {
		return res, fmt.Errorf("the turn made %d tool calls in %d messages, want %d in %d", tools, len(out.Messages), steps, 2*steps+2)
	}
	return res, nil
}

// modelTime is the time the model spent answering the exchanges.
func modelTime(ex []openaitest.Exchange) time.Duration {
	var d time.Duration
	for _, e := range ex {
		d += e.Answered.Sub(e.Arrived)
	}
	return d
}

// percentile returns the p-th percentile (0..100) of ds, nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := int(p/100*float64(len(s))+0.5) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
