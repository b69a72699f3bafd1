package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/tool"
)

// Figures for the README:
//
//	go test -run '^$' -bench . -benchtime 2s ./internal/server/

// plugins writes n plugins, each with a tool.execute.before that observes
// and a tool.execute.after that appends to the output.
func plugins(n int) apptest.Project {
	p := apptest.Project{Files: map[string]string{"a.txt": "some text\n"}}
	for i := 0; i < n; i++ {
		name := fmt.Sprintf("p%d.js", i)
		p.Files[name] = fmt.Sprintf(`export default { id: "p%d", server: () => ({
			"tool.execute.before": (i) => { if (i.toolID === "never") return i; return undefined },
			"tool.execute.after": (i) => ({ ...i, result: { ...i.result, output: i.result.output + "." } }),
		}) }`, i)
		p.Plugins = append(p.Plugins, "./"+name)
	}
	return p
}

// Turns per second through the HTTP API, with the offline model: each turn
// is a model call that asks for one tool call, the call, and a final answer.
func BenchmarkServerTurn(b *testing.B) {
	for _, n := range []int{0, 5} {
		b.Run(fmt.Sprintf("plugins=%d", n), func(b *testing.B) {
			srv := newServer(b, "", plugins(n))
			var path string
			start := time.Now()
			for i := 0; b.Loop(); i++ {
				if i%20 == 0 { // a conversation of twenty turns, then a new session
					code, sess := call(b, srv, "POST", "/sessions", "", `{}`)
					if code != 201 {
						b.Fatal(code)
					}
					path = "/sessions/" + sess["id"].(string) + "/messages"
				}
				// A different argument each turn keeps the loop guard quiet.
				body := fmt.Sprintf(`{"text": "/tool read {\"path\": \"a.txt\", \"offset\": %d}"}`, i%2)
				if code, out := call(b, srv, "POST", path, "", body); code != 200 {
					b.Fatalf("%d %v", code, out)
				}
			}
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "turns/s")
		})
	}
}

// What the plugin system adds to one tool call: everything but execute
// (validation, the guard with PreToolUse and PostToolUse, both pipeline
// hooks), as p50 and p99 over the calls.
func BenchmarkToolCallOverhead(b *testing.B) {
	for _, n := range []int{0, 5} {
		b.Run(fmt.Sprintf("plugins=%d", n), func(b *testing.B) {
			a, _ := apptest.Boot(b, plugins(n))
			var samples []time.Duration
			ctx := context.Background()
			for b.Loop() {
				start := time.Now()
				_, rep, err := a.Runner.CallTool(ctx, tool.Call{}, "read", map[string]any{"path": "a.txt"})
				if err != nil {
					b.Fatal(err)
				}
				samples = append(samples, time.Since(start)-rep.Execute)
			}
			slices.Sort(samples)
			b.ReportMetric(float64(samples[len(samples)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(samples[len(samples)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// What publishing an event costs the publisher with 0 and 100 clients on
// /events (each a real HTTP client reading its stream), through the
// server `podcode serve` runs. Every 100 events the clock stops until
// every client has read them all, so no stream falls behind.
//
//	go test -run '^$' -bench PublishToEventStreams -benchmem ./internal/server/
func BenchmarkPublishToEventStreams(b *testing.B) {
	for _, n := range []int{0, 100} {
		b.Run(fmt.Sprintf("streams=%d", n), func(b *testing.B) {
			rs := serveReal(b, Limits{}, apptest.Project{}, nil, "")
			counts := make([]atomic.Int64, n)
			for i := range n {
				c := rs.dial(b)
				io.WriteString(c, request("GET", "/events", "", ""))
				go func() {
					res, err := http.ReadResponse(bufio.NewReader(c), nil)
					if err != nil {
						return
					}
					sc := bufio.NewScanner(res.Body) // the stream, unchunked
					for sc.Scan() {
						if strings.HasPrefix(sc.Text(), "event: ") {
							counts[i].Add(1)
						}
					}
				}()
			}
			for rs.Agent.App.Bus.Followers() < n {
				time.Sleep(time.Millisecond)
			}
			props := map[string]any{"sessionID": "ses_1", "text": "a few words of a reply"}
			var published int64
			for b.Loop() {
				rs.Agent.App.Bus.Publish("message.delta", props)
				if published++; published%100 == 0 {
					b.StopTimer()
					for i := range counts {
						for counts[i].Load() < published {
							time.Sleep(100 * time.Microsecond)
						}
					}
					b.StartTimer()
				}
			}
			b.StopTimer()
			if got := rs.Agent.App.Bus.Followers(); got != n {
				b.Fatalf("%d of %d streams were dropped", n-got, n)
			}
		})
	}
}

// What 100 clients that open /events and never read make the server's
// kernel hold (the send queues of their connections, from /proc/net/tcp),
// while the server writes to them and once it has given up on them
// (WriteTimeout, here 5 s). Run it once:
//
//	go test -run '^$' -bench NonReadingEventStreams -benchtime 1x ./internal/server/
func BenchmarkNonReadingEventStreams(b *testing.B) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		b.Skip("needs /proc/net/tcp")
	}
	const clients, events = 100, 100
	for b.Loop() {
		rs := serveReal(b, Limits{WriteTimeout: 5 * time.Second, EventsQueue: 1024}, apptest.Project{}, nil, "")
		_, port, _ := net.SplitHostPort(rs.addr)
		conns := make([]net.Conn, clients)
		for i := range conns {
			conns[i] = rs.dial(b)
			io.WriteString(conns[i], request("GET", "/events", "", ""))
			if _, err := bufio.NewReaderSize(conns[i], 16).ReadString('\n'); err != nil {
				b.Fatal(err)
			}
		}
		pad := strings.Repeat("x", 64<<10)
		for i := 0; i < events; i++ {
			rs.Agent.App.Bus.Publish("test.big", map[string]any{"i": i, "pad": pad})
		}
		// Held: once the queues stop growing.
		held, prev := 0, -1
		for held != prev {
			time.Sleep(200 * time.Millisecond)
			prev, held = held, sendQueued(b, port)
		}
		for _, c := range conns {
			rs.closedByServer(b, c)
		}
		time.Sleep(200 * time.Millisecond) // the resets go out
		b.ReportMetric(float64(held)/(1<<20), "MiB-held")
		b.ReportMetric(float64(sendQueued(b, port))/(1<<20), "MiB-after-cut")
	}
}

// sendQueued sums the send queues of the TCP connections from port.
func sendQueued(b *testing.B, port string) int {
	data, err := os.ReadFile("/proc/net/tcp")
	if err != nil {
		b.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	suffix := fmt.Sprintf(":%04X", p)
	total := 0
	for _, line := range strings.Split(string(data), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 5 || !strings.HasSuffix(f[1], suffix) {
			continue
		}
		tx, _, _ := strings.Cut(f[4], ":")
		n, _ := strconv.ParseInt(tx, 16, 64)
		total += int(n)
	}
	return total
}
