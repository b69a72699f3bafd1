// Package perfbench measures Podcode the way a user meets it: a freshly
// built `podcode serve` process, started in a project of its own with its
// own config, data and cache folders, talking to a fake OpenAI-compatible
// model on loopback (openaitest.StreamServer: the real streaming wire
// format, one write per response, TCP_NODELAY).
//
// The figures are benchmarks, so that `go test ./...` runs only the quick
// smoke tests (TestFreshProcessSmoke, and TestClusterSmoke where the
// engines are running) and benchstat can compare runs:
//
//	go test -run '^$' -bench . -benchtime 5x -count 6 ./internal/perfbench/ | tee new.txt
//	go run golang.org/x/perf/cmd/benchstat@latest old.txt new.txt
//
// scripts/bench runs them and prints the table of the figures
// (cmd/benchtable). Each benchmark reports its own units:
//
//   - BenchmarkFreshProcess: spawn to ready (the first 200 of /healthz,
//     counted from before the fork), the server's VmRSS at ready, and its
//     VmRSS and VmHWM after one 50-call turn; with 0 plugins and with 20
//     TypeScript plugins that import zod 4, bundle cache warm.
//   - BenchmarkTurn: one session's 50-call turn. ms/step is the turn's
//     wall time, as the HTTP client sees it, minus the time the model spent
//     answering, over the 50 tool calls; gap-p50/p99 is the time from the
//     model's answer to the next request of the same session, as the
//     model sees it; hooks-p50 the tool.execute.before and .after hooks of
//     one call, as the server recorded them. 0 plugins and 5 plugins (each
//     an observing tool.execute.before and a rewriting tool.execute.after).
//   - BenchmarkTurnConcurrent: 20 sessions running a 50-call turn at once:
//     steps/s over the whole batch, and the gaps.
//   - BenchmarkCluster: the same 20 sessions split between the nodes of
//     a deployment (session i on node i mod n, its turn posted there):
//     one node on SQLite (the reference), one node on PostgreSQL and NATS,
//     two nodes on the same PostgreSQL and NATS (the engines of
//     enginetest; skipped without them). steps/s and turns/s over the
//     batch, each turn's wall time p50/p99, the CPU of every node per
//     step; and, with a client following every node's /events, the time
//     each turn.started and turn.finished takes from its publication (the
//     event's time, on the node running the turn) to its arrival on
//     another node's stream (ms-event), on its own node's (ms-event-own),
//     and from one to the other (ms-event-hop). The clients resume with
//     Last-Event-ID when the server closes a stream that fell behind, and
//     those resumes are counted.
//   - BenchmarkClusterEventsIdle: two nodes, 20 one-call turns one after
//     another on the first: the same event times with nothing else
//     running, and from the client's reading a turn's answer to its
//     turn.finished on the second node.
//
// Both turn benchmarks also report model-conns/step: the connections the
// server opened to the model per step (0 when it keeps them alive).
//
// Wall times grow when other work shares the machine; so each benchmark
// also reports the CPU time the server used (ms-cpu-ready, ms-cpu/step,
// from /proc/<pid>/task/*/schedstat), which does not, and the time its
// threads waited for a CPU until ready (ms-runqueue-ready), which says
// how busy the machine was.
//
// PODCODE_BENCH_PROFILE=<dir> makes each server write a CPU profile
// (PODCODE_CPUPROFILE) into dir, named after the benchmark, for go tool
// pprof.
package perfbench
