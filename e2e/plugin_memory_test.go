package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/logtest"
)

// addressSpace is the hard limit the server runs under: an allocation past
// it fails, and the Go runtime cannot survive a failed allocation. Go
// reserves about 1.1 GiB of address space at start and the C library's
// arenas take another 0.5 GiB, so this leaves the server about 700 MiB to
// grow into: an unprotected server dies within the first calls (each call
// of hog-hoard keeps what 5 seconds of allocation make).
const addressSpace = 5 << 29

// Plugins that allocate without bound, each in its own way, beside a
// healthy one whose tool.execute.after marks every result.
const (
	// Inside one call: an array that only the call holds, of strings of a
	// MiB each (each one copy in Go: the heap grows past the budget within
	// a second or two even on a loaded machine, long before the 5-second
	// watchdog, which would stop the job for its time instead).
	hogBurst = `export default { id: "hog-burst", server: () => ({
  "tool.execute.before": (input) => {
    if (input.args.pattern !== "burst") return undefined
    const a = [], mib = "x".repeat(1 << 20)
    while (true) a.push(mib + a.length)
  },
}) }`
	// Inside one call, into an array of the module's: it survives the call.
	hogHoard = `const kept = []
export default { id: "hog-hoard", server: () => ({
  "tool.execute.before": (input) => {
    if (input.args.pattern !== "hoard") return undefined
    while (true) kept.push(new Array(1e6))
  },
}) }`
	// A little more in each call, into an array of the module's.
	hogLeak = `const kept = []
export default { id: "hog-leak", server: () => ({
  "tool.execute.before": (input) => {
    if (input.args.pattern !== "leak") return undefined
    for (let i = 0; i < 50; i++) kept.push(new Array(1e5).fill(kept.length))
    return undefined
  },
}) }`
	healthy = `let calls = 0
export default { id: "healthy", server: () => ({
  "tool.execute.after": (input) => ({ ...input, result: { ...input.result, output: input.result.output + " [healthy " + (++calls) + "]" } }),
}) }`
)

// A server under a hard address-space limit survives plugins that allocate
// without bound: in one call (the job is stopped, the plugin serves on), in
// one call into module state, and a little per call into module state (the
// plugin is stopped for good); the healthy plugin runs through every turn,
// and each hog is reported with its id, in the log and in /plugins.
func TestPluginMemoryBudgetUnderAddressSpaceLimit(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("prlimit (util-linux) is not installed")
	}
	dir := apptest.Dir(t, apptest.Project{Files: map[string]string{
		"podcode.json":     `{"plugin": ["./plugins/burst.js", "./plugins/hoard.js", "./plugins/leak.js", "./plugins/healthy.js"]}`,
		"plugins/burst.js": hogBurst, "plugins/hoard.js": hogHoard, "plugins/leak.js": hogLeak, "plugins/healthy.js": healthy,
	}})
	srv, session := trustedUnderLimit(t, dir)
	calls := 0
	turn := func(pattern string) {
		t.Helper()
		calls++
		out, err := srv.turn(session, fmt.Sprintf(`/tool glob {"pattern": %q}`, pattern))
		if err != nil {
			t.Fatalf("turn %d (%s): %v; the server's output:\n%s", calls, pattern, err, srv.tail())
		}
		if want := fmt.Sprintf("[healthy %d]", calls); !strings.Contains(out, want) {
			t.Fatalf("turn %d (%s): the healthy plugin did not run: %q, want %q in it", calls, pattern, out, want)
		}
	}
	for range 3 {
		turn("burst")
	}
	for range 2 {
		turn("hoard")
	}
	for range 40 {
		turn("leak")
	}
	turn("*.md")

	if !srv.alive() {
		t.Fatalf("the server died:\n%s", srv.tail())
	}
	var list struct {
		Plugins []struct{ ID, Status string }
	}
	if code := srv.do("GET", "/plugins", nil, &list); code != 200 {
		t.Fatalf("/plugins: %d", code)
	}
	status := map[string]string{}
	for _, p := range list.Plugins {
		status[p.ID] = p.Status
	}
	for id, want := range map[string]string{"healthy": "running", "hog-burst": "running",
		"hog-hoard": "stopped: the plugin was stopped: it held more than its memory budget", "hog-leak": "stopped: the plugin was stopped: it held more than its memory budget"} {
		if !strings.HasPrefix(status[id], want) {
			t.Errorf("/plugins: %s is %q, want %q…", id, status[id], want)
		}
	}
	for _, want := range []string{
		`plugin=hog-burst error="JavaScript grew the heap by`,
		`plugin: stopped: it held more than its memory budget; its hooks and tools no longer run" plugin=hog-hoard`,
		`plugin: stopped: it held more than its memory budget; its hooks and tools no longer run" plugin=hog-leak`,
	} {
		srv.logs.Await(t, want) // through the process's pipe
	}
	for _, line := range strings.Split(srv.logs.String(), "\n") {
		if strings.Contains(line, "plugin=healthy") && !strings.Contains(line, "level=INFO") ||
			strings.Contains(line, "plugin: stopped") && strings.Contains(line, "plugin=hog-burst") {
			t.Errorf("a plugin that kept within its budget was stopped or failed: %s", line)
		}
	}
}

// A plugin that reads a file without end (/dev/zero) or one far larger
// than its budget (a sparse file of 3 GiB, which costs no disk) gets an
// error; the server, under the same hard address-space limit, serves on.
func TestPluginFileReadsUnderAddressSpaceLimit(t *testing.T) {
	if _, err := exec.LookPath("prlimit"); err != nil {
		t.Skip("prlimit (util-linux) is not installed")
	}
	const reader = `import { readFile } from "node:fs/promises"
export default { id: "reader", server: () => ({
  "tool.execute.after": async (input) => {
    const file = { zero: "/dev/zero", huge: "huge.bin" }[input.args.pattern]
    if (file === undefined) return undefined
    let said
    try { said = "read " + (await readFile(file)).length + " bytes" } catch (e) { said = "refused: " + e.message }
    return { ...input, result: { ...input.result, output: said } }
  },
}) }`
	dir := apptest.Dir(t, apptest.Project{Files: map[string]string{
		"podcode.json": `{"plugin": ["./plugins/reader.js"]}`, "plugins/reader.js": reader,
	}})
	f, err := os.Create(filepath.Join(dir, "huge.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(3 << 30); err != nil {
		t.Fatal(err)
	}
	f.Close()
	srv, session := trustedUnderLimit(t, dir)
	for pattern, want := range map[string]string{
		"zero": "refused: readFile: /dev/zero: not a regular file",
		"huge": "refused: readFile: huge.bin is larger than", // as the plugin named it, as Node does
	} {
		out, err := srv.turn(session, fmt.Sprintf(`/tool glob {"pattern": %q}`, pattern))
		if err != nil {
			t.Fatalf("%s: %v; the server's output:\n%s", pattern, err, srv.tail())
		}
		if !strings.HasPrefix(out, want) {
			t.Errorf("%s: %q, want %q…", pattern, out, want)
		}
	}
	if !srv.alive() {
		t.Fatalf("the server died:\n%s", srv.tail())
	}
}

// trustedUnderLimit trusts the project in dir, serves it under the
// address-space limit, and opens a session.
func trustedUnderLimit(t *testing.T, dir string) (*limited, string) {
	t.Helper()
	home := t.TempDir()
	if out, err := podcode(dir, home, "trust", "--yes"); err != nil {
		t.Fatalf("podcode trust: %v\n%s", err, out)
	}
	srv := startLimited(t, dir, home, addressSpace)
	var sess struct{ ID string }
	if code := srv.do("POST", "/sessions", nil, &sess); code != 201 {
		t.Fatalf("create session: %d\n%s", code, srv.logs)
	}
	return srv, sess.ID
}

// limited is a podcode serve process under an address-space limit.
type limited struct {
	t    *testing.T
	cmd  *exec.Cmd
	base string
	logs *logtest.Buffer // read while the process writes it
	done chan struct{}   // closed when the process exited
}

// startLimited runs podcode serve under prlimit's address-space limit.
func startLimited(t *testing.T, dir, home string, limit int64) *limited {
	t.Helper()
	addr := freePort(t)
	s := &limited{t: t, base: "http://" + addr, logs: &logtest.Buffer{}, done: make(chan struct{})}
	s.cmd = exec.Command("prlimit", fmt.Sprintf("--as=%d", limit), "--", binary, "serve", "--addr", addr)
	s.cmd.Dir = dir
	s.cmd.Env = env(home)
	s.cmd.Stdout, s.cmd.Stderr = s.logs, s.logs
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { s.cmd.Wait(); close(s.done) }()
	t.Cleanup(func() { s.cmd.Process.Kill(); <-s.done })
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if res, err := http.Get(s.base + "/healthz"); err == nil {
			res.Body.Close()
			return s
		}
	}
	t.Fatalf("the server did not come up; its output:\n%s", s.logs)
	return nil
}

// alive reports whether the process still runs.
func (s *limited) alive() bool {
	select {
	case <-s.done:
		return false
	default:
		return true
	}
}

// tail is the end of the server's output, for failures.
func (s *limited) tail() string {
	out := s.logs.String()
	if len(out) > 8000 {
		out = "…" + out[len(out)-8000:]
	}
	if !s.alive() {
		out += "\n(the server exited: " + s.cmd.ProcessState.String() + ")"
	}
	return out
}

func (s *limited) do(method, path string, body, out any) int {
	s.t.Helper()
	var r io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		r = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, s.base+path, r)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatalf("%s %s: %v\n%s", method, path, err, s.tail())
	}
	defer res.Body.Close()
	if out != nil {
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			s.t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return res.StatusCode
}

// turn runs one turn and returns the output of its tool call.
func (s *limited) turn(session, text string) (string, error) {
	b, _ := json.Marshal(map[string]any{"text": text})
	res, err := http.Post(s.base+"/sessions/"+session+"/messages", "application/json", bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	var out struct {
		Messages []message `json:"messages"`
		Error    string    `json:"error"`
	}
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil || res.StatusCode != 200 {
		return "", fmt.Errorf("status %d, %v %s", res.StatusCode, err, out.Error)
	}
	for _, m := range out.Messages {
		if m.Result != nil {
			return m.Result.Output, nil
		}
	}
	return "", fmt.Errorf("no tool result in %+v", out.Messages)
}
