package jsrt

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// timerSteps is the heap's count of comparisons so far.
func timerSteps(t testing.TB, r *Runtime) int {
	var n int
	if err := r.Do(context.Background(), func(*goja.Runtime) error { n = r.theap.steps; return nil }); err != nil {
		t.Fatal(err)
	}
	return n
}

// 200,000 timers finish, in the order they were set, in O(n log n) work:
// each firing used to scan every pending timer (O(n²): a core busy for more
// than ten minutes).
func TestManyTimersCostLogN(t *testing.T) {
	n := 200_000
	if raceEnabled {
		n = 20_000
	}
	r, _ := newRT(t, `
		function many(n) {
			return new Promise((resolve, reject) => {
				let next = 0;
				for (let i = 0; i < n; i++) setTimeout(() => {
					if (i !== next) reject(new Error("timer " + i + " ran when " + next + " was due"));
					if (++next === n) resolve(next);
				}, 0);
			});
		}`, func(o *Options) {
		o.MaxTimers = n
		o.JobLimit = 5 * time.Minute // setting 200,000 timers is one job; a loaded machine must not make it a spin
	})
	before := timerSteps(t, r)
	v, err := callGlobal(r, context.Background(), "many", n)
	if err != nil {
		t.Fatal(err)
	}
	if v != float64(n) {
		t.Fatalf("%v timers ran, want %d", v, n)
	}
	steps := timerSteps(t, r) - before
	// A binary heap: at most about 2 log2(n) comparisons to remove each
	// timer, and a few to add it.
	if limit := int(4 * float64(n) * math.Log2(float64(n))); steps > limit {
		t.Errorf("%d comparisons for %d timers, more than %d: not O(n log n)", steps, n, limit)
	}
}

// Thousands of setInterval(0) do not starve the plugin's calls: each
// firing is one job, queued behind the calls already waiting.
func TestIntervalsDoNotStarveCalls(t *testing.T) {
	r, _ := newRT(t, `
		var ticks = 0, ids = [];
		function start(n) { for (let i = 0; i < n; i++) ids.push(setInterval(() => { ticks++; }, 0)); }
		function read() { return ticks; }
		function stop() { ids.forEach(clearInterval); ids = []; }`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := callGlobal(r, ctx, "start", 2000); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				if _, err := callGlobal(r, ctx, "read"); err != nil {
					t.Errorf("a call while 2000 intervals run: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if _, err := callGlobal(r, ctx, "stop"); err != nil {
		t.Fatal(err)
	}
	if v, _ := callGlobal(r, ctx, "read"); v.(float64) == 0 {
		t.Errorf("the intervals never ran")
	}
}

// A plugin holds at most MaxTimers timers; past that setTimeout and
// setInterval throw a RangeError that says so. Timers that ran or were
// cleared give their place back.
func TestTimerCap(t *testing.T) {
	r, _ := newRT(t, `
		var ids = [];
		function fill(n) { for (let i = 0; i < n; i++) ids.push(setTimeout(() => {}, 60000)); return ids.length; }
		function one(kind) { try { ids.push(kind === "interval" ? setInterval(() => {}, 60000) : setTimeout(() => {}, 60000)); return "ok"; } catch (e) { return e.name + ": " + e.message; } }
		function clearOne() { clearTimeout(ids.shift()); }
		function soon() { return new Promise((resolve) => setTimeout(() => resolve("ran"), 0)); }`,
		func(o *Options) { o.MaxTimers = 100 })
	ctx := context.Background()
	if v, err := callGlobal(r, ctx, "fill", 99); err != nil || v != float64(99) {
		t.Fatalf("fill = %v, %v", v, err)
	}
	if v, _ := callGlobal(r, ctx, "one", "interval"); v != "ok" {
		t.Fatalf("the 100th timer: %v", v)
	}
	for _, kind := range []string{"timeout", "interval"} {
		v, _ := callGlobal(r, ctx, "one", kind)
		want := fmt.Sprintf("RangeError: set%s: this plugin already holds 100 timers, the most one plugin may hold", map[string]string{"timeout": "Timeout", "interval": "Interval"}[kind])
		if s, _ := v.(string); !strings.HasPrefix(s, want) {
			t.Errorf("the 101st timer (%s): %v, want %q…", kind, v, want)
		}
	}
	if _, err := callGlobal(r, ctx, "clearOne"); err != nil {
		t.Fatal(err)
	}
	if v, err := callGlobal(r, ctx, "soon"); err != nil || v != "ran" {
		t.Errorf("after clearing one, a timer: %v, %v", v, err)
	}
	// The timer that ran gave its place back too.
	if v, _ := callGlobal(r, ctx, "one", "timeout"); v != "ok" {
		t.Errorf("after a timer ran: %v", v)
	}
}

// go test -run '^$' -bench Timers -benchmem ./internal/jsrt/
//
// Scheduling and firing n timers due at once, per timer.
func BenchmarkTimers(b *testing.B) {
	for _, n := range []int{100, 10_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			r, _ := newRT(b, `
				function many(n) {
					return new Promise((resolve) => { let left = n; for (let i = 0; i < n; i++) setTimeout(() => { if (--left === 0) resolve(); }, 0); });
				}`)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := callGlobal(r, ctx, "many", n); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/timer")
		})
	}
}
