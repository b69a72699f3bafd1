package bus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/podcode/podcode/internal/logging"
)

// JoinOptions says how a node joins a deployment. Every node of a
// deployment gives the same Stream, MaxAge and MaxMsgs (the last node to
// join sets the stream's limits).
type JoinOptions struct {
	// Node is this node's name, in logs and in the Podcode-Node header of
	// what it sends.
	Node string
	// Stream is the JetStream stream that carries the events; default
	// "PODCODE_EVENTS". Its subject is "<stream lowercased>.events"; the
	// requests of Ask go to "<stream lowercased>.ask.<name>", which the
	// stream does not keep.
	Stream string
	// MaxAge is how long the stream keeps events (default 1h), MaxMsgs
	// how many (default 100000).
	MaxAge  time.Duration
	MaxMsgs int64
	// Log gets the connection's troubles (default: the bus's logger).
	Log *slog.Logger
	// Redact, if set, is applied to each event's JSON before it leaves the
	// node: the stream keeps events on the NATS server's disk, so give it
	// what redacts the secrets of everything stored. What it returns must
	// still be JSON (an event that is not is left out, and logged).
	Redact func(string) string
}

// DefaultStream is the stream JoinOptions.Stream names by default.
const DefaultStream = "PODCODE_EVENTS"

// The headers of the messages a node sends.
const (
	headerNode     = "Podcode-Node"
	headerDeadline = "Podcode-Deadline" // an Ask's deadline, Unix nanoseconds
)

// Remote is a bus's link to the other nodes of its deployment, from Join
// until Close.
type Remote struct {
	b       *Bus
	nc      *nats.Conn
	node    string
	log     *slog.Logger
	subject string // where the events go
	ask     string // the prefix of the requests' subjects
	header  nats.Header
	redact  func(string) string

	js       jetstream.JetStream
	stream   string
	consumer jetstream.Consumer

	iter     jetstream.MessagesContext
	consumed chan struct{} // closed when the consuming goroutine ends
	stopping chan struct{} // closed when Close begins

	// The publishing failures, logged at most once per failWindow.
	failed   atomic.Uint64
	failedAt atomic.Int64

	mu      sync.Mutex
	closed  bool
	handles map[*handle]struct{}

	closeOnce sync.Once
	closeErr  error
}

const failWindow = 10 * time.Second

// readerStopWait bounds how long Close waits for the stream's reader to
// stop before it closes the connection under it: nats.go's ordered
// consumer can miss a Stop that lands while it re-creates its consumer
// after an outage, and its Next then blocks until the connection ends.
var readerStopWait = 5 * time.Second

// messages starts reading a consumer; tests replace it to stand in for a
// reader that misses Stop.
var messages = func(c jetstream.Consumer) (jetstream.MessagesContext, error) { return c.Messages() }

// Join connects b to the other nodes of a deployment through the NATS
// server at url, and returns when b has taken the stream's latest events
// (as many as its journal holds), or with an error when ctx ends first or
// NATS cannot be reached: then b goes on alone, as before.
//
// Once joined, Publish still calls this node's listeners, on the
// publisher's goroutine, and sends the event to the stream; this node's
// followers and journal get every node's events from the stream, in the
// stream's order, with the stream's sequence as id and an epoch derived
// from the stream, so that ids mean the same on every node. Join drops the
// followers b had (their ids belong to b's own order): call it before the
// node publishes or serves, and SetReplay before Join.
func Join(ctx context.Context, b *Bus, url string, o JoinOptions) (*Remote, error) {
	if b.remote.Load() != nil {
		return nil, errors.New("bus: join: this bus already joined a deployment")
	}
	if o.Stream == "" {
		o.Stream = DefaultStream
	}
	if strings.ContainsAny(o.Stream, ". *>\t\r\n") {
		return nil, fmt.Errorf("bus: join: stream name %q has a character NATS does not allow (. * > or space)", o.Stream)
	}
	if o.MaxAge <= 0 {
		o.MaxAge = time.Hour
	}
	if o.MaxMsgs <= 0 {
		o.MaxMsgs = 100000
	}
	log := o.Log
	if log == nil {
		log = b.log
	}
	log = log.With("node", o.Node, "stream", o.Stream)
	base := strings.ToLower(o.Stream)
	r := &Remote{
		b: b, node: o.Node, log: log,
		subject: base + ".events", ask: base + ".ask.",
		header:   nats.Header{headerNode: []string{o.Node}},
		redact:   o.Redact,
		stream:   o.Stream,
		consumed: make(chan struct{}),
		stopping: make(chan struct{}),
		handles:  map[*handle]struct{}{},
	}
	opts := []nats.Option{
		nats.Name("podcode " + o.Node),
		nats.MaxReconnects(-1),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("bus: lost the NATS server; events are buffered until it is back", "error", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) {
			log.Info("bus: reconnected to the NATS server", "server", logging.RedactURL(nc.ConnectedUrl()))
		}),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			log.Warn("bus: NATS error", "error", err)
		}),
	}
	if d, ok := ctx.Deadline(); ok {
		opts = append(opts, nats.Timeout(max(time.Until(d), time.Millisecond)))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("bus: join: connecting to NATS at %s: %w", logging.RedactURL(url), err)
	}
	r.nc = nc
	js, err := jetstream.New(nc)
	r.js = js
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("bus: join: %w", err)
	}
	stream, err := js.CreateOrUpdateStream(ctx, jetstream.StreamConfig{
		Name:      o.Stream,
		Subjects:  []string{r.subject},
		Retention: jetstream.LimitsPolicy,
		Discard:   jetstream.DiscardOld,
		MaxAge:    o.MaxAge,
		MaxMsgs:   o.MaxMsgs,
		Storage:   jetstream.FileStorage,
	})
	if err != nil {
		nc.Close()
		if errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrJetStreamNotEnabled) {
			// Nothing answers JetStream's requests: the server runs without it.
			return nil, fmt.Errorf("bus: join: the NATS server at %s does not run JetStream, which Podcode's nodes share their events through: start it with -js (nats-server -js), or \"jetstream {}\" in its config (%w)",
				logging.RedactURL(url), err)
		}
		return nil, fmt.Errorf("bus: join: creating the JetStream stream %s: %w", o.Stream, err)
	}
	info := stream.CachedInfo()
	last := info.State.LastSeq
	// The journal begins with the stream's latest events, so that this
	// node replays what the others would.
	start := last + 1 - min(uint64(b.replay()), last)
	start = max(start, info.State.FirstSeq, 1)
	h := fnv.New32a()
	h.Write([]byte(o.Stream + "\x00" + info.Created.UTC().Format(time.RFC3339Nano)))
	epoch := fmt.Sprintf("%08x", h.Sum32())

	cons, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{
		DeliverPolicy: jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:   start,
	})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("bus: join: creating a consumer of the stream %s: %w", o.Stream, err)
	}
	r.consumer = cons
	b.rebase(&epoch, start-1, r)
	caught := make(chan struct{})
	if info.State.Msgs == 0 {
		close(caught)
	}
	r.iter, err = messages(cons)
	if err != nil {
		b.rebase(randomEpoch(), start-1, nil)
		nc.Close()
		return nil, fmt.Errorf("bus: join: consuming the stream %s: %w", o.Stream, err)
	}
	go r.consume(last, caught)
	select {
	case <-caught:
	case <-ctx.Done():
		r.Close()
		return nil, fmt.Errorf("bus: join: taking the stream %s's latest events: %w", o.Stream, ctx.Err())
	}
	log.Info("bus: joined the deployment", "server", logging.RedactURL(nc.ConnectedUrl()), "epoch", epoch, "from", start)
	return r, nil
}

// replay is the journal's size.
func (b *Bus) replay() int {
	b.jmu.Lock()
	defer b.jmu.Unlock()
	return len(b.journal)
}

// consume feeds the bus with the stream's events until the iterator
// stops, closing caught once it has taken the event with id last (or the
// stream has nothing more).
func (r *Remote) consume(last uint64, caught chan struct{}) {
	defer close(r.consumed)
	for {
		m, err := r.iter.Next()
		if err != nil {
			if errors.Is(err, jetstream.ErrMsgIteratorClosed) {
				return
			}
			r.log.Warn("bus: reading the event stream", "error", err)
			select { // not a busy loop, should the error persist
			case <-r.stopping:
				return
			case <-time.After(time.Second):
			}
			continue
		}
		meta, err := m.Metadata()
		if err != nil {
			r.log.Warn("bus: an event of the stream without metadata", "error", err)
			continue
		}
		var ev Event
		if err := json.Unmarshal(m.Data(), &ev); err != nil {
			r.log.Warn("bus: an event of the stream is not an event's JSON; left out", "id", meta.Sequence.Stream, "error", err)
		} else {
			ev.ID = meta.Sequence.Stream
			if !r.b.take(ev) {
				r.log.Warn("bus: an event of the stream has an id this node has passed (was the stream made anew?); left out", "id", ev.ID)
			}
		}
		if !isClosed(caught) && (meta.Sequence.Stream >= last || meta.NumPending == 0) {
			close(caught)
		}
	}
}

// send publishes ev to the stream. It does not wait: nats.go buffers
// while the server is away; what does not fit is lost, and logged.
func (r *Remote) send(ev Event) {
	data, err := json.Marshal(ev)
	if err == nil && r.redact != nil {
		data = []byte(r.redact(string(data)))
	}
	if err == nil {
		err = r.nc.PublishMsg(&nats.Msg{Subject: r.subject, Header: r.header, Data: data})
	}
	if err != nil {
		n := r.failed.Add(1)
		now := time.Now().UnixNano()
		if at := r.failedAt.Load(); now-at >= int64(failWindow) && r.failedAt.CompareAndSwap(at, now) {
			r.log.Warn("bus: an event could not be sent to the other nodes; this node's listeners had it, no follower will",
				"event", ev.Type, "error", err, "lost_so_far", n)
		}
	}
}

// Close stops taking the stream's events and answering requests, and
// disconnects from NATS after sending what is buffered (for up to a few
// seconds). The bus goes on alone, with ids of a new epoch; its followers
// are dropped, so that their readers resume elsewhere. Close waits for the
// running calls of Handle's functions (so they must not call it).
func (r *Remote) Close() error {
	r.closeOnce.Do(func() {
		r.mu.Lock()
		r.closed = true
		hs := make([]*handle, 0, len(r.handles))
		for h := range r.handles {
			hs = append(hs, h)
		}
		r.mu.Unlock()
		for _, h := range hs {
			h.stop()
		}
		close(r.stopping)
		if r.iter != nil {
			r.iter.Stop()
			if !waitFor(r.consumed, readerStopWait) {
				r.log.Warn("bus: the event stream's reader did not stop; closing the connection to NATS under it", "waited", readerStopWait)
				if err := r.nc.FlushTimeout(3 * time.Second); err != nil {
					r.closeErr = fmt.Errorf("bus: sending the last events to NATS: %w", err)
				}
				r.nc.Close()
				if !waitFor(r.consumed, readerStopWait) {
					r.log.Error("bus: the event stream's reader did not stop with the connection closed; left behind")
				}
			}
		}
		// The server would drop the consumer after a while of inactivity:
		// now is tidier, with many nodes restarting.
		if info := r.consumer.CachedInfo(); info != nil && r.nc.Status() == nats.CONNECTED {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			if err := r.js.DeleteConsumer(ctx, r.stream, info.Name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
				r.log.Info("bus: leaving the consumer of the stream to the server's cleanup", "consumer", info.Name, "error", err)
			}
			cancel()
		}
		if r.b.remote.Load() == r {
			r.b.jmu.Lock()
			seq := r.b.seq
			r.b.jmu.Unlock()
			r.b.rebase(randomEpoch(), seq, nil)
		}
		if err := r.nc.FlushTimeout(3 * time.Second); err != nil && !errors.Is(err, nats.ErrConnectionClosed) {
			r.closeErr = fmt.Errorf("bus: sending the last events to NATS: %w", err)
		}
		r.nc.Close()
	})
	return r.closeErr
}

// waitFor reports whether ch is closed within d.
func waitFor(ch <-chan struct{}, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
		return true
	case <-t.C:
		return false
	}
}

// handle is one Handle's subscription.
type handle struct {
	r      *Remote
	sub    *nats.Subscription
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	done   bool
	calls  sync.WaitGroup
	once   sync.Once
}

// Handle answers the requests named name that any node (this one too)
// sends with Ask once Handle has returned: fn gets each on a goroutine of its own, with a context
// that ends at the asker's deadline, at stop or at Close. fn returns
// ok=false when this node has nothing to do with the request: then it
// stays silent, and another node may answer. stop ends the subscription
// and waits for the running calls of fn (so fn must not call it).
func (r *Remote) Handle(name string, fn func(ctx context.Context, req []byte) (resp []byte, ok bool)) (stop func()) {
	subject, err := r.askSubject(name)
	if err != nil {
		r.log.Error("bus: handle", "error", err)
		return func() {}
	}
	h := &handle{r: r}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		r.log.Error("bus: handle: the node has left the deployment", "request", name)
		return func() {}
	}
	h.sub, err = r.nc.Subscribe(subject, func(m *nats.Msg) {
		if m.Reply == "" {
			return
		}
		h.mu.Lock()
		if h.done {
			h.mu.Unlock()
			return
		}
		h.calls.Add(1)
		h.mu.Unlock()
		go func() {
			defer h.calls.Done()
			ctx := h.ctx
			if ns, err := strconv.ParseInt(m.Header.Get(headerDeadline), 10, 64); err == nil {
				var cancel context.CancelFunc
				ctx, cancel = context.WithDeadline(ctx, time.Unix(0, ns))
				defer cancel()
			}
			resp, ok := fn(ctx, m.Data)
			if ok && ctx.Err() == nil {
				if err := m.Respond(resp); err != nil {
					r.log.Warn("bus: answering a request", "request", name, "from", m.Header.Get(headerNode), "error", err)
				}
			}
		}()
	})
	if err != nil {
		h.cancel()
		r.log.Error("bus: handle: subscribing", "request", name, "error", err)
		return func() {}
	}
	r.handles[h] = struct{}{}
	// The server has the subscription when Handle returns, so that a
	// request any node sends after that reaches fn. Without the server,
	// nats.go subscribes again when it is back.
	if err := r.nc.FlushTimeout(10 * time.Second); err != nil {
		r.log.Warn("bus: handle: the NATS server did not confirm the subscription", "request", name, "error", err)
	}
	return h.stop
}

func (h *handle) stop() {
	h.once.Do(func() {
		h.mu.Lock()
		h.done = true
		h.mu.Unlock()
		h.sub.Unsubscribe()
		h.cancel()
		h.calls.Wait()
		h.r.mu.Lock()
		delete(h.r.handles, h)
		h.r.mu.Unlock()
	})
}

// Ask sends a request named name to every node, this one included, and
// returns the first answer. ok is false, with no error, when no node
// answered before ctx ended, or at once when no node handles name at all.
// err says why the request could not be sent.
func (r *Remote) Ask(ctx context.Context, name string, req []byte) (resp []byte, ok bool, err error) {
	subject, err := r.askSubject(name)
	if err != nil {
		return nil, false, err
	}
	m := &nats.Msg{Subject: subject, Data: req, Header: nats.Header{headerNode: []string{r.node}}}
	if d, ok := ctx.Deadline(); ok {
		m.Header.Set(headerDeadline, strconv.FormatInt(d.UnixNano(), 10))
	}
	answer, err := r.nc.RequestMsgWithContext(ctx, m)
	switch {
	case err == nil:
		return answer.Data, true, nil
	case errors.Is(err, nats.ErrNoResponders), ctx.Err() != nil:
		return nil, false, nil
	default:
		return nil, false, fmt.Errorf("bus: asking %q over NATS: %w", name, err)
	}
}

// askSubject is the subject of the requests named name: dot-separated
// words without spaces, '*' or '>'.
func (r *Remote) askSubject(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, " *>\t\r\n") || strings.HasPrefix(name, ".") || strings.HasSuffix(name, ".") || strings.Contains(name, "..") {
		return "", fmt.Errorf("bus: %q is not a request name (dot-separated words without spaces, * or >)", name)
	}
	return r.ask + name, nil
}
