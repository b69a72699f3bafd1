package jsrt

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// withMemory sets a memory limit, and a job limit long enough that a job
// which allocates reaches it first, even under the race detector.
func withMemory(mb int64) func(*Options) {
	return func(o *Options) { o.MemoryLimit, o.JobLimit = mb<<20, 2*time.Minute }
}

// liveHeap collects, then returns the live heap.
func liveHeap() int64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

func newRTQuiet(t testing.TB) *Runtime {
	r, _ := newRT(t, "")
	return r
}

// measured is the sizer's estimate of r, with no limit.
func measured(t testing.TB, r *Runtime) int64 {
	var held int64
	if err := r.Do(context.Background(), func(*goja.Runtime) error { held, _ = r.measure(0); return nil }); err != nil {
		t.Fatal(err)
	}
	return held
}

func run(t testing.TB, r *Runtime, src string) {
	t.Helper()
	if err := r.Do(context.Background(), func(vm *goja.Runtime) error { _, err := vm.RunString(src); return err }); err != nil {
		t.Fatal(err)
	}
}

// The estimate of what a runtime retains follows the Go heap: for each
// shape a plugin may keep (objects, arrays, strings, maps, closures,
// buffers, timers, data the host gave it), what it adds to the estimate is
// within a factor of two of what it adds to the live heap, and a value
// referenced many times counts once.
func TestMemoryEstimate(t *testing.T) {
	if fresh := measured(t, newRTQuiet(t)); fresh > 2<<20 {
		t.Errorf("a fresh runtime is estimated at %d KiB: the builtins, not a plugin's doing, should be far less", fresh>>10)
	}
	for _, c := range []struct{ name, src string }{
		{"objects", `var objs = []; for (let i = 0; i < 100000; i++) objs.push({ n: i, s: "s" + i });`},
		{"arrays of numbers", `var nums = []; for (let i = 0; i < 100; i++) nums.push(new Array(10000).fill(i * 1000.5));`},
		{"a long string", `var str = "xy".repeat(5e6) + "!";`},
		{"a map", `var map = new Map(); for (let i = 0; i < 100000; i++) map.set("k" + i, [i]);`},
		{"a closure's state", `var closure = (() => { const big = []; for (let i = 0; i < 100000; i++) big.push([i, i]); return () => big.length; })();`},
		{"a typed array", `var bytes = new Uint8Array(20e6);`},
		{"a timer's state", `(() => { const held = []; for (let i = 0; i < 100000; i++) held.push({ i }); setTimeout(() => held.length, 1e9); })();`},
		{"sparse arrays", `var sparse = []; for (let i = 0; i < 100000; i++) sparse.push(new Array(1e6));`},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRTQuiet(t)
			before, heapBefore := measured(t, r), liveHeap()
			run(t, r, c.src)
			grew, heapGrew := measured(t, r)-before, liveHeap()-heapBefore
			t.Logf("estimate +%d KiB, heap +%d KiB", grew>>10, heapGrew>>10)
			if grew < heapGrew/2 || grew > heapGrew*2 {
				t.Errorf("estimate grew by %d KiB, the heap by %d KiB", grew>>10, heapGrew>>10)
			}
		})
	}
	t.Run("shared", func(t *testing.T) {
		r := newRTQuiet(t)
		before := measured(t, r)
		run(t, r, `var one = "z".repeat(1e6); var refs = []; for (let i = 0; i < 100000; i++) refs.push(one);`)
		// The string once (1 MB) and 100,000 slots (1.6 MB), not 100 GB.
		if grew := measured(t, r) - before; grew > 8<<20 {
			t.Errorf("a string referenced 100,000 times grew the estimate by %d MiB", grew>>20)
		}
	})
}

// The estimate stops counting past the limit it is given, and costs no
// more than the values it visits.
func TestMemoryEstimateStopsAtTheLimit(t *testing.T) {
	r, _ := newRT(t, `var kept = []; for (let i = 0; i < 40; i++) kept.push(new Array(100000).fill(i + 0.5));`,
		func(o *Options) { o.JobLimit = time.Minute })
	var held int64
	var within bool
	var nodes int
	r.Do(context.Background(), func(*goja.Runtime) error {
		s := sizer{limit: 16 << 20}
		defer s.seen.release()
		within = r.sizeInto(&s)
		held, nodes = s.total, s.nodes
		return nil
	})
	if within || held < 16<<20 || held > 20<<20 {
		t.Errorf("with a limit of 16 MiB over ~64 MiB: within %v, counted %d MiB", within, held>>20)
	}
	// Each large array's own size is counted before any array's elements
	// are visited: some thousands of values, not the millions of elements.
	if nodes > 100_000 {
		t.Errorf("%d values visited to find the runtime over its limit", nodes)
	}
}

// A job that grows the heap past the limit is stopped; the plugin keeps
// serving with its state, and is not stopped for good when what the job
// allocated was its own.
func TestJobThatGrowsTheHeapIsStopped(t *testing.T) {
	r, logs := newRT(t, plugin+`
		function burst() { const a = []; while (true) a.push(new Array(1e5).fill(0.5)); }`, withMemory(64))
	ctx := context.Background()
	_, err := callGlobal(r, ctx, "burst")
	var me *MemoryError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "more than the plugin's memory budget of 64 MiB") {
		t.Fatalf("burst: %v, want a MemoryError", err)
	}
	for i := 1; i <= 2; i++ {
		if v, err := callGlobal(r, ctx, "ainc"); err != nil || v != float64(i) {
			t.Fatalf("after the burst: ainc = %v, %v", v, err)
		}
	}
	if r.Err() != nil {
		t.Errorf("the runtime was stopped: %v", r.Err())
	}
	if !strings.Contains(logs.String(), `plugin: a job grew the heap past the memory budget and was stopped" plugin=test-plugin`) {
		t.Errorf("not logged:\n%s", logs)
	}
}

// gcSink holds garbage for TestJobAmidGarbageIsMeasuredFromTheLiveHeap.
var gcSink []byte

// A job that starts while the heap holds much garbage is measured from
// what was live, not from the garbage: its growth past the limit stops
// it, however slowly it grows. (Measured from the heap's objects, this job
// would have to grow by the garbage too before a collection it forced
// lowered the baseline, and would end on its own first.)
func TestJobAmidGarbageIsMeasuredFromTheLiveHeap(t *testing.T) {
	r, _ := newRT(t, plugin+`
		function grow(n) {
			const a = [], mib = "x".repeat(1 << 20)
			for (let i = 0; i < n; i++) {
				a.push(mib + i)
				const until = Date.now() + 5
				while (Date.now() < until) {}
			}
			return a.length
		}`, withMemory(32))
	// Collections only when the watchdog forces them, so that none lowers
	// the baseline by chance.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.GC()
	gcSink = make([]byte, 96<<20)
	gcSink = nil
	earlyGC.last.Store(0) // an earlier test's job may have used this second's
	v, err := callGlobal(r, context.Background(), "grow", 56)
	var me *MemoryError
	if !errors.As(err, &me) {
		t.Fatalf("grow(56 MiB) with a 32 MiB budget: %v, %v; want a MemoryError", v, err)
	}
}

// A runtime that keeps more than its limit is stopped for good: the job
// that kept it, and every call after, fail; its owner is told once.
func TestRuntimeThatKeepsTooMuchIsStopped(t *testing.T) {
	stopped := make(chan error, 2)
	r, logs := newRT(t, plugin+`
		var kept = [];
		function hoard() { while (true) kept.push(new Array(1e5).fill(0.5)); }`,
		withMemory(64), func(o *Options) { o.OnStop = func(err error) { stopped <- err } })
	ctx := context.Background()
	var me *MemoryError
	if _, err := callGlobal(r, ctx, "hoard"); !errors.As(err, &me) {
		t.Fatalf("hoard: %v, want a MemoryError", err)
	}
	var err error
	select {
	case err = <-stopped:
	case <-time.After(time.Minute):
		t.Fatalf("the runtime was not stopped a minute after its job was (it retains %d MiB)", measured(t, r)>>20)
	}
	var ob *OverBudgetError
	if !errors.As(err, &ob) || ob.Limit != 64<<20 || ob.Held <= ob.Limit {
		t.Fatalf("OnStop: %v", err)
	}
	if _, err := callGlobal(r, ctx, "inc"); !errors.As(err, &ob) || !strings.Contains(err.Error(), "the plugin was stopped: it held more than its memory budget of 64 MiB") {
		t.Errorf("a call after the stop: %v", err)
	}
	if !errors.As(r.Err(), &ob) {
		t.Errorf("Err = %v", r.Err())
	}
	if !strings.Contains(logs.String(), `msg="plugin: stopped: it held more than its memory budget; its hooks and tools no longer run" plugin=test-plugin`) {
		t.Errorf("not logged:\n%s", logs)
	}
	select {
	case err := <-stopped:
		t.Errorf("OnStop called twice: %v", err)
	default:
	}
}

// A runtime that keeps a little per call, each call too short to be
// watched, is measured after the collections that follow and stopped once
// it holds more than its limit, long before it could take the process down.
func TestLeakAcrossCallsIsStopped(t *testing.T) {
	r, _ := newRT(t, `
		var kept = [];
		function leak() { for (let i = 0; i < 25; i++) kept.push(new Array(1e4).fill(i + 0.5)); return kept.length; }`, withMemory(32))
	ctx := context.Background()
	calls := 0
	for ; calls < 200 && r.Err() == nil; calls++ { // 4 MB a call: 800 MB if never stopped
		if _, err := callGlobal(r, ctx, "leak"); err != nil {
			var ob *OverBudgetError
			if !errors.As(err, &ob) {
				t.Fatalf("call %d: %v", calls, err)
			}
			break
		}
		runtime.GC() // as a busy server's heap would be collected
	}
	var ob *OverBudgetError
	if !errors.As(r.Err(), &ob) {
		t.Fatalf("after %d calls (%d MB kept) the runtime still runs", calls, calls*4)
	}
	// Each call's collection measures it: stopped within a few calls of the limit.
	if calls > 16 {
		t.Errorf("stopped after %d calls (%d MB kept), for a limit of 32 MiB", calls, calls*4)
	}
}

// covers H8: a builtin that runs in Go for as long as the script asks (a
// join over a sparse array of length 2**32-1) gives up when the watchdog
// interrupts its job; the runtime keeps serving.
func TestLongJoinIsStopped(t *testing.T) {
	r, _ := newRT(t, plugin+`
		function longJoin() { const a = []; a.length = 2 ** 32 - 1; return a.join("").length; }`, spinLimit)
	ctx := context.Background()
	var se *SpinError
	if _, err := callGlobal(r, ctx, "longJoin"); !errors.As(err, &se) {
		t.Fatalf("longJoin: %v, want a SpinError", err)
	}
	if v, err := callGlobal(r, ctx, "inc"); err != nil || v != float64(1) {
		t.Errorf("after: inc = %v, %v", v, err)
	}
}

// Builtins whose one allocation the script sizes refuse one past the
// budget with a RangeError that says so, at once; within it, and for
// everything else, they behave as before, identity included.
func TestSizedAllocationsPastTheBudgetAreRefused(t *testing.T) {
	r, _ := newRT(t, `
		function refused(src) {
			try { (0, eval)(src); return "allocated"; } catch (e) { return e.name + ": " + e.message; }
		}`, withMemory(64))
	ctx := context.Background()
	for _, c := range []struct{ src, what string }{
		{`"x".repeat(2 ** 26)`, "String.prototype.repeat would allocate 128 MiB"},
		{`"ab".repeat(2 ** 40)`, "String.prototype.repeat would allocate"},
		{`"".padEnd(2 ** 26)`, "String.prototype.padEnd would allocate 128 MiB"},
		{`"x".padStart(2 ** 30, "-")`, "String.prototype.padStart would allocate 2048 MiB"},
		{`new Array(2 ** 24)`, "new Array(16777216) would allocate 256 MiB"},
		{`Array(2 ** 24)`, "new Array(16777216) would allocate 256 MiB"},
		{`Array.from({ length: 2 ** 24 })`, "Array.from would allocate 256 MiB"},
		{`const a = []; a.length = 2 ** 24; a.fill(0)`, "Array.prototype.fill would allocate 256 MiB"},
		{`new Array(2 ** 20).fill("x".repeat(1024)).join("")`, "Array.prototype.join would allocate"},
		{`Array.prototype.join.call({ length: 2 ** 40 }, "--")`, "Array.prototype.join would allocate"},
		{`String(Array(2 ** 20).fill("y".repeat(100)))`, "Array.prototype.join would allocate"},
		{`new ArrayBuffer(2 ** 27)`, "new ArrayBuffer would allocate 128 MiB"},
		{`new Uint8Array(2 ** 27)`, "new Uint8Array would allocate 128 MiB"},
		{`new Float64Array(2 ** 24)`, "new Float64Array would allocate 128 MiB"},
		{`new Int32Array({ length: 2 ** 25 })`, "new Int32Array would allocate 128 MiB"},
		{`new Uint8Array(16).subarray.call(new (class extends Uint8Array {})(2 ** 27))`, "new Uint8Array would allocate 128 MiB"},
	} {
		v, err := callGlobal(r, ctx, "refused", c.src)
		if err != nil || !strings.HasPrefix(fmt.Sprint(v), "RangeError: "+c.what) {
			t.Errorf("%s: %v %v, want RangeError: %s…", c.src, v, err, c.what)
		}
	}
	v, err := r.Call(ctx, func(vm *goja.Runtime) (goja.Value, error) {
		return vm.RunString(`[
			"ab".repeat(3), "7".padStart(3, "0"), "7".padEnd(2), new Array(3).length, Array(2, 3).join("+"),
			Array.from("abc").join(), Array.from({ length: 2 }, (_, i) => i * 2).join(), [1, 2, 3].fill(9, 1).join(),
			new Uint8Array([1, 2, 300]).join(), new Float64Array(2).length, new ArrayBuffer(8).byteLength,
			[] instanceof Array, [].constructor === Array, Array.isArray(new Array(2)), Array.name, Array.prototype.constructor === Array,
			new Uint8Array(2) instanceof Uint8Array, new Uint8Array(2).constructor === Uint8Array, new Uint8Array(4).subarray(1) instanceof Uint8Array,
			(class L extends Array {}).from([1, 2]).length, new (class L extends Array {})(4).length, [1, [2, [3]]].toString(),
			[1, 2, 3].map((x) => x * 2).join(), [3, 1, 2].sort().slice(1).join(), ["é", "\ud83d\ude00"].join("|"),
		].map(String).join(" ; ")`)
	}, nil)
	want := "ababab ; 007 ; 7  ; 3 ; 2+3 ; a,b,c ; 0,2 ; 1,9,9 ; 1,2,44 ; 2 ; 8 ; true ; true ; true ; Array ; true ; true ; true ; true ; 2 ; 4 ; 1,2,3 ; 2,4,6 ; 2,3 ; é|😀"
	if err != nil || v != want {
		t.Errorf("within the budget:\n got %v %v\nwant %s", v, err, want)
	}
}

// The overhead of the memory accounting on a call that returns at once:
// compare BenchmarkCallObserve (no limit).
func BenchmarkCallObserveWithMemoryLimit(b *testing.B) {
	r, _ := newRT(b, "var hook = (input) => undefined", withMemory(256))
	var fn goja.Callable
	r.Do(context.Background(), func(vm *goja.Runtime) error {
		fn, _ = goja.AssertFunction(vm.Get("hook"))
		return nil
	})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Call(ctx, func(vm *goja.Runtime) (goja.Value, error) {
			v, err := ToValue(vm, beforeInput)
			if err != nil {
				return nil, err
			}
			return fn(goja.Undefined(), v)
		}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// The cost of one measurement: a fresh runtime, and one holding 100,000
// objects.
func BenchmarkMeasure(b *testing.B) {
	for _, c := range []struct{ name, src string }{
		{"fresh", ""},
		{"100k-objects", `var objs = []; for (let i = 0; i < 100000; i++) objs.push({ n: i, s: "s" + i });`},
	} {
		b.Run(c.name, func(b *testing.B) {
			r, _ := newRT(b, c.src)
			var nodes int
			r.Do(context.Background(), func(*goja.Runtime) error {
				for b.Loop() {
					s := sizer{}
					r.sizeInto(&s)
					s.seen.release()
					nodes = s.nodes
				}
				return nil
			})
			b.ReportMetric(float64(nodes), "values")
		})
	}
}
