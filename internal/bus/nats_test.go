package bus

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/podcode/podcode/internal/enginetest"
)

// deployment is a stream of its own on the test NATS server, deleted when
// the test ends.
func deployment(t testing.TB) (url, stream string) {
	t.Helper()
	url = enginetest.NATS(t)
	stream = strings.ToUpper(enginetest.Prefix())
	t.Cleanup(func() {
		nc, err := nats.Connect(url)
		if err != nil {
			t.Logf("deleting stream %s: %v", stream, err)
			return
		}
		defer nc.Close()
		js, _ := jetstream.New(nc)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := js.DeleteStream(ctx, stream); err != nil {
			t.Logf("deleting stream %s: %v", stream, err)
		}
	})
	return url, stream
}

// join joins b as node to the deployment's stream, leaving when the test
// ends.
func join(t testing.TB, b *Bus, url, stream, node string) *Remote {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	o := JoinOptions{Node: node, Stream: stream}
	if _, ok := t.(*testing.B); ok {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil)) // the figures alone
	}
	r, err := Join(ctx, b, url, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// next is f's next event; the test fails if none comes in a long while.
func next(t testing.TB, f *Follower) Event {
	t.Helper()
	select {
	case ev := <-f.C:
		return ev
	case <-f.Dropped:
		t.Fatal("the follower was dropped")
	case <-time.After(20 * time.Second):
		t.Fatal("no event came")
	}
	return Event{}
}

func all(Event) bool { return true }

// Every node's followers get every node's events, in one order, with the
// same ids (and the same ids as text) on every node.
func TestJoinedNodesFollowAllEventsInOneOrder(t *testing.T) {
	url, stream := deployment(t)
	a, b := New(nil), New(nil)
	join(t, a, url, stream, "a")
	join(t, b, url, stream, "b")
	fa, fb := a.Follow(1000, all), b.Follow(1000, all)
	defer fa.Close()
	defer fb.Close()
	const each = 100
	var wg sync.WaitGroup
	for _, n := range []struct {
		name string
		bus  *Bus
	}{{"a", a}, {"b", b}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				n.bus.Publish("x", map[string]any{"from": n.name, "i": i})
			}
		}()
	}
	wg.Wait()
	last := map[string]float64{"a": -1, "b": -1}
	var prev uint64
	for i := 0; i < 2*each; i++ {
		ea, eb := next(t, fa), next(t, fb)
		if ea.ID != eb.ID || a.FormatID(ea.ID) != b.FormatID(eb.ID) || fmt.Sprint(ea.Properties) != fmt.Sprint(eb.Properties) {
			t.Fatalf("event %d: node a has %s %v, node b %s %v", i, a.FormatID(ea.ID), ea.Properties, b.FormatID(eb.ID), eb.Properties)
		}
		if ea.ID <= prev {
			t.Fatalf("event %d: id %d after %d", i, ea.ID, prev)
		}
		prev = ea.ID
		// Each publisher's events keep their order.
		from, _ := ea.Properties["from"].(string)
		if j := ea.Properties["i"].(float64); j != last[from]+1 {
			t.Fatalf("event %d: %s's %v after its %v", i, from, j, last[from])
		}
		last[from]++
	}
}

// A plugin sees the events of its own node's turns only.
func TestJoinedListenersSeeTheirNodesEventsOnly(t *testing.T) {
	url, stream := deployment(t)
	a, b := New(nil), New(nil)
	join(t, a, url, stream, "a")
	join(t, b, url, stream, "b")
	var mu sync.Mutex
	var heard []string
	b.Subscribe("", "plugin", func(ev Event) {
		mu.Lock()
		heard = append(heard, fmt.Sprintf("%s/%d", ev.Type, ev.ID))
		mu.Unlock()
	})
	fb := b.Follow(10, all)
	defer fb.Close()
	a.Publish("from.a", nil)
	b.Publish("from.b", nil)
	seen := map[string]bool{}
	for len(seen) < 2 {
		seen[next(t, fb).Type] = true
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(heard, " ") != "from.b/0" {
		t.Errorf("node b's listener heard %q, want only its own event (with id 0: the stream has not given it one yet)", heard)
	}
}

// A node that joins late has the stream's latest events in its journal:
// a client that read node a resumes on node b from a's id.
func TestJoinedResumeOnAnotherNode(t *testing.T) {
	url, stream := deployment(t)
	a := New(nil)
	join(t, a, url, stream, "a")
	fa := a.Follow(10, all)
	defer fa.Close()
	for i := 1; i <= 5; i++ {
		a.Publish("x", map[string]any{"i": i})
	}
	var ids []string
	for i := 0; i < 5; i++ {
		ids = append(ids, a.FormatID(next(t, fa).ID))
	}
	b := New(nil)
	b.SetReplay(3)
	join(t, b, url, stream, "b")
	id, ours, err := b.ParseID(ids[1])
	if err != nil || !ours {
		t.Fatalf("node b reads node a's id %s: ours %v, %v", ids[1], ours, err)
	}
	f, replay, missed := b.Resume(id, 10, all)
	f.Close()
	var got []string
	for _, ev := range replay {
		got = append(got, fmt.Sprintf("%s:%v", b.FormatID(ev.ID), ev.Properties["i"]))
	}
	want := fmt.Sprintf("%s:3 %s:4 %s:5", ids[2], ids[3], ids[4])
	if missed || strings.Join(got, " ") != want {
		t.Errorf("resume on b after %s: missed %v, replay %q, want %q", ids[1], missed, got, want)
	}
	// Node b's journal holds 3 events: from the first id, 4 would be due.
	id, _, _ = b.ParseID(ids[0])
	if f, replay, missed := b.Resume(id, 10, all); !missed || replay != nil {
		t.Errorf("resume on b after %s, older than its journal: missed %v, replay %v", ids[0], missed, replay)
	} else {
		f.Close()
	}
}

// A client may come to node b with the id of an event node b has not taken
// from the stream yet: it gets the events after that one, nothing missed.
func TestJoinedResumeFromAnIDNotTakenYet(t *testing.T) {
	url, stream := deployment(t)
	a, b := New(nil), New(nil)
	join(t, a, url, stream, "a")
	join(t, b, url, stream, "b")
	fb := b.Follow(10, all)
	defer fb.Close()
	a.Publish("x", map[string]any{"i": 1})
	first := next(t, fb).ID
	g, replay, missed := b.Resume(first+2, 10, all)
	defer g.Close()
	if missed || replay != nil || g.From != first+2 {
		t.Fatalf("resume after %d with %d taken: missed %v, replay %v, from %d", first+2, first, missed, replay, g.From)
	}
	for i := 2; i <= 4; i++ {
		a.Publish("x", map[string]any{"i": i})
	}
	if ev := next(t, g); ev.ID != first+3 || ev.Properties["i"] != float64(4) {
		t.Errorf("the resumed follower's first event: %d %v, want %d i=4", ev.ID, ev.Properties, first+3)
	}
}

// Events keep their tenant across nodes: a follower that keeps one
// tenant's events gets them on every node.
func TestJoinedEventsKeepTheirTenant(t *testing.T) {
	url, stream := deployment(t)
	a, b := New(nil), New(nil)
	join(t, a, url, stream, "a")
	join(t, b, url, stream, "b")
	mine := b.Follow(10, func(ev Event) bool { return ev.Tenant == "" || ev.Tenant == "t1" })
	defer mine.Close()
	everything := b.Follow(10, all)
	defer everything.Close()
	a.PublishFor("t2", "x", map[string]any{"n": "other"})
	a.PublishFor("t1", "x", map[string]any{"n": "mine"})
	a.Publish("y", nil)
	for i := 0; i < 3; i++ {
		next(t, everything)
	}
	ev := next(t, mine)
	if ev.Tenant != "t1" || ev.Properties["n"] != "mine" || ev.Type != "x" || ev.Time.IsZero() {
		t.Errorf("tenant t1's follower on node b got %+v", ev)
	}
	if ev := next(t, mine); ev.Tenant != "" || ev.Type != "y" {
		t.Errorf("then %+v, want the server's event", ev)
	}
}

// What leaves a node is redacted: the stream keeps it on the NATS server's
// disk.
func TestJoinedEventsLeaveRedacted(t *testing.T) {
	url, stream := deployment(t)
	a, b := New(nil), New(nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ra, err := Join(ctx, a, url, JoinOptions{Node: "a", Stream: stream, Redact: func(s string) string {
		return strings.ReplaceAll(s, "s3cret", "[redacted]")
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer ra.Close()
	join(t, b, url, stream, "b")
	var heard any
	a.Subscribe("", "plugin", func(ev Event) { heard = ev.Properties["args"] })
	fb := b.Follow(10, all)
	defer fb.Close()
	a.Publish(ToolCallStarted, map[string]any{"args": "token=s3cret"})
	if ev := next(t, fb); ev.Properties["args"] != "token=[redacted]" {
		t.Errorf("node b got %v", ev.Properties)
	}
	if heard != "token=s3cret" {
		t.Errorf("node a's listener got %v: listeners get the event as published", heard)
	}
}

// A request is answered by the node that has what it asks about, this
// node or another; when no node has it, Ask reports no answer when ctx
// ends.
func TestAskIsAnsweredByTheNodeThatHasIt(t *testing.T) {
	url, stream := deployment(t)
	a, b := New(nil), New(nil)
	ra := join(t, a, url, stream, "a")
	rb := join(t, b, url, stream, "b")
	owner := func(node string) func(context.Context, []byte) ([]byte, bool) {
		return func(_ context.Context, req []byte) ([]byte, bool) {
			if string(req) != "session of "+node {
				return nil, false
			}
			return []byte("node " + node + " has it"), true
		}
	}
	defer ra.Handle("session.owner", owner("a"))()
	defer rb.Handle("session.owner", owner("b"))()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, c := range []struct {
		from *Remote
		req  string
		want string
	}{
		{ra, "session of b", "node b has it"},
		{rb, "session of a", "node a has it"},
		{ra, "session of a", "node a has it"},
	} {
		resp, ok, err := c.from.Ask(ctx, "session.owner", []byte(c.req))
		if err != nil || !ok || string(resp) != c.want {
			t.Errorf("ask %q from node %s: %q %v %v, want %q", c.req, c.from.node, resp, ok, err, c.want)
		}
	}
	short, cancel2 := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel2()
	if resp, ok, err := ra.Ask(short, "session.owner", []byte("session of c")); ok || err != nil || resp != nil {
		t.Errorf("a request no node has: %q %v %v", resp, ok, err)
	}
	if resp, ok, err := ra.Ask(ctx, "nobody.handles", nil); ok || err != nil || resp != nil {
		t.Errorf("a request no node handles: %q %v %v", resp, ok, err)
	}
	if _, _, err := ra.Ask(ctx, "bad name", nil); err == nil || !strings.Contains(err.Error(), "is not a request name") {
		t.Errorf("a malformed name: %v", err)
	}
}

// Once Handle's stop returned, the node no longer answers.
func TestHandleStop(t *testing.T) {
	url, stream := deployment(t)
	a := New(nil)
	ra := join(t, a, url, stream, "a")
	stop := ra.Handle("ping", func(context.Context, []byte) ([]byte, bool) { return []byte("pong"), true })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if resp, ok, err := ra.Ask(ctx, "ping", nil); !ok || err != nil || string(resp) != "pong" {
		t.Fatalf("before stop: %q %v %v", resp, ok, err)
	}
	stop()
	stop()
	if resp, ok, err := ra.Ask(ctx, "ping", nil); ok || err != nil {
		t.Errorf("after stop: %q %v %v", resp, ok, err)
	}
}

// Close stops everything Join started, and the bus goes on alone: its
// followers are dropped (their ids were the deployment's) and new ones
// get its own events.
func TestCloseLeavesNothingRunning(t *testing.T) {
	url, stream := deployment(t)
	before := runtime.NumGoroutine()
	a, b := New(nil), New(nil)
	ra := join(t, a, url, stream, "a")
	rb := join(t, b, url, stream, "b")
	block := make(chan struct{})
	rb.Handle("slow", func(ctx context.Context, _ []byte) ([]byte, bool) {
		select {
		case <-ctx.Done():
		case <-block:
		}
		return nil, false
	})
	short, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	ra.Ask(short, "slow", nil)
	fa := a.Follow(10, all)
	a.Publish("x", nil)
	next(t, fa)
	if err := ra.Close(); err != nil {
		t.Errorf("close a: %v", err)
	}
	if err := rb.Close(); err != nil {
		t.Errorf("close b: %v", err)
	}
	ra.Close() // twice is harmless
	select {
	case <-fa.Dropped:
	default:
		t.Error("a's follower was not dropped at Close")
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	js, _ := jetstream.New(nc)
	ctx, cancel3 := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel3()
	if s, err := js.Stream(ctx, stream); err != nil {
		t.Errorf("after close, the stream: %v", err)
	} else if n := s.CachedInfo().State.Consumers; n != 0 {
		t.Errorf("after close, the stream has %d consumers", n)
	}
	nc.Close()
	g := a.Follow(10, all)
	a.Publish("y", nil)
	if ev := next(t, g); ev.Type != "y" {
		t.Errorf("after close, node a's follower got %+v", ev)
	}
	g.Close()
	close(block)
	deadline := time.Now().Add(20 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Errorf("%d goroutines after Close, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// deafReader misses Stop, as nats.go's ordered consumer can when Stop
// lands while it re-creates its consumer after an outage.
type deafReader struct{ jetstream.MessagesContext }

func (deafReader) Stop()  {}
func (deafReader) Drain() {}

// Close ends a node's part in the deployment even when the stream's reader
// misses Stop, and what the node published before still reaches the others.
func TestCloseEndsAReaderThatMissesStop(t *testing.T) {
	url, stream := deployment(t)
	saved, savedWait := messages, readerStopWait
	t.Cleanup(func() { messages, readerStopWait = saved, savedWait })
	messages = func(c jetstream.Consumer) (jetstream.MessagesContext, error) {
		m, err := c.Messages()
		return deafReader{m}, err
	}
	readerStopWait = 200 * time.Millisecond
	a, b := New(nil), New(nil)
	ra := join(t, a, url, stream, "a")
	messages = saved
	join(t, b, url, stream, "b")
	fb := b.Follow(10, all)
	defer fb.Close()
	a.Publish("last", nil)
	closed := make(chan error, 1)
	go func() { closed <- ra.Close() }()
	select {
	case err := <-closed:
		if err != nil {
			t.Errorf("close: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Close did not return with a reader that missed Stop")
	}
	select {
	case <-ra.consumed:
	default:
		t.Error("Close returned with the reader still running")
	}
	if ev := next(t, fb); ev.Type != "last" {
		t.Errorf("node b got %+v, want the event a published before Close", ev)
	}
}

// natsServer runs a NATS server of the test's own, on port (a free one
// if ""), keeping its JetStream files in dir; the test ends it.
func natsServer(t *testing.T, dir, port string) (url string, stop func()) {
	t.Helper()
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		t.Skip("nats-server is not installed")
	}
	if port == "" {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port = strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
		l.Close()
	}
	cmd := exec.Command(bin, "-a", "127.0.0.1", "-p", port, "-js", "-sd", dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	stop = func() { once.Do(func() { cmd.Process.Kill(); cmd.Wait() }) }
	t.Cleanup(stop)
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", "127.0.0.1:"+port)
		if err == nil {
			c.Close()
			break
		}
		if i == 500 {
			t.Fatalf("the NATS server on port %s did not start: %v", port, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "nats://127.0.0.1:" + port, stop
}

// While the NATS server is away, a node's listeners still get its events,
// and its followers and the other nodes' get them, in order, once it is
// back.
func TestJoinedNodesRideOutAnOutage(t *testing.T) {
	enginetest.NATS(t) // where the engines run, so does nats-server
	dir := t.TempDir()
	url, stop := natsServer(t, dir, "")
	a, b := New(nil), New(nil)
	ra := join(t, a, url, "PODCODE_EVENTS", "a")
	rb := join(t, b, url, "PODCODE_EVENTS", "b")
	var heard []any
	a.Subscribe("", "plugin", func(ev Event) { heard = append(heard, ev.Properties["i"]) })
	fb := b.Follow(10, all)
	defer fb.Close()
	a.Publish("x", map[string]any{"i": 0})
	first := next(t, fb)
	stop()
	// What is published as the server goes away can be lost (a core NATS
	// publish is at most once); what is published once the node knows it
	// is away is buffered.
	for ra.nc.Status() == nats.CONNECTED {
		time.Sleep(10 * time.Millisecond)
	}
	for i := 1; i <= 3; i++ {
		a.Publish("x", map[string]any{"i": i})
	}
	if fmt.Sprint(heard) != "[0 1 2 3]" {
		t.Errorf("node a's listener heard %v during the outage", heard)
	}
	natsServer(t, dir, url[strings.LastIndex(url, ":")+1:])
	for i := 1; i <= 3; i++ {
		ev := next(t, fb)
		if ev.ID != first.ID+uint64(i) || ev.Properties["i"] != float64(i) {
			t.Errorf("after the outage, node b got %d %v, want %d i=%d", ev.ID, ev.Properties, first.ID+uint64(i), i)
		}
	}
	rb.Close()
	ra.Close()
}

// A NATS server without JetStream is named as such, with how to start it
// with JetStream, not as NATS's "no responders".
func TestJoinWithoutJetStream(t *testing.T) {
	enginetest.NATS(t) // where the engines run, so does nats-server
	bin, err := exec.LookPath("nats-server")
	if err != nil {
		t.Skip("nats-server is not installed")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command(bin, "-a", "127.0.0.1", "-p", port) // no -js
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	url := "nats://127.0.0.1:" + port
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var joinErr error
	for i := 0; i < 100; i++ {
		if _, joinErr = Join(ctx, New(nil), url, JoinOptions{Node: "a"}); joinErr == nil || !strings.Contains(joinErr.Error(), "connecting") {
			break
		}
		time.Sleep(50 * time.Millisecond) // the server is still starting
	}
	if joinErr == nil || !strings.Contains(joinErr.Error(), "does not run JetStream") || !strings.Contains(joinErr.Error(), "nats-server -js") {
		t.Errorf("joining a server without JetStream: %v", joinErr)
	}
}

// A node that cannot reach NATS is told so, and its bus goes on alone.
func TestJoinUnreachable(t *testing.T) {
	b := New(nil)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := Join(ctx, b, "nats://127.0.0.1:1", JoinOptions{Node: "a"}); err == nil || !strings.Contains(err.Error(), "connecting to NATS at nats://127.0.0.1:1") {
		t.Fatalf("join: %v", err)
	}
	f := b.Follow(1, all)
	defer f.Close()
	b.Publish("x", nil)
	if ev := <-f.C; ev.ID != 1 {
		t.Errorf("alone: id %d", ev.ID)
	}
}

// How long an event published on node a takes to reach a follower on
// node b, through the NATS server.
//
//	go test -run '^$' -bench JoinedPublishToFollower ./internal/bus/
func BenchmarkJoinedPublishToFollower(b *testing.B) {
	url, stream := deployment(b)
	na, nb := New(nil), New(nil)
	join(b, na, url, stream, "a")
	join(b, nb, url, stream, "b")
	f := nb.Follow(16, all)
	defer f.Close()
	props := map[string]any{"sessionID": "ses_1"}
	for b.Loop() {
		na.PublishFor("1", "x", props)
		next(b, f)
	}
}
