package jsrt

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// withFS sets the global fs to node:fs/promises.
func withFS(t *testing.T, r *Runtime) {
	t.Helper()
	if err := r.Do(context.Background(), func(vm *goja.Runtime) error {
		fs, _, err := r.Builtin("node:fs/promises")
		if err != nil {
			return err
		}
		return vm.Set("fs", fs)
	}); err != nil {
		t.Fatal(err)
	}
}

// readFile reads whole only regular files, at most half the memory budget:
// a device that never ends (/dev/zero), a FIFO nobody writes to, and a
// file larger than that are refused at once, without reading them; what
// is within reads as before, /proc's files (which say they are empty)
// included.
func TestReadFileIsBounded(t *testing.T) {
	r, _ := newRT(t, `
		async function read(p, enc) {
			try { const v = await fs.readFile(p, enc); return typeof v === "string" ? "text " + v.length : "bytes " + v.length; }
			catch (e) { return "error: " + e.message; }
		}`, withMemory(64))
	withFS(t, r)
	dir := r.opts.Cwd
	big := filepath.Join(dir, "big")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(40 << 20) // sparse: no disk used
	f.Close()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "small"), []byte(strings.Repeat("é", 1<<19)), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, c := range []struct{ path, enc, want string }{
		{big, "", "error: readFile: " + big + " is larger than 32 MiB, the most one plugin reads at once (half its memory budget)"},
		{"/dev/zero", "utf8", "error: readFile: /dev/zero: not a regular file but a device"},
		{fifo, "", "error: readFile: " + fifo + ": not a regular file but a FIFO"},
		{dir, "", "error: EISDIR: illegal operation on a directory, read"},
		{"small", "utf8", fmt.Sprintf("text %d", 1<<19)},
		{"small", "", fmt.Sprintf("bytes %d", 1<<20)},
	} {
		v, err := callGlobal(r, ctx, "read", c.path, c.enc)
		if err != nil || v != c.want {
			t.Errorf("readFile(%s): %v %v, want %s", c.path, v, err, c.want)
		}
	}
	if v, err := callGlobal(r, ctx, "read", "/proc/self/status", "utf8"); err != nil || !strings.HasPrefix(fmt.Sprint(v), "text ") || v == "text 0" {
		t.Errorf("/proc/self/status: %v %v", v, err)
	}
}

// A plugin's requests run at most MaxFetches at a time: the others wait
// their turn (no connection, no goroutine), and all complete; past
// MaxWaitingOps waiting, fetch rejects at once. The same bound holds for
// file operations.
func TestHostOperationsAreBounded(t *testing.T) {
	g := newGate(t)
	r, _ := newRT(t, `
		var done = 0, failed = [];
		function start(url, n) {
			for (let i = 0; i < n; i++) fetch(url).then((res) => res.text()).then(() => { done++; }, (e) => { failed.push(e.message); });
		}
		function count() { return { done, failed: failed.length, first: failed[0] || "" }; }`,
		// Ten thousand fetch calls in one job take seconds under the race
		// detector on a loaded machine: the job limit is not what this
		// test is about.
		func(o *Options) { o.JobLimit = 2 * time.Minute })
	ctx := context.Background()
	n := MaxFetches + MaxWaitingOps + 5
	if _, err := callGlobal(r, ctx, "start", g.URL, n); err != nil {
		t.Fatal(err)
	}
	// The refusals are settled in the job that asked: see them first.
	v, err := callGlobal(r, ctx, "count")
	if err != nil {
		t.Fatal(err)
	}
	want := "fetch failed: fetch: this plugin already runs 8 and has 10000 more waiting, the most one plugin may have; wait for some to finish"
	if c := v.(map[string]any); c["failed"] != float64(5) || c["first"] != want {
		t.Errorf("refused: %v, want 5 × %q", c, want)
	}
	g.expectAtOnce(t, MaxFetches)
	// Let every request go, and see them all complete.
	g.release()
	awaitDone(t, r, n-5, 120*time.Second)
	g.expectMost(t, MaxFetches)
}

// gate is a loopback server whose requests wait until released, counting
// how many ran at once.
type gate struct {
	URL           string
	mu            sync.Mutex
	running, most int
	release       func() // lets every request go; once
}

func newGate(t *testing.T) *gate {
	g := &gate{}
	ch := make(chan struct{})
	var once sync.Once
	g.release = func() { once.Do(func() { close(ch) }) }
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		g.mu.Lock()
		g.running++
		g.most = max(g.most, g.running)
		g.mu.Unlock()
		defer func() {
			g.mu.Lock()
			g.running--
			g.mu.Unlock()
		}()
		select {
		case <-ch:
		case <-req.Context().Done():
		}
		fmt.Fprint(w, "ok")
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(g.release) // first, should the test fail before it releases
	g.URL = srv.URL
	return g
}

// expectAtOnce waits for want requests to run at once, and a little more
// for any that should not, then checks that want did.
func (g *gate) expectAtOnce(t *testing.T, want int) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		g.mu.Lock()
		m := g.most
		g.mu.Unlock()
		if m >= want {
			break
		}
	}
	time.Sleep(100 * time.Millisecond)
	g.expectMost(t, want)
}

func (g *gate) expectMost(t *testing.T, want int) {
	t.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.most != want {
		t.Errorf("%d requests ran at once, want %d", g.most, want)
	}
}

// awaitDone waits, at most d, for the script's count() to say that n
// requests are done.
func awaitDone(t *testing.T, r *Runtime, n int, d time.Duration) {
	t.Helper()
	var c map[string]any
	for deadline := time.Now().Add(d); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		v, _ := callGlobal(r, context.Background(), "count")
		if c = v.(map[string]any); c["done"] == float64(n) {
			return
		}
	}
	t.Errorf("%v of %d requests done", c, n)
}

// Console output reaches the log bounded: a line is cut at
// ConsoleLineChars, and past ConsoleBurst lines at once the rest are
// dropped and counted, in a warning with the plugin's id.
func TestConsoleOutputIsBounded(t *testing.T) {
	r, logs := newRT(t, `
		function long() { console.log("é".repeat(1e6)); }
		function flood(n) { for (let i = 0; i < n; i++) console.info("line " + i); }`)
	ctx := context.Background()
	if _, err := callGlobal(r, ctx, "long"); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	if len(out) > 4*ConsoleLineChars || !strings.Contains(out, fmt.Sprintf("… (%d more characters not logged)", int(1e6)-ConsoleLineChars)) {
		t.Errorf("a line of a million characters logged as %d bytes: %.200s…", len(out), out)
	}
	start := time.Now()
	if _, err := callGlobal(r, ctx, "flood", 3*ConsoleBurst); err != nil {
		t.Fatal(err)
	}
	// The burst, and what the rate adds while the flood runs (on a slow
	// or loaded machine, enough for the flood's last line to pass).
	refilled := int(time.Since(start).Seconds() * ConsoleLinesPerSecond)
	most := ConsoleBurst + refilled + 1
	out = logs.String()
	lines := strings.Count(out, "source=console")
	if lines > most || !strings.Contains(out, `msg="line 0"`) {
		t.Errorf("%d console lines logged out of %d, want at most %d, the first among them", lines, 3*ConsoleBurst+1, most)
	}
	if last := fmt.Sprintf(`msg="line %d"`, 3*ConsoleBurst-1); refilled == 0 && strings.Contains(out, last) {
		t.Errorf("the flood's last line was logged past the burst, with no time for the rate to add one")
	}
	if !strings.Contains(out, `msg="plugin: console output dropped: more lines than the log takes from one plugin" plugin=test-plugin dropped=1 `) {
		t.Errorf("the drops are not reported:\n%.2000s", out[len(out)-2000:])
	}
}

// Request bodies and file contents handed to the host wait outside
// JavaScript, where the memory budget does not see them: past
// MaxHeldBytes in all, a fetch or writeFile rejects at once, saying so;
// once the held ones are done, there is room again.
func TestHeldBytesAreBounded(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		io.Copy(io.Discard, req.Body)
		select {
		case <-release:
		case <-req.Context().Done():
		}
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	var once sync.Once
	defer once.Do(func() { close(release) })
	r, _ := newRT(t, `
		var done = 0, failed = [];
		function post(url, n, mb) {
			const body = "x".repeat(mb << 20);
			for (let i = 0; i < n; i++) fetch(url, {method: "POST", body}).then((res) => res.text()).then(() => { done++; }, (e) => { failed.push(e.message); });
		}
		function count() { return { done, failed: failed.length, first: failed[0] || "" }; }`)
	ctx := context.Background()
	// 20 bodies of 4 MiB: 16 fit in 64 MiB, the 4 others are refused.
	if _, err := callGlobal(r, ctx, "post", srv.URL, 20, 4); err != nil {
		t.Fatal(err)
	}
	v, err := callGlobal(r, ctx, "count")
	if err != nil {
		t.Fatal(err)
	}
	if c := v.(map[string]any); c["failed"] != float64(20-MaxHeldBytes/(4<<20)) || !strings.Contains(fmt.Sprint(c["first"]), "the most one plugin may hold is 64 MiB") {
		t.Errorf("refused: %v, want %d refusals saying why", c, 20-MaxHeldBytes/(4<<20))
	}
	once.Do(func() { close(release) })
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if v, _ := callGlobal(r, ctx, "count"); v.(map[string]any)["done"] == float64(MaxHeldBytes/(4<<20)) {
			break
		}
	}
	// The held bytes were given back: another 4 MiB fits.
	if _, err := callGlobal(r, ctx, "post", srv.URL, 1, 4); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if v, _ := callGlobal(r, ctx, "count"); v.(map[string]any)["done"] == float64(MaxHeldBytes/(4<<20)+1) {
			return
		}
	}
	v, _ = callGlobal(r, ctx, "count")
	t.Errorf("after the held requests were done: %v, want %d done", v, MaxHeldBytes/(4<<20)+1)
}
