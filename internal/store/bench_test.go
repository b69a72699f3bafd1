package store

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/enginetest"
)

// The store's share of a tool-call step, as internal/agent writes it: the
// model call's usage and the assistant message with its tool call (one
// write, AppendStep), then the tool's result, each with the hook runs of
// five plugins. A turn is 50 such steps; at its end the last message gets
// the AgentStop hook runs (UpdateMessage).

const benchStepsPerTurn = 50

var benchOutput = strings.Repeat("line of a file the read tool returned\n", 40) // ~1.5 KB

func benchHooks(hook string) []chat.HookRun {
	out := make([]chat.HookRun, 5)
	for i := range out {
		out[i] = chat.HookRun{Kind: "pipeline", Hook: hook, Source: fmt.Sprintf("plugin-%d", i), Outcome: "changed", DurationUs: 42}
	}
	return out
}

// benchStep stores one step of session id: the assistant message with a
// tool call and its usage, then the call's result.
func benchStep(ctx context.Context, s *Store, id string, n int) (*chat.Message, error) {
	callID := fmt.Sprintf("call_%d", n)
	usage := chat.Usage{Input: 1200, Output: 30}
	a := &chat.Message{SessionID: id, Role: chat.RoleAssistant, Usage: &usage, Hooks: benchHooks("chat.params"),
		ToolCalls: []chat.ToolCall{{ID: callID, Tool: "read", Args: []byte(`{"filePath":"internal/store/store.go"}`)}}}
	if _, err := s.AppendStep(ctx, a, usage); err != nil {
		return nil, err
	}
	r := &chat.Message{SessionID: id, Role: chat.RoleTool, Hooks: benchHooks("tool.execute.after"),
		Result: &chat.Result{CallID: callID, Tool: "read", Title: "internal/store/store.go", Output: benchOutput}}
	if err := s.AppendMessage(ctx, r); err != nil {
		return nil, err
	}
	return r, nil
}

// benchTurnEnd is what a turn writes after its last step.
func benchTurnEnd(ctx context.Context, s *Store, id string, last *chat.Message) error {
	last.Hooks = append(last.Hooks, chat.HookRun{Kind: "lifecycle", Hook: "Stop", Source: "guard", Outcome: "voted", Decision: "allow"})
	if err := s.UpdateMessage(ctx, last); err != nil {
		return err
	}
	if err := s.SetStatus(ctx, id, SessionIdle); err != nil {
		return err
	}
	return s.SetStatus(ctx, id, SessionRunning)
}

// cpuTime is the CPU time the process used so far (user and system, all
// threads): on a busy machine it varies less than the wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU time per op since start as cpu-ns/op.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}

// reportGaps reports the median and the 99th percentile of the steps'
// times as p50-ns and p99-ns (a step that meets a checkpoint is slower).
func reportGaps(b *testing.B, gaps []time.Duration) {
	if len(gaps) == 0 {
		return
	}
	slices.Sort(gaps)
	b.ReportMetric(float64(gaps[len(gaps)/2]), "p50-ns")
	b.ReportMetric(float64(gaps[len(gaps)*99/100]), "p99-ns")
}

// benchStore is a Store on a new, empty database of engine (PostgreSQL:
// skipped without a server, see enginetest).
func benchStore(b *testing.B, engine string) *Store {
	b.Helper()
	var s *Store
	var err error
	if engine == EnginePostgres {
		s, err = OpenPostgres(context.Background(), enginetest.Postgres(b))
	} else {
		s, err = Open(context.Background(), filepath.Join(b.TempDir(), File))
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// benchEngines runs bench as the sub-benchmarks "sqlite" and "postgres",
// each on a Store of its own (benchStore).
func benchEngines(b *testing.B, bench func(b *testing.B, s *Store)) {
	for _, engine := range []string{EngineSQLite, EnginePostgres} {
		b.Run(engine, func(b *testing.B) { bench(b, benchStore(b, engine)) })
	}
}

// BenchmarkStep is one tool-call step of a serial turn (plus a fiftieth of
// the turn's end): the store's time per step, on each engine (PostgreSQL's
// includes the round trips to its server).
func BenchmarkStep(b *testing.B) {
	benchEngines(b, func(b *testing.B, s *Store) {
		ctx := context.Background()
		sess, err := s.CreateSession(ctx, Session{Status: SessionRunning})
		if err != nil {
			b.Fatal(err)
		}
		gaps := make([]time.Duration, 0, b.N)
		b.ReportAllocs()
		b.ResetTimer()
		start := cpuTime()
		defer reportCPU(b, start)
		defer func() { reportGaps(b, gaps) }()
		for i := 0; i < b.N; i++ {
			t0 := time.Now()
			last, err := benchStep(ctx, s, sess.ID, i)
			if err != nil {
				b.Fatal(err)
			}
			gaps = append(gaps, time.Since(t0))
			if i%benchStepsPerTurn == benchStepsPerTurn-1 {
				if err := benchTurnEnd(ctx, s, sess.ID, last); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}

// BenchmarkStepParallel is the same with 20 sessions running turns at
// once (on SQLite the writes queue on the one writer; on PostgreSQL they
// run in parallel, on the pool's connections).
func BenchmarkStepParallel(b *testing.B) {
	benchEngines(b, func(b *testing.B, s *Store) {
		ctx := context.Background()
		b.SetParallelism(20 / runtime.GOMAXPROCS(0))
		var next atomic.Int64
		b.ReportAllocs()
		b.ResetTimer()
		start := cpuTime()
		defer reportCPU(b, start)
		b.RunParallel(func(pb *testing.PB) {
			sess, err := s.CreateSession(ctx, Session{Status: SessionRunning})
			if err != nil {
				b.Error(err)
				return
			}
			for i := 0; pb.Next(); i++ {
				last, err := benchStep(ctx, s, sess.ID, int(next.Add(1)))
				if err != nil {
					b.Error(err)
					return
				}
				if i%benchStepsPerTurn == benchStepsPerTurn-1 {
					if err := benchTurnEnd(ctx, s, sess.ID, last); err != nil {
						b.Error(err)
						return
					}
				}
			}
		})
	})
}

// BenchmarkRecent is a turn's one read: the history of a session of 200
// messages.
func BenchmarkRecent(b *testing.B) {
	benchEngines(b, func(b *testing.B, s *Store) {
		ctx := context.Background()
		sess, _ := s.CreateSession(ctx, Session{})
		for i := 0; i < 100; i++ {
			if _, err := benchStep(ctx, s, sess.ID, i); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportAllocs()
		b.ResetTimer()
		start := cpuTime()
		defer reportCPU(b, start)
		for i := 0; i < b.N; i++ {
			if msgs, err := s.Recent(ctx, sess.ID); err != nil || len(msgs) != 200 {
				b.Fatal(len(msgs), err)
			}
		}
	})
}
