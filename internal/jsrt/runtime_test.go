package jsrt

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dop251/goja"

	"github.com/podcode/podcode/internal/logtest"
)

func newRT(t testing.TB, src string, opts ...func(*Options)) (*Runtime, *logtest.Buffer) {
	t.Helper()
	logs := &logtest.Buffer{}
	o := Options{Name: "test-plugin", Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Cwd: t.TempDir(), Env: map[string]string{"GREETING": "hi"}} // the default job limit: a busy machine must not look like a spin
	for _, f := range opts {
		f(&o)
	}
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	if src != "" {
		if err := r.Do(context.Background(), func(vm *goja.Runtime) error { _, err := vm.RunString(src); return err }); err != nil {
			t.Fatal(err)
		}
	}
	return r, logs
}

// spinLimit is the job limit of tests that spin on purpose.
func spinLimit(o *Options) { o.JobLimit = 300 * time.Millisecond }

// callGlobal calls the global function name with args and exports the result.
func callGlobal(r *Runtime, ctx context.Context, name string, args ...any) (any, error) {
	return r.Call(ctx, func(vm *goja.Runtime) (goja.Value, error) {
		fn, ok := goja.AssertFunction(vm.Get(name))
		if !ok {
			return nil, fmt.Errorf("%s is not a function", name)
		}
		jsArgs := make([]goja.Value, len(args))
		for i, a := range args {
			v, err := ToValue(vm, a)
			if err != nil {
				return nil, err
			}
			jsArgs[i] = v
		}
		return fn(goja.Undefined(), jsArgs...)
	}, nil)
}

const plugin = `
var counter = 0;
function inc() { return ++counter; }
async function ainc() { await null; return ++counter; }
function spin() { while (true) {} }
async function spinAfterAwait() { await null; while (true) {} }
async function spinAfterTimer() { await new Promise(r => setTimeout(r, 1)); while (true) {} }
function* gen() { while (true) {} }
function spinGen() { return gen().next(); }
async function slow(ms) { await new Promise(r => setTimeout(r, ms)); return "slept " + ms; }
function boom() { throw new TypeError("bad input"); }
async function reject() { await null; throw new Error("async bad"); }
`

func TestCallsSyncAndAsync(t *testing.T) {
	r, _ := newRT(t, plugin)
	ctx := context.Background()
	if v, err := callGlobal(r, ctx, "inc"); err != nil || v != float64(1) {
		t.Fatalf("inc = %v, %v", v, err)
	}
	if v, err := callGlobal(r, ctx, "ainc"); err != nil || v != float64(2) {
		t.Fatalf("ainc = %v, %v", v, err)
	}
	_, err := callGlobal(r, ctx, "boom")
	var te *ThrowError
	if !errors.As(err, &te) || !strings.Contains(err.Error(), "TypeError: bad input") {
		t.Errorf("boom: %v", err)
	}
	if _, err := callGlobal(r, ctx, "reject"); err == nil || !strings.Contains(err.Error(), "async bad") {
		t.Errorf("reject: %v", err)
	}
}

// covers H8: a hook that spins is stopped, not only abandoned, and its
// plugin keeps serving later calls with its state intact.
func TestSpinIsStoppedAndRuntimeRecovers(t *testing.T) {
	r, _ := newRT(t, plugin, spinLimit)
	ctx := context.Background()
	for _, fn := range []string{"spin", "spinAfterAwait", "spinAfterTimer", "spinGen", "spinAfterAwait"} {
		before, _ := callGlobal(r, ctx, "inc")
		callCtx, cancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := callGlobal(r, callCtx, fn)
		cancel()
		var se *SpinError
		if fn == "spinAfterTimer" {
			// The spin runs in the timer's job, not in the call's: the watchdog
			// stops it, and the call is abandoned at its caller's deadline.
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("%s: err = %v, want the caller's deadline", fn, err)
			}
		} else if !errors.As(err, &se) {
			t.Fatalf("%s: err = %v, want a SpinError", fn, err)
		}
		// Sync and async calls keep working, and state survived.
		if v, err := callGlobal(r, ctx, "ainc"); err != nil || v != before.(float64)+1 {
			t.Fatalf("after %s: ainc = %v, %v (before %v)", fn, v, err, before)
		}
		if v, err := callGlobal(r, ctx, "slow", 1); err != nil || v != "slept 1" {
			t.Fatalf("after %s: slow = %v, %v", fn, v, err)
		}
	}
}

// The watchdog is armed once for a run of jobs, not for each: a job that
// begins while it is armed for an earlier one still gets the whole job
// limit, counted from its own start, and a spin after it is still stopped
// (covers H8).
func TestJobLimitCountsFromEachJobsStart(t *testing.T) {
	r, _ := newRT(t, plugin+`function busy(ms) { const end = Date.now() + ms; while (Date.now() < end) {} return ms; }`,
		func(o *Options) { o.JobLimit = time.Second })
	ctx := context.Background()
	if _, err := callGlobal(r, ctx, "inc"); err != nil { // arms the watchdog for 1 s from now
		t.Fatal(err)
	}
	time.Sleep(600 * time.Millisecond)
	// Runs past the first job's second, well within its own.
	if v, err := callGlobal(r, ctx, "busy", 700); err != nil || v != 700.0 {
		t.Fatalf("a 700 ms job with a 1 s limit, begun 600 ms after another: %v, %v", v, err)
	}
	var se *SpinError
	if _, err := callGlobal(r, ctx, "spin"); !errors.As(err, &se) {
		t.Fatalf("spin: %v, want a SpinError", err)
	}
}

// Jobs run in the order they were queued: a call never overtakes a job
// queued before it (here, by the same goroutine, with Post). Run with -race.
func TestCallsRunAfterWhatWasQueuedBefore(t *testing.T) {
	r, _ := newRT(t, `var posted = 0; function read() { return posted; }`)
	ctx := context.Background()
	for i := 1; i <= 2000; i++ {
		r.Post(func(vm *goja.Runtime) { vm.Set("posted", i) })
		if v, err := callGlobal(r, ctx, "read"); err != nil || v != float64(i) {
			t.Fatalf("call %d saw posted = %v, %v", i, v, err)
		}
	}
}

// An abandoned call is left to settle; its result is ignored; the runtime
// keeps serving.
func TestAbandonedCall(t *testing.T) {
	r, _ := newRT(t, plugin)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := callGlobal(r, ctx, "slow", 200); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if v, err := callGlobal(r, context.Background(), "inc"); err != nil || v != float64(1) {
		t.Fatalf("inc after abandon = %v, %v", v, err)
	}
}

// Calls into one plugin interleave at await points: a hook that awaits does
// not hold up the others. Run with -race.
func TestConcurrentCallsInterleave(t *testing.T) {
	r, _ := newRT(t, plugin+`
		let release;
		async function parked() { await new Promise((r) => { release = r; }); return "released"; }
		function isParked() { return typeof release === "function"; }
		function unpark() { release(); }`)
	ctx := context.Background()
	parked := make(chan any, 1)
	go func() { v, _ := callGlobal(r, ctx, "parked"); parked <- v }()
	for {
		if v, _ := callGlobal(r, ctx, "isParked"); v == true {
			break
		}
		time.Sleep(time.Millisecond)
	}
	// While one call is parked on an await, many others run to completion:
	// if they queued behind it, they would never finish.
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				if _, err := callGlobal(r, ctx, "ainc"); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	select {
	case v := <-parked:
		t.Fatalf("the parked call returned %v before it was released", v)
	default:
	}
	if _, err := callGlobal(r, ctx, "unpark"); err != nil {
		t.Fatal(err)
	}
	if v := <-parked; v != "released" {
		t.Errorf("parked call = %v", v)
	}
	if v, _ := callGlobal(r, ctx, "inc"); v != float64(1601) {
		t.Errorf("counter = %v, want 1601", v)
	}
}

// Timers with the same delay run in the order they were set, as in Node
// and browsers, although each has a Go timer of its own whose expiries
// reach the loop in any order.
func TestTimersOfEqualDelayRunInOrder(t *testing.T) {
	r, _ := newRT(t, `
		function run() {
			return new Promise((resolve) => {
				const log = [];
				for (let i = 0; i < 20; i++) setTimeout(() => { log.push(i); if (log.length === 20) resolve(log.join(",")); }, 0);
			});
		}`)
	for range 50 {
		v, err := callGlobal(r, context.Background(), "run")
		if err != nil {
			t.Fatal(err)
		}
		if want := "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19"; v != want {
			t.Fatalf("order = %v", v)
		}
	}
}

// covers H8: timers due at the same time run in jobs of their own: two
// spinning callbacks are both stopped (the second would otherwise run with
// no watchdog), and callbacks that are merely slow each get the whole job
// limit.
func TestTimersDueTogetherRunOnePerJob(t *testing.T) {
	r, logs := newRT(t, `
		var done = [];
		function busy(ms) { const end = Date.now() + ms; while (Date.now() < end) {} }
		function spinTwice() { setTimeout(() => { while (true) {} }, 0); setTimeout(() => { while (true) {} }, 0); }
		function slowFour() { for (let i = 0; i < 4; i++) setTimeout(() => { busy(120); done.push(i) }, 0); }
		function inc() { return done.length }`, spinLimit)
	ctx := context.Background()
	if _, err := callGlobal(r, ctx, "spinTwice"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); strings.Count(logs.String(), "without yielding") < 2; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("both spinning timers should be stopped:\n%s", logs.String())
		}
	}
	if _, err := callGlobal(r, ctx, "slowFour"); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		callCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		n, err := callGlobal(r, callCtx, "inc")
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if n == float64(4) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%v of 4 slow timers ran:\n%s", n, logs.String())
		}
	}
	if n := strings.Count(logs.String(), "without yielding"); n != 2 {
		t.Errorf("%d spins reported, want the 2 real ones:\n%s", n, logs.String())
	}
}

func TestTimers(t *testing.T) {
	r, _ := newRT(t, `
		var log = [];
		function run() {
			return new Promise((resolve) => {
				// Done once both the timeout and the third tick have run,
				// in whichever order they came.
				const done = () => { if (log.includes("xy") && log.includes("tick3")) resolve(log.join(",")); };
				const id = setTimeout(() => log.push("cancelled"), 5);
				clearTimeout(id);
				let n = 0;
				const iv = setInterval(() => { log.push("tick" + (++n)); if (n === 3) clearInterval(iv); done(); }, 1);
				queueMicrotask(() => log.push("micro"));
				setTimeout((a, b) => { log.push(a + b); done(); }, 0, "x", "y");
			});
		}`)
	v, err := callGlobal(r, context.Background(), "run")
	if err != nil {
		t.Fatal(err)
	}
	// The 0ms timeout and the 1ms interval are both due a millisecond or so
	// after run() set them, and nothing orders the timeout before the first
	// tick: it was set after the interval (the HTML spec orders only timers
	// with the same or a shorter delay set earlier), and on a loaded machine
	// more than a millisecond can pass between the two calls. Check what is
	// ordered: the microtask first, the ticks in order, the timeout once.
	s := v.(string)
	if !strings.HasPrefix(s, "micro,") || strings.Count(s, "xy") != 1 || strings.Contains(s, "cancelled") ||
		strings.Replace(s, ",xy", "", 1) != "micro,tick1,tick2,tick3" {
		t.Errorf("log = %s", s)
	}
}

func TestConsoleAndRejectionsAreLogged(t *testing.T) {
	r, logs := newRT(t, `
		function talk() { console.log("hello", {a: 1}, 2); console.error(new Error("oops")); console.warn("careful"); }
		function orphan() { Promise.reject(new Error("nobody listens")); return 1; }
		function throwInTimer() { setTimeout(() => { throw new Error("timer bug"); }, 0); return 1; }`)
	ctx := context.Background()
	callGlobal(r, ctx, "talk")
	callGlobal(r, ctx, "orphan")
	callGlobal(r, ctx, "throwInTimer")
	time.Sleep(50 * time.Millisecond)
	callGlobal(r, ctx, "talk") // the runtime still works
	out := logs.String()
	for _, want := range []string{`msg="hello { a: 1 } 2" plugin=test-plugin source=console`, "level=ERROR msg=\"Error: oops", "level=WARN msg=careful",
		`plugin: unhandled promise rejection" plugin=test-plugin error="Error: nobody listens`, `plugin: timer callback threw" plugin=test-plugin error="Error: timer bug`} {
		if !strings.Contains(out, want) {
			t.Errorf("logs lack %q:\n%s", want, out)
		}
	}
}

func TestFetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path == "/slow" {
			select {
			case <-req.Context().Done():
			case <-time.After(5 * time.Second):
			}
			return
		}
		body := make([]byte, req.ContentLength)
		req.Body.Read(body)
		w.Header().Set("X-Echo", req.Header.Get("X-Test"))
		w.WriteHeader(201)
		fmt.Fprintf(w, `{"method":%q,"body":%q}`, req.Method, body)
	}))
	defer srv.Close()
	r, _ := newRT(t, `
		async function post(url) {
			const res = await fetch(url, { method: "post", headers: { "X-Test": "yes" }, body: "payload" });
			return { status: res.status, ok: res.ok, echo: res.headers.get("x-echo"), json: await res.json() };
		}
		async function abort(url) {
			const c = new AbortController();
			setTimeout(() => c.abort(), 10);
			try { await fetch(url, { signal: c.signal }); return "not aborted"; } catch (e) { return e.name; }
		}
		async function refused() { try { await fetch("http://127.0.0.1:1/"); return "ok"; } catch (e) { return e.message; } }`)
	ctx := context.Background()
	v, err := callGlobal(r, ctx, "post", srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["status"] != float64(201) || m["ok"] != true || m["echo"] != "yes" || m["json"].(map[string]any)["body"] != "payload" || m["json"].(map[string]any)["method"] != "POST" {
		t.Errorf("post = %v", m)
	}
	start := time.Now()
	if v, err := callGlobal(r, ctx, "abort", srv.URL+"/slow"); err != nil || v != "AbortError" {
		t.Errorf("abort = %v, %v", v, err)
	}
	if time.Since(start) > 3*time.Second {
		t.Error("abort did not cancel the request")
	}
	if v, _ := callGlobal(r, ctx, "refused"); !strings.Contains(fmt.Sprint(v), "fetch failed") {
		t.Errorf("refused = %v", v)
	}
}

func TestWebAndNodeAPIs(t *testing.T) {
	r, _ := newRT(t, "")
	dir := r.opts.Cwd
	os.WriteFile(filepath.Join(dir, "in.txt"), []byte("héllo"), 0o644)
	err := r.Do(context.Background(), func(vm *goja.Runtime) error {
		fs, _, err := r.Builtin("node:fs/promises")
		if err != nil {
			return err
		}
		path, _, err := r.Builtin("path")
		vm.Set("fs", fs)
		vm.Set("path", path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	src := `
	(async () => {
		const out = {};
		out.url = new URL("https://example.com/a/b?x=1#f").searchParams.get("x");
		out.enc = Array.from(new TextEncoder().encode("é")).join(",");
		out.dec = new TextDecoder().decode(new Uint8Array([104, 195, 169]));
		const o = { d: new Date(0), m: new Map([[1, {z: 1}]]), s: new Set([1]), a: [1, [2]] };
		const c = structuredClone(o);
		out.clone = c !== o && c.a[1] !== o.a[1] && c.m.get(1).z === 1 && c.d.getTime() === 0 && c.s.has(1);
		try { structuredClone(() => 1); out.cloneFn = "no error"; } catch (e) { out.cloneFn = e.name; }
		out.env = process.env.GREETING;
		out.cwd = process.cwd() === ` + "`" + dir + "`" + `;
		out.read = await fs.readFile("in.txt", "utf8");
		await fs.writeFile("out.txt", "written");
		out.list = (await fs.readdir(".")).sort().join(",");
		const st = await fs.stat("out.txt");
		out.stat = st.isFile() && !st.isDirectory() && st.size === 7;
		try { await fs.readFile("missing"); } catch (e) { out.missing = String(e.message).includes("no such file"); }
		out.path = [path.join("a", "b", "../c"), path.basename("/x/y.ts", ".ts"), path.extname("f.tar.gz"), path.dirname("/a/b/c"),
			path.isAbsolute("/a"), path.relative("/a/b", "/a/c/d"), path.resolve("/r", "s", "../t")].join("|");
		const ac = new AbortController(); let fired = false;
		ac.signal.addEventListener("abort", () => { fired = true; });
		ac.abort(); out.abort = fired && ac.signal.aborted && ac.signal.reason.name === "AbortError";
		return out;
	})()`
	v, err := r.Call(context.Background(), func(vm *goja.Runtime) (goja.Value, error) { return vm.RunString(src) }, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	want := map[string]any{"url": "1", "enc": "195,169", "dec": "hé", "clone": true, "cloneFn": "DataCloneError", "env": "hi", "cwd": true,
		"read": "héllo", "list": "in.txt,out.txt", "stat": true, "missing": true, "path": "a/c|y|.gz|/a/b|true|../c/d|/r/t", "abort": true}
	for k, w := range want {
		if m[k] != w {
			t.Errorf("%s = %v, want %v", k, m[k], w)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(got) != "written" {
		t.Errorf("out.txt = %q", got)
	}
}

func TestValuesCrossAsData(t *testing.T) {
	r, _ := newRT(t, `function echo(v) { return v; }
		function shape() { return { u: undefined, n: null, f: 1.5, s: "x", arr: [1, undefined], nested: { k: true } }; }
		function fn() { return { f: () => 1 }; }
		function cyc() { const o = {}; o.self = o; return o; }`)
	ctx := context.Background()
	in := map[string]any{"temperature": Undefined{}, "topP": nil, "options": map[string]any{"a": []any{1.0, "b"}}}
	v, err := callGlobal(r, ctx, "echo", in)
	if err != nil {
		t.Fatal(err)
	}
	out := v.(map[string]any)
	if _, ok := out["temperature"].(Undefined); !ok {
		t.Errorf("undefined did not survive: %#v", out["temperature"])
	}
	if out["topP"] != nil || len(out) != 3 {
		t.Errorf("null/keys: %#v", out)
	}
	v, _ = callGlobal(r, ctx, "shape")
	m := v.(map[string]any)
	if !IsUndefined(m["u"]) || m["n"] != nil || m["f"] != 1.5 || !IsUndefined(m["arr"].([]any)[1]) {
		t.Errorf("shape = %#v", m)
	}
	if s := StripUndefined(m).(map[string]any); len(s) != 5 {
		t.Errorf("strip = %#v", s)
	}
	if _, err := callGlobal(r, ctx, "fn"); err == nil || !strings.Contains(err.Error(), "function") {
		t.Errorf("function crossed: %v", err)
	}
	if _, err := callGlobal(r, ctx, "cyc"); err == nil || !strings.Contains(err.Error(), "deeper") {
		t.Errorf("cycle crossed: %v", err)
	}
}

func TestClose(t *testing.T) {
	r, _ := newRT(t, plugin)
	done := make(chan error, 1)
	go func() { _, err := callGlobal(r, context.Background(), "slow", 10000); done <- err }()
	time.Sleep(20 * time.Millisecond)
	r.Close()
	if err := <-done; !errors.Is(err, ErrClosed) {
		t.Errorf("pending call after Close: %v", err)
	}
	if _, err := callGlobal(r, context.Background(), "inc"); !errors.Is(err, ErrClosed) {
		t.Errorf("call after Close: %v", err)
	}
}

// Plugins change only their own view of an input; results reuse what they
// did not change.
func TestViewsAreCopyOnWrite(t *testing.T) {
	r, _ := newRT(t, `
		function mutate(input) { input.args.command = "rm"; input.extra = 1; delete input.toolID; input.list.push(3); return undefined; }
		function identity(input) { return input; }
		function partial(input) { return { ...input, args: { ...input.args, timeout: 5 } }; }
		function keys(input) { return Object.keys(input).join(",") + "|" + JSON.stringify(input.args) + "|" + (input.args === input.args) + "|" + Array.isArray(input.list); }`)
	ctx := context.Background()
	args := map[string]any{"command": "ls"}
	ctxData := map[string]any{"sessionID": "s"}
	in := map[string]any{"toolID": "bash", "args": args, "ctx": ctxData, "list": []any{1.0, 2.0}, "u": Undefined{}}
	if _, err := callGlobal(r, ctx, "mutate", in); err != nil {
		t.Fatal(err)
	}
	if args["command"] != "ls" || in["toolID"] != "bash" || len(in["list"].([]any)) != 2 || len(in) != 5 {
		t.Fatalf("the plugin changed the host's data: %v", in)
	}
	v, _ := callGlobal(r, ctx, "identity", in)
	if fmt.Sprintf("%p", v) != fmt.Sprintf("%p", in) {
		t.Error("an unchanged input was copied on export")
	}
	v, _ = callGlobal(r, ctx, "partial", in)
	out := v.(map[string]any)
	if out["args"].(map[string]any)["timeout"] != 5.0 || fmt.Sprintf("%p", out["ctx"]) != fmt.Sprintf("%p", ctxData) || !IsUndefined(out["u"]) {
		t.Errorf("partial = %#v", out)
	}
	v, _ = callGlobal(r, ctx, "keys", in)
	if v != `args,ctx,list,toolID,u|{"command":"ls"}|true|true` {
		t.Errorf("keys = %v", v)
	}
}

// Hostile values never crash the host, never hang a call, never stall the
// loop in Go code the watchdog cannot interrupt.
func TestHostileValues(t *testing.T) {
	r, logs := newRT(t, `
		function unprintable() { Promise.reject(Object.create(null)); return 1; }
		function throwsUnprintable() { throw Object.create(null); }
		function getterThrows() { return { get a() { throw new Error("getter bug"); } }; }
		function asyncGetterThrows() { return Promise.resolve({ get a() { throw 1; } }); }
		function decodeOverflow() { ArrayBuffer.isView = () => true; return new TextDecoder().decode({ buffer: new ArrayBuffer(1), byteOffset: 2 ** 62, byteLength: 2 ** 62 }); }
		function dupKey(o) { delete o.a; o.a = 3; return Object.keys(o).join(",") + "|" + JSON.stringify(o); }
		function hugeIndex(o) { try { o.list[2e7] = 1; } catch (e) {} return o.list.length; }
		function doubling() { let v = 1; for (let i = 0; i < 40; i++) v = [v, v]; return v; }`)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if v, err := callGlobal(r, ctx, "unprintable"); err != nil || v != 1.0 {
		t.Errorf("unprintable rejection: %v %v", v, err)
	}
	for _, fn := range []string{"throwsUnprintable", "getterThrows", "asyncGetterThrows", "decodeOverflow", "doubling"} {
		if _, err := callGlobal(r, ctx, fn); err == nil || errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: err = %v, want an error at once", fn, err)
		}
	}
	v, err := callGlobal(r, ctx, "dupKey", map[string]any{"a": 1.0, "b": 2.0})
	if err != nil || v != `a,b|{"a":3,"b":2}` {
		t.Errorf("dupKey = %v %v", v, err)
	}
	start := time.Now()
	v, _ = callGlobal(r, ctx, "hugeIndex", map[string]any{"list": []any{1.0}})
	if v != 1.0 || time.Since(start) > 2*time.Second {
		t.Errorf("hugeIndex = %v after %s", v, time.Since(start))
	}
	if v, err := callGlobal(r, ctx, "dupKey", map[string]any{"a": 0.0}); err != nil || v == nil {
		t.Errorf("the runtime stopped serving: %v %v", v, err)
	}
	if !strings.Contains(logs.String(), "unhandled promise rejection") {
		t.Errorf("the rejection was not logged:\n%s", logs.String())
	}
}
