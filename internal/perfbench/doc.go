// Package perfbench measures Podcode the way a user meets it: a freshly
// built `podcode serve` process, started in a project of its own with its
// own config, data and cache folders, talking to a fake OpenAI-compatible
// model on loopback (openaitest.StreamServer: the real streaming wire
// format, one write per response, TCP_NODELAY).
//
// The figures are benchmarks, so that `go test ./...` runs only the quick
// smoke test (TestFreshProcessSmoke) and benchstat can compare runs:
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
