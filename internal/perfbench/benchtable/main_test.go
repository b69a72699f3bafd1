package main

import (
	"strings"
	"testing"
)

const sample = `goos: linux
BenchmarkFreshProcess/zod=20-2            	       2	3474034516 ns/op	       170.7 MiB-hwm-turn	       167.9 MiB-rss-ready	       170.7 MiB-rss-turn	      3144 ms-ready
BenchmarkFreshProcess/zod=20-2            	       2	3474034516 ns/op	       172.7 MiB-hwm-turn	       169.9 MiB-rss-ready	       172.7 MiB-rss-turn	      3000 ms-ready
BenchmarkFreshProcess/zod=20-2            	       2	3474034516 ns/op	       171.7 MiB-hwm-turn	       168.9 MiB-rss-ready	       171.7 MiB-rss-turn	      1000 ms-ready
BenchmarkTurn/plugins=0-2                 	       2	 115914864 ns/op	         0.9847 ms-gap-p50	         8.520 ms-gap-p99	         1.443 ms/step
BenchmarkTurn/plugins=0-2                 	       2	 115914864 ns/op	         0.9847 ms-gap-p50	         8.520 ms-gap-p99	         1.643 ms/step	0.9 ms-cpu/step
BenchmarkCluster/store=sqlite,nodes=1-2  	       5	1398404867 ns/op	         0 events-reconnects/batch	         1.045 ms-cpu/step	         3.643 ms-event-own-p50	        25.96 ms-event-own-p99	        21.27 ms-gap-p50	       101.6 ms-gap-p99	      1210 ms-turn-p50	      1559 ms-turn-p99	       722.0 steps/s	        14.44 turns/s
BenchmarkClusterEventsIdle-2   	       3	 185898571 ns/op	        -0.3825 ms-answer-to-event-p50	         0.2756 ms-answer-to-event-p99	        -0.05049 ms-event-hop-p50	         0.2215 ms-event-hop-p99	         0.4320 ms-event-p50	         1.031 ms-event-p99
BenchmarkBeforePipeline5-2   	   15000	     79123 ns/op	   12000 B/op	     200 allocs/op
PASS
`

// Each figure is the median of its runs; a figure without runs says so.
func TestTable(t *testing.T) {
	res := results{}
	if err := res.read(strings.NewReader(sample), "sample"); err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	writeTable(&sb, res, "3m12s", "40.1 MiB", "scripts/bench")
	out := sb.String()
	for _, want := range []string{
		"| server time per tool-call step, model excluded, 0 plugins | 1.54 ms (gap p50 0.985 / p99 8.52 ms); CPU 0.9 ms/step | < 0.5 ms |",
		"| spawn to ready, 20 TS plugins importing zod 4, bundle cache warm | 3000 ms; 0 plugins: not measured | < 300 ms |",
		"| RSS at ready / after one 50-call turn, 20 zod plugins | 169 / 172 MiB (VmHWM 172) (0 plugins: not measured) |",
		"| the same with 5 plugins (`tool.execute.before` + rewriting `tool.execute.after`) | not measured | < 1 ms |",
		"| 79.1 µs | < 25 µs |",
		"| 3m12s; binary 40.1 MiB |",
		"measured with `scripts/bench`",
		"| 1 node on SQLite: 722 steps/s (14.4 turns/s), turn p50 1210 / p99 1559 ms, CPU 1.04 ms/step; 1 node on PostgreSQL + NATS: not measured; 2 nodes on them: not measured | measure |",
		"| idle: 0.432 / 1.03 ms (after the client has the turn's answer: -0.383 / 0.276 ms); under the 20 sessions on 2 nodes: not measured; 1 node on SQLite, its own `/events`: 3.64 / 26 ms | measure |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the table lacks %q:\n%s", want, out)
		}
	}
}

// A value that is not a number is an error naming the file and line.
func TestBadValue(t *testing.T) {
	err := results{}.read(strings.NewReader("goos: linux\nBenchmarkX-2  1  12x ns/op\n"), "out.txt")
	if err == nil || !strings.Contains(err.Error(), "out.txt:2") {
		t.Errorf("error %v", err)
	}
}
