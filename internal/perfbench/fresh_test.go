package perfbench

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/provider/openaitest"
)

// The quick version of the figures, so that the harness itself is tested
// by `go test ./...`: a fresh server with 5 hook plugins, ready, one turn
// of 3 read calls through every hook, and each figure the benchmarks
// report read from it. Another server without plugins runs two sessions'
// turns at once.
func TestFreshProcessSmoke(t *testing.T) {
	const steps = 3
	fake := fakeModel(t, steps)
	dir, home := project(t, hookPlugins, fake.URL)
	s := spawn(t, dir, home, "")
	if s.ready <= 0 {
		t.Fatalf("ready after %v", s.ready)
	}
	if run, _ := s.cpu(t); run <= 0 {
		t.Fatalf("CPU time at ready %v", run)
	}
	rss, hwm := s.memory(t)
	if rss <= 0 || hwm < rss {
		t.Fatalf("VmRSS %.1f MiB, VmHWM %.1f MiB", rss, hwm)
	}
	id, err := s.session()
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.turn(id, steps, 5)
	if err != nil {
		t.Fatalf("%v\n%s", err, s.out)
	}
	ex := fake.Exchanges()
	if len(ex) != steps+1 {
		t.Fatalf("%d model calls, want %d", len(ex), steps+1)
	}
	gaps, err := openaitest.Gaps(ex)
	if err != nil || len(gaps) != steps {
		t.Fatalf("gaps %v: %v", gaps, err)
	}
	if m := modelTime(ex); m <= 0 || m >= res.wall || slices.Min(gaps) <= 0 {
		t.Errorf("model time %v, turn %v, gaps %v", m, res.wall, gaps)
	}
	if len(res.hooks) != steps || slices.Min(res.hooks) <= 0 {
		t.Errorf("hook times %v", res.hooks)
	}
	s.stop(t)

	// A session's turn is told apart from another's running at once; the
	// server writes its CPU profile when it stops.
	fake = fakeModel(t, steps)
	dir, home = project(t, noPlugins, fake.URL)
	profile := filepath.Join(t.TempDir(), "cpu.pprof")
	s = spawn(t, dir, home, profile)
	if _, err := concurrentTurns(s, 2, steps, 0); err != nil {
		t.Fatalf("%v\n%s", err, s.out)
	}
	if gaps, err := openaitest.Gaps(fake.Exchanges()); err != nil || len(gaps) != 2*steps {
		t.Errorf("gaps %v: %v", gaps, err)
	}
	s.stop(t)
	if data, err := os.ReadFile(profile); err != nil || len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
		t.Errorf("no CPU profile from PODCODE_CPUPROFILE: %v, %d bytes", err, len(data))
	}
}

// Spawn to ready, and memory at ready and after one 50-call turn.
func BenchmarkFreshProcess(b *testing.B) {
	for _, kind := range []string{noPlugins, zodPlugins} {
		b.Run(kind, func(b *testing.B) {
			fake := fakeModel(b, 50)
			dir, home := project(b, kind, fake.URL)
			spawn(b, dir, home, "").stop(b) // the bundle cache warm
			var ready, cpuReady, waitReady []time.Duration
			var rssReady, rssTurn, hwmTurn []float64
			for b.Loop() {
				s := spawn(b, dir, home, profilePath(b.Name()))
				ready = append(ready, s.ready)
				run, wait := s.cpu(b)
				cpuReady, waitReady = append(cpuReady, run), append(waitReady, wait)
				rss, _ := s.memory(b)
				rssReady = append(rssReady, rss)
				id, err := s.session()
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.turn(id, 50, 0); err != nil {
					b.Fatalf("%v\n%s", err, s.out)
				}
				rss, hwm := s.memory(b)
				rssTurn, hwmTurn = append(rssTurn, rss), append(hwmTurn, hwm)
				s.stop(b)
			}
			b.ReportMetric(ms(percentile(ready, 50)), "ms-ready")
			b.ReportMetric(ms(percentile(cpuReady, 50)), "ms-cpu-ready")
			b.ReportMetric(ms(percentile(waitReady, 50)), "ms-runqueue-ready")
			b.ReportMetric(median(rssReady), "MiB-rss-ready")
			b.ReportMetric(median(rssTurn), "MiB-rss-turn")
			b.ReportMetric(median(hwmTurn), "MiB-hwm-turn")
		})
	}
}

// One session's 50-call turns, one after another, on one server.
func BenchmarkTurn(b *testing.B) {
	for _, kind := range []string{noPlugins, hookPlugins} {
		b.Run(kind, func(b *testing.B) {
			const steps = 50
			plugins := map[string]int{hookPlugins: 5}[kind]
			fake := fakeModel(b, steps)
			dir, home := project(b, kind, fake.URL)
			s := spawn(b, dir, home, profilePath(b.Name()))
			run := func() (turnResult, []openaitest.Exchange) {
				id, err := s.session()
				if err != nil {
					b.Fatal(err)
				}
				fake.Reset()
				res, err := s.turn(id, steps, plugins)
				if err != nil {
					b.Fatalf("%v\n%s", err, s.out)
				}
				return res, fake.Exchanges()
			}
			run() // warm: the first turn compiles what the first call needs
			var server time.Duration
			var gaps, hooks []time.Duration
			n := 0
			cpu0, _ := s.cpu(b)
			conns0 := fake.Accepted()
			for b.Loop() {
				res, ex := run()
				server += res.wall - modelTime(ex)
				g, err := openaitest.Gaps(ex)
				if err != nil {
					b.Fatal(err)
				}
				gaps, hooks = append(gaps, g...), append(hooks, res.hooks...)
				n += steps
			}
			cpu1, _ := s.cpu(b)
			b.ReportMetric(ms(server)/float64(n), "ms/step")
			b.ReportMetric(ms(cpu1-cpu0)/float64(n), "ms-cpu/step")
			b.ReportMetric(float64(fake.Accepted()-conns0)/float64(n), "model-conns/step")
			b.ReportMetric(ms(percentile(gaps, 50)), "ms-gap-p50")
			b.ReportMetric(ms(percentile(gaps, 99)), "ms-gap-p99")
			if plugins > 0 {
				b.ReportMetric(ms(percentile(hooks, 50)), "ms-hooks-p50")
			}
		})
	}
}

// 20 sessions running a 50-call turn at once, on one server.
func BenchmarkTurnConcurrent(b *testing.B) {
	for _, kind := range []string{noPlugins, hookPlugins} {
		b.Run(kind, func(b *testing.B) {
			const steps, sessions = 50, 20
			plugins := map[string]int{hookPlugins: 5}[kind]
			fake := fakeModel(b, steps)
			dir, home := project(b, kind, fake.URL)
			s := spawn(b, dir, home, profilePath(b.Name()))
			if _, err := concurrentTurns(s, sessions, steps, plugins); err != nil { // warm
				b.Fatalf("%v\n%s", err, s.out)
			}
			var wall time.Duration
			var gaps []time.Duration
			n := 0
			cpu0, _ := s.cpu(b)
			conns0 := fake.Accepted()
			for b.Loop() {
				fake.Reset()
				d, err := concurrentTurns(s, sessions, steps, plugins)
				if err != nil {
					b.Fatalf("%v\n%s", err, s.out)
				}
				g, err := openaitest.Gaps(fake.Exchanges())
				if err != nil {
					b.Fatal(err)
				}
				wall += d
				gaps = append(gaps, g...)
				n += sessions * steps
			}
			cpu1, _ := s.cpu(b)
			b.ReportMetric(float64(n)/wall.Seconds(), "steps/s")
			// Connections the server opened to the model per step: near 0
			// when it keeps them alive, near 1 when it dials for each call.
			b.ReportMetric(float64(fake.Accepted()-conns0)/float64(n), "model-conns/step")
			b.ReportMetric(ms(cpu1-cpu0)/float64(n), "ms-cpu/step")
			b.ReportMetric(ms(percentile(gaps, 50)), "ms-gap-p50")
			b.ReportMetric(ms(percentile(gaps, 99)), "ms-gap-p99")
		})
	}
}

// concurrentTurns creates n sessions, then runs a turn in each at once and
// returns the time from the first prompt sent to the last turn answered.
func concurrentTurns(s *server, n, steps, plugins int) (time.Duration, error) {
	ids := make([]string, n)
	for i := range ids {
		id, err := s.session()
		if err != nil {
			return 0, err
		}
		ids[i] = id
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	start := time.Now()
	for i, id := range ids {
		wg.Go(func() {
			if _, err := s.turn(id, steps, plugins); err != nil {
				errs[i] = fmt.Errorf("session %d of %d: %w", i+1, n, err)
			}
		})
	}
	wg.Wait()
	d := time.Since(start)
	for _, err := range errs {
		if err != nil {
			return d, err
		}
	}
	return d, nil
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
