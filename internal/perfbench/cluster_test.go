package perfbench

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/enginetest"
	"github.com/podcode/podcode/internal/provider/openaitest"
)

// A deployment of the many-node figures: how many nodes, and whether they
// keep sessions in PostgreSQL and pass events over NATS (the engines of
// enginetest) or run alone on SQLite.
type deployment struct {
	name    string
	nodes   int
	engines bool
}

var deployments = []deployment{
	{"store=sqlite,nodes=1", 1, false}, // the reference: one node as it runs by default
	{"store=postgres,nodes=1", 1, true},
	{"store=postgres,nodes=2", 2, true},
}

// startNodes starts the nodes of d in one project whose default model is
// modelURL. On the engines, every node gets a fresh database (one for the
// deployment) and the shared NATS server, with a stream (bus.stream) and
// node names of the deployment's own, so that no other deployment on the
// same NATS server hears its events or requests.
func startNodes(tb testing.TB, d deployment, modelURL, profile string) []*server {
	tb.Helper()
	dir, home := project(tb, noPlugins, modelURL)
	if !d.engines {
		return []*server{spawn(tb, dir, home, profile)}
	}
	pg, nats := enginetest.Postgres(tb), enginetest.NATS(tb)
	prefix := enginetest.Prefix()
	nodes := make([]*server, d.nodes)
	for i := range nodes {
		user := benchUser(modelURL)
		user["store"] = map[string]any{"url": pg}
		user["bus"] = map[string]any{"url": nats, "stream": prefix}
		user["cluster"] = map[string]any{"node": fmt.Sprintf("%s-%c", prefix, 'a'+i)}
		h := userHome(tb, user)
		p := profile
		if p != "" && d.nodes > 1 {
			p = strings.TrimSuffix(p, ".pprof") + fmt.Sprintf("-node%d.pprof", i)
		}
		nodes[i] = spawn(tb, dir, h, p)
	}
	return nodes
}

// arrival is one turn.started or turn.finished event as a client of one
// node's /events read it.
type arrival struct {
	typ, session string
	sent         time.Time // the event's time: when the node running the turn published it
	got          time.Time // when the data line reached the client
}

// eventLog follows one node's /events from follow until the test ends,
// keeping the turn events by their SSE id (the same on every node of a
// deployment). Like a browser's EventSource, it reconnects with
// Last-Event-ID when the server closes the stream (as it does to a client
// that falls behind its events queue), and counts those reconnects.
type eventLog struct {
	mu         sync.Mutex
	byID       map[string]arrival
	reconnects int
	missed     int   // events.missed frames: a resume came too late to replay everything
	ended      error // why the stream stopped for good, or nil while it runs
}

// turnEvents are the events whose latency the figures give.
var turnEvents = map[string]bool{"turn.started": true, "turn.finished": true}

// follow opens s's /events and reads it in the background; it returns
// once the server has answered, so that every event published later is
// on the stream. The stream is closed when tb ends.
func (s *server) follow(tb testing.TB) *eventLog {
	tb.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	l := &eventLog{byID: map[string]arrival{}}
	open := func(last string) (*http.Response, error) {
		req, _ := http.NewRequestWithContext(ctx, "GET", s.base+"/events", nil)
		if last != "" {
			req.Header.Set("Last-Event-ID", last)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, fmt.Errorf("GET /events of %s: %w", s.base, err)
		}
		if res.StatusCode != 200 {
			res.Body.Close()
			return nil, fmt.Errorf("GET /events of %s: %d", s.base, res.StatusCode)
		}
		return res, nil
	}
	res, err := open("")
	if err != nil {
		tb.Fatal(err)
	}
	go func() {
		last := ""
		for {
			last = l.read(res.Body, s.base, last)
			res.Body.Close()
			if ctx.Err() != nil {
				return
			}
			l.mu.Lock()
			l.reconnects++
			l.mu.Unlock()
			if res, err = open(last); err != nil {
				if ctx.Err() == nil {
					l.end(err)
				}
				return
			}
		}
	}()
	return l
}

// read takes the events of one connection to the /events of base until
// it ends, and returns the id of the last event read (or last, if none).
func (l *eventLog) read(body io.Reader, base, last string) string {
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var id, typ string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if id != "" {
				last = id
			}
			id, typ = "", ""
		case strings.HasPrefix(line, "id: "):
			id = line[4:]
		case strings.HasPrefix(line, "event: "):
			typ = line[7:]
			if typ == "events.missed" {
				l.mu.Lock()
				l.missed++
				l.mu.Unlock()
			}
		case strings.HasPrefix(line, "data: ") && turnEvents[typ]:
			got := time.Now()
			var ev struct {
				Time       time.Time
				Properties struct{ SessionID string }
			}
			if err := json.Unmarshal([]byte(line[6:]), &ev); err != nil {
				l.end(fmt.Errorf("/events of %s: event %s: %w", base, id, err))
				continue
			}
			l.mu.Lock()
			l.byID[id] = arrival{typ: typ, session: ev.Properties.SessionID, sent: ev.Time, got: got}
			l.mu.Unlock()
		}
	}
	return last
}

func (l *eventLog) end(err error) {
	l.mu.Lock()
	if l.ended == nil {
		l.ended = err
	}
	l.mu.Unlock()
}

// counts returns the reconnects and events.missed frames so far.
func (l *eventLog) counts() (reconnects, missed int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.reconnects, l.missed
}

// take returns, and forgets, the arrivals of the sessions in batch once
// there are want of them, or an error after 30 s or when the stream ended.
func (l *eventLog) take(batch map[string]int, want int) (map[string]arrival, error) {
	deadline := time.Now().Add(30 * time.Second)
	for {
		l.mu.Lock()
		out := map[string]arrival{}
		for id, a := range l.byID {
			if _, ok := batch[a.session]; ok {
				out[id] = a
			}
		}
		err := l.ended
		if err == nil && l.missed > 0 {
			err = fmt.Errorf("the stream missed events: a resume came after the server's replay had passed them (%d events.missed)", l.missed)
		}
		if len(out) >= want {
			for id := range out {
				delete(l.byID, id)
			}
		}
		l.mu.Unlock()
		switch {
		case len(out) >= want:
			return out, nil
		case err != nil:
			return nil, err
		case time.Now().After(deadline):
			return nil, fmt.Errorf("%d of the %d turn events arrived within 30 s", len(out), want)
		}
		time.Sleep(time.Millisecond)
	}
}

// clusterBatch is what one batch of turns on a deployment gave.
type clusterBatch struct {
	wall  time.Duration   // from the first prompt sent to the last turn answered
	turns []time.Duration // each turn's POST, as the client saw it
	// Of each turn event: from its publication on the node running the
	// turn to its arrival on another node's /events (own: on the node's
	// own /events), and from its arrival on its own node's /events to
	// that on the other node's.
	cross, own, hop []time.Duration
	// Of each turn.finished: from the client's reading the answer of the
	// turn's POST to the event's arrival on another node's /events
	// (negative when the event came first).
	afterAnswer []time.Duration
}

// clusterTurns creates n sessions and runs a turn of steps calls in each,
// and waits until every node's /events (logs, one per node) has both
// turn events of every session. Spread: session i is on node i mod
// len(nodes), its turn posted there, and the turns run at once. Not
// spread: every session is on the first node, and the turns run one
// after another.
func clusterTurns(nodes []*server, logs []*eventLog, n, steps int, spread bool) (clusterBatch, error) {
	var b clusterBatch
	ids := make([]string, n)
	owner := map[string]int{}
	on := func(i int) int {
		if spread {
			return i % len(nodes)
		}
		return 0
	}
	for i := range ids {
		id, err := nodes[on(i)].session()
		if err != nil {
			return b, err
		}
		ids[i], owner[id] = id, on(i)
	}
	var wg sync.WaitGroup
	errs := make([]error, n)
	answered := make([]time.Time, n)
	b.turns = make([]time.Duration, n)
	run := func(i int) {
		res, err := nodes[on(i)].turn(ids[i], steps, 0)
		answered[i] = time.Now()
		if err != nil {
			errs[i] = fmt.Errorf("session %d of %d, on node %d: %w", i+1, n, on(i)+1, err)
		}
		b.turns[i] = res.wall
	}
	start := time.Now()
	for i := range ids {
		if spread {
			wg.Go(func() { run(i) })
		} else {
			run(i)
		}
	}
	wg.Wait()
	b.wall = time.Since(start)
	for _, err := range errs {
		if err != nil {
			return b, err
		}
	}
	answeredAt := map[string]time.Time{}
	for i, id := range ids {
		answeredAt[id] = answered[i]
	}
	seen := make([]map[string]arrival, len(logs))
	for i, l := range logs {
		got, err := l.take(owner, 2*n)
		if err != nil {
			return b, fmt.Errorf("node %d: %w", i+1, err)
		}
		seen[i] = got
	}
	for i, got := range seen {
		for id, a := range got {
			home := owner[a.session]
			if home == i {
				b.own = append(b.own, a.got.Sub(a.sent))
				continue
			}
			b.cross = append(b.cross, a.got.Sub(a.sent))
			at, ok := seen[home][id]
			if !ok || at.typ != a.typ || at.session != a.session {
				return b, fmt.Errorf("event %s (%s of session %s) on node %d is not the same on node %d: %+v", id, a.typ, a.session, i+1, home+1, at)
			}
			b.hop = append(b.hop, a.got.Sub(at.got))
			if a.typ == "turn.finished" {
				b.afterAnswer = append(b.afterAnswer, a.got.Sub(answeredAt[a.session]))
			}
		}
	}
	return b, nil
}

// The harness of the many-node figures, quickly, with the engines: two
// nodes on one PostgreSQL database and NATS, four sessions split between
// them running a 3-call turn each at once; every node's /events has each
// turn's turn.started and turn.finished, under the same id as the node
// that ran it.
func TestClusterSmoke(t *testing.T) {
	const steps, sessions = 3, 4
	fake := fakeModel(t, steps)
	nodes := startNodes(t, deployments[2], fake.URL, "")
	logs := []*eventLog{nodes[0].follow(t), nodes[1].follow(t)}
	b, err := clusterTurns(nodes, logs, sessions, steps, true)
	if err != nil {
		t.Fatalf("%v\nnode 1:\n%s\nnode 2:\n%s", err, nodes[0].out, nodes[1].out)
	}
	// Half of each node's events are its own turns', half the other's.
	if len(b.own) != 2*sessions || len(b.cross) != 2*sessions || len(b.hop) != 2*sessions {
		t.Errorf("%d own, %d crossing, %d compared turn events; want %d each", len(b.own), len(b.cross), len(b.hop), 2*sessions)
	}
	if len(b.turns) != sessions || b.wall <= 0 {
		t.Errorf("turns %v in %v", b.turns, b.wall)
	}
	if ex := fake.Exchanges(); len(ex) != sessions*(steps+1) {
		t.Errorf("%d model calls, want %d", len(ex), sessions*(steps+1))
	}

	// Turns one after another on the first node: the second node's stream
	// has each turn's events, and each turn.finished is compared with the
	// turn's answer.
	b, err = clusterTurns(nodes, logs, 2, steps, false)
	if err != nil {
		t.Fatalf("%v\nnode 1:\n%s\nnode 2:\n%s", err, nodes[0].out, nodes[1].out)
	}
	if len(b.own) != 4 || len(b.cross) != 4 || len(b.afterAnswer) != 2 {
		t.Errorf("%d own, %d crossing turn events, %d turn.finished after answers; want 4, 4, 2", len(b.own), len(b.cross), len(b.afterAnswer))
	}
}

// A client of /events that the server closes (as it closes one that
// falls behind) comes back with the id of the last event it read, and
// keeps what both connections gave.
func TestEventLogResumesWithLastEventID(t *testing.T) {
	var mu sync.Mutex
	var resumedFrom []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		resumedFrom = append(resumedFrom, r.Header.Get("Last-Event-ID"))
		n := len(resumedFrom)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		now := time.Now().UTC().Format(time.RFC3339Nano)
		switch n {
		case 1:
			fmt.Fprintf(w, "id: e-1\nevent: turn.started\ndata: {\"type\":\"turn.started\",\"time\":%q,\"properties\":{\"sessionID\":\"s\"}}\n\n", now)
			fmt.Fprint(w, "id: e-2\nevent: message.updated\ndata: {}\n\n")
			return // closed, as for a client that fell behind
		case 2:
			fmt.Fprintf(w, "id: e-3\nevent: turn.finished\ndata: {\"type\":\"turn.finished\",\"time\":%q,\"properties\":{\"sessionID\":\"s\"}}\n\n", now)
			w.(http.Flusher).Flush()
		}
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close) // after the client's stream is closed: cleanups run last first
	l := (&server{base: srv.URL}).follow(t)
	got, err := l.take(map[string]int{"s": 0}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if got["e-1"].typ != "turn.started" || got["e-3"].typ != "turn.finished" {
		t.Errorf("events %+v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(resumedFrom) != 2 || resumedFrom[0] != "" || resumedFrom[1] != "e-2" {
		t.Errorf("connections with Last-Event-ID %q, want none then e-2", resumedFrom)
	}
	if re, _ := l.counts(); re != 1 {
		t.Errorf("%d reconnects counted, want 1", re)
	}
}

// 20 sessions running a 50-call turn at once, split between the nodes of
// a deployment: one node on SQLite (the reference), one node on
// PostgreSQL and NATS, two nodes on the same PostgreSQL and NATS. A
// client follows every node's /events, and each turn's turn.started and
// turn.finished are timed from their publication (the event's time, on
// the node running the turn: one clock, one machine) to their arrival on
// the other node's stream.
func BenchmarkCluster(b *testing.B) {
	for _, d := range deployments {
		b.Run(d.name, func(b *testing.B) {
			const steps, sessions = 50, 20
			fake := fakeModel(b, steps)
			nodes := startNodes(b, d, fake.URL, profilePath(b.Name()))
			logs := make([]*eventLog, len(nodes))
			for i, s := range nodes {
				logs[i] = s.follow(b)
			}
			fail := func(err error) {
				var out strings.Builder
				for i, s := range nodes {
					fmt.Fprintf(&out, "\nnode %d:\n%s", i+1, s.out)
				}
				b.Fatalf("%v%s", err, out.String())
			}
			if _, err := clusterTurns(nodes, logs, sessions, steps, true); err != nil { // warm
				fail(err)
			}
			var wall time.Duration
			var turns, gaps, cross, own, hop []time.Duration
			n := 0
			// The CPU time of every node, and the time their threads waited
			// for a CPU (how busy the machine was).
			cpu := func() (t, w time.Duration) {
				for _, s := range nodes {
					run, wait := s.cpu(b)
					t, w = t+run, w+wait
				}
				return t, w
			}
			reconnects := func() (n int) {
				for _, l := range logs {
					r, _ := l.counts()
					n += r
				}
				return n
			}
			cpu0, wait0 := cpu()
			re0, batches := reconnects(), 0
			if re0 > 0 {
				b.Logf("the /events clients resumed %d times during the first (warming) batch", re0)
			}
			for b.Loop() {
				batches++
				fake.Reset()
				res, err := clusterTurns(nodes, logs, sessions, steps, true)
				if err != nil {
					fail(err)
				}
				g, err := openaitest.Gaps(fake.Exchanges())
				if err != nil {
					b.Fatal(err)
				}
				wall += res.wall
				turns, gaps = append(turns, res.turns...), append(gaps, g...)
				cross, own, hop = append(cross, res.cross...), append(own, res.own...), append(hop, res.hop...)
				n += sessions * steps
			}
			cpu1, wait1 := cpu()
			re1 := reconnects()
			b.ReportMetric(float64(n)/wall.Seconds(), "steps/s")
			b.ReportMetric(float64(len(turns))/wall.Seconds(), "turns/s")
			b.ReportMetric(ms(percentile(turns, 50)), "ms-turn-p50")
			b.ReportMetric(ms(percentile(turns, 99)), "ms-turn-p99")
			b.ReportMetric(ms(percentile(gaps, 50)), "ms-gap-p50")
			b.ReportMetric(ms(percentile(gaps, 99)), "ms-gap-p99")
			b.ReportMetric(ms(cpu1-cpu0)/float64(n), "ms-cpu/step")
			b.ReportMetric(ms(wait1-wait0)/float64(n), "ms-runqueue/step")
			// The /events clients the server closed for falling behind its
			// queue, and that resumed with Last-Event-ID, per batch of 20 turns
			// (counted over every node's client).
			b.ReportMetric(float64(re1-re0)/float64(batches), "events-reconnects/batch")
			b.ReportMetric(ms(percentile(own, 50)), "ms-event-own-p50")
			b.ReportMetric(ms(percentile(own, 99)), "ms-event-own-p99")
			if len(nodes) > 1 {
				b.ReportMetric(ms(percentile(cross, 50)), "ms-event-p50")
				b.ReportMetric(ms(percentile(cross, 99)), "ms-event-p99")
				b.ReportMetric(ms(percentile(hop, 50)), "ms-event-hop-p50")
				b.ReportMetric(ms(percentile(hop, 99)), "ms-event-hop-p99")
			}
		})
	}
}

// Two nodes on PostgreSQL and NATS, a client following each one's
// /events, and 20 one-call turns run one after another on the first node:
// the time each turn's turn.started and turn.finished take from their
// publication on the first node to the second node's /events when
// nothing else runs, and that from the client's reading a turn's answer
// to its turn.finished on the second node.
func BenchmarkClusterEventsIdle(b *testing.B) {
	const steps, turns = 1, 20
	fake := fakeModel(b, steps)
	nodes := startNodes(b, deployments[2], fake.URL, profilePath(b.Name()))
	logs := []*eventLog{nodes[0].follow(b), nodes[1].follow(b)}
	fail := func(err error) {
		b.Fatalf("%v\nnode 1:\n%s\nnode 2:\n%s", err, nodes[0].out, nodes[1].out)
	}
	if _, err := clusterTurns(nodes, logs, turns, steps, false); err != nil { // warm
		fail(err)
	}
	var cross, hop, after []time.Duration
	for b.Loop() {
		res, err := clusterTurns(nodes, logs, turns, steps, false)
		if err != nil {
			fail(err)
		}
		cross, hop, after = append(cross, res.cross...), append(hop, res.hop...), append(after, res.afterAnswer...)
	}
	b.ReportMetric(ms(percentile(cross, 50)), "ms-event-p50")
	b.ReportMetric(ms(percentile(cross, 99)), "ms-event-p99")
	b.ReportMetric(ms(percentile(hop, 50)), "ms-event-hop-p50")
	b.ReportMetric(ms(percentile(hop, 99)), "ms-event-hop-p99")
	b.ReportMetric(ms(percentile(after, 50)), "ms-answer-to-event-p50")
	b.ReportMetric(ms(percentile(after, 99)), "ms-answer-to-event-p99")
}
