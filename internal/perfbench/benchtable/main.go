// Command benchtable prints the table of a fresh process's figures from
// the output of `go test -bench` of internal/perfbench (and of
// BenchmarkBeforePipeline5 of internal/pipeline): each figure the median
// of its runs (-count), beside its goal. scripts/bench runs it.
//
//	benchtable [-build 3m12s] [-size 41.2MiB] [-command 'scripts/bench'] FILE...
//
// With no FILE it reads standard input.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

func main() {
	build := flag.String("build", "", "the cold `go build ./cmd/podcode` time, as measured")
	size := flag.String("size", "", "the size of the podcode binary, as measured")
	command := flag.String("command", "scripts/bench", "the command that gives the figures, printed under the table")
	flag.Parse()
	res := results{}
	if flag.NArg() == 0 {
		if err := res.read(os.Stdin, "standard input"); err != nil {
			fail(err)
		}
	}
	for _, name := range flag.Args() {
		f, err := os.Open(name)
		if err != nil {
			fail(err)
		}
		err = res.read(f, name)
		f.Close()
		if err != nil {
			fail(err)
		}
	}
	writeTable(os.Stdout, res, *build, *size, *command)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchtable:", err)
	os.Exit(1)
}

// results holds, for each benchmark (without its -GOMAXPROCS suffix) and
// unit, the values of its runs.
type results map[string]map[string][]float64

var procs = regexp.MustCompile(`-\d+$`)

// read adds the benchmark lines of r: "BenchmarkName-2  N  value unit ...".
func (res results) read(r io.Reader, name string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") || len(f)%2 != 0 {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue // a name alone on its line, or a log line
		}
		bench := procs.ReplaceAllString(f[0], "")
		if res[bench] == nil {
			res[bench] = map[string][]float64{}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return fmt.Errorf("%s:%d: %s: value %q: %v", name, line, bench, f[i], err)
			}
			res[bench][f[i+1]] = append(res[bench][f[i+1]], v)
		}
	}
	return sc.Err()
}

// get returns the median of a figure and whether it was measured.
func (res results) get(bench, unit string) (float64, bool) {
	vs := slices.Clone(res[bench][unit])
	if len(vs) == 0 {
		return 0, false
	}
	slices.Sort(vs)
	if len(vs)%2 == 1 {
		return vs[len(vs)/2], true
	}
	return (vs[len(vs)/2-1] + vs[len(vs)/2]) / 2, true
}

// format fills each %v of layout with a figure, formatted with 3
// significant digits; a figure not measured makes the whole cell say so.
func (res results) format(layout string, figs ...[2]string) string {
	args := make([]any, len(figs))
	for i, f := range figs {
		v, ok := res.get(f[0], f[1])
		if !ok {
			return "not measured"
		}
		args[i] = strconv.FormatFloat(v, 'g', 3, 64)
		if v >= 1000 {
			args[i] = strconv.FormatFloat(v, 'f', 0, 64)
		}
	}
	return fmt.Sprintf(layout, args...)
}

// opt is format for a part of a cell that older runs may lack: "" when
// not measured.
func (res results) opt(layout string, figs ...[2]string) string {
	if s := res.format(layout, figs...); s != "not measured" {
		return s
	}
	return ""
}

func fig(bench, unit string) [2]string { return [2]string{bench, unit} }

func writeTable(w io.Writer, res results, build, size, command string) {
	const (
		turn0, turn5 = "BenchmarkTurn/plugins=0", "BenchmarkTurn/plugins=5"
		conc0, conc5 = "BenchmarkTurnConcurrent/plugins=0", "BenchmarkTurnConcurrent/plugins=5"
		fresh0, zod  = "BenchmarkFreshProcess/plugins=0", "BenchmarkFreshProcess/zod=20"
		sqlite1      = "BenchmarkCluster/store=sqlite,nodes=1"
		pg1, pg2     = "BenchmarkCluster/store=postgres,nodes=1", "BenchmarkCluster/store=postgres,nodes=2"
		idle         = "BenchmarkClusterEventsIdle"
	)
	nodes := func(bench string) string {
		return res.format("%v steps/s (%v turns/s), turn p50 %v / p99 %v ms", fig(bench, "steps/s"), fig(bench, "turns/s"),
			fig(bench, "ms-turn-p50"), fig(bench, "ms-turn-p99")) + res.opt(", CPU %v ms/step", fig(bench, "ms-cpu/step")) +
			res.opt(" (waited %v ms/step for a CPU)", fig(bench, "ms-runqueue/step"))
	}
	if build == "" {
		build = "not measured"
	}
	if size != "" {
		build += "; binary " + size
	}
	rows := [][3]string{
		{"server time per tool-call step, model excluded, 0 plugins",
			res.format("%v ms (gap p50 %v / p99 %v ms)", fig(turn0, "ms/step"), fig(turn0, "ms-gap-p50"), fig(turn0, "ms-gap-p99")) +
				res.opt("; CPU %v ms/step", fig(turn0, "ms-cpu/step")), "< 0.5 ms"},
		{"the same with 5 plugins (`tool.execute.before` + rewriting `tool.execute.after`)",
			res.format("%v ms (gap p50 %v / p99 %v ms); hooks alone %v ms p50", fig(turn5, "ms/step"), fig(turn5, "ms-gap-p50"),
				fig(turn5, "ms-gap-p99"), fig(turn5, "ms-hooks-p50")) + res.opt("; CPU %v ms/step", fig(turn5, "ms-cpu/step")), "< 1 ms"},
		{"20 sessions running turns at once: steps/s, gap p50 / p99",
			res.format("%v/s, %v / %v ms", fig(conc0, "steps/s"), fig(conc0, "ms-gap-p50"), fig(conc0, "ms-gap-p99")) +
				res.opt(" (CPU %v ms/step, %v new connections to the model a step)", fig(conc0, "ms-cpu/step"), fig(conc0, "model-conns/step")) +
				"; 5 plugins: " + res.format("%v/s, %v / %v ms", fig(conc5, "steps/s"), fig(conc5, "ms-gap-p50"), fig(conc5, "ms-gap-p99")) +
				res.opt(" (CPU %v ms/step)", fig(conc5, "ms-cpu/step")),
			"≥ 1000/s, p99 < 50 ms"},
		{"spawn to ready, 20 TS plugins importing zod 4, bundle cache warm",
			res.format("%v ms", fig(zod, "ms-ready")) +
				res.opt(" (CPU %v ms; its threads waited %v ms for a CPU)", fig(zod, "ms-cpu-ready"), fig(zod, "ms-runqueue-ready")) +
				"; 0 plugins: " + res.format("%v ms", fig(fresh0, "ms-ready")) + res.opt(" (CPU %v ms)", fig(fresh0, "ms-cpu-ready")),
			"< 300 ms"},
		{"RSS at ready / after one 50-call turn, 20 zod plugins",
			res.format("%v / %v MiB (VmHWM %v)", fig(zod, "MiB-rss-ready"), fig(zod, "MiB-rss-turn"), fig(zod, "MiB-hwm-turn")) +
				" (0 plugins: " + res.format("%v / %v MiB", fig(fresh0, "MiB-rss-ready"), fig(fresh0, "MiB-rss-turn")) + ")",
			"< 60 / < 80 MiB"},
		{"`tool.execute.before` through 5 plugins that each return `{...input, args: {...}}`",
			micro(res, "BenchmarkBeforePipeline5"), "< 25 µs"},
		{"many nodes: 20 sessions running a 50-call turn at once, split between the nodes (PostgreSQL with fsync off, NATS, all on loopback)",
			"1 node on SQLite: " + nodes(sqlite1) + "; 1 node on PostgreSQL + NATS: " + nodes(pg1) + "; 2 nodes on them: " + nodes(pg2) +
				res.opt(" (/events clients resumed %v times a batch)", fig(pg2, "events-reconnects/batch")),
			"measure"},
		{"a turn's event (`turn.started`, `turn.finished`) from its publication on the node running the turn to another node's `/events`, p50 / p99",
			"idle: " + res.format("%v / %v ms", fig(idle, "ms-event-p50"), fig(idle, "ms-event-p99")) +
				res.opt(" (after the client has the turn's answer: %v / %v ms)", fig(idle, "ms-answer-to-event-p50"), fig(idle, "ms-answer-to-event-p99")) +
				"; under the 20 sessions on 2 nodes: " + res.format("%v / %v ms", fig(pg2, "ms-event-p50"), fig(pg2, "ms-event-p99")) +
				res.opt(" (its own node's `/events`: %v / %v ms)", fig(pg2, "ms-event-own-p50"), fig(pg2, "ms-event-own-p99")) +
				"; 1 node on SQLite, its own `/events`: " + res.format("%v / %v ms", fig(sqlite1, "ms-event-own-p50"), fig(sqlite1, "ms-event-own-p99")),
			"measure"},
		{"cold `go build ./cmd/podcode` (empty GOCACHE, module cache warm)", build, "measure; cut it if a dependency choice allows"},
	}
	fmt.Fprintln(w, "| figure (fresh `podcode serve`, fake model over HTTP) | measured | goal |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, r := range rows {
		fmt.Fprintf(w, "| %s | %s | %s |\n", r[0], r[1], r[2])
	}
	fmt.Fprintf(w, "\nMedians of the runs, measured with `%s`.\n", command)
}

// micro returns a benchmark's ns/op in µs.
func micro(res results, bench string) string {
	v, ok := res.get(bench, "ns/op")
	if !ok {
		return "not measured"
	}
	return fmt.Sprintf("%.1f µs", v/1000)
}
