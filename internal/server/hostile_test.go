package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/webhook"
)

// bound is how long a test waits for an outcome (a connection closed, an
// event arrived) before it fails: far above any timeout the tests
// configure, so a loaded machine is slow, never wrong.
const bound = 20 * time.Second

// realServer is a Server served as `podcode serve` serves it (HTTP) on a
// loopback port.
type realServer struct {
	*Server
	hs    *http.Server
	addr  string
	mu    sync.Mutex
	state map[string]http.ConnState // by the client's address: the latest the server reported
}

// serveReal serves a new agent for p with the server's token and the
// tenants' tokens, under limits l. before runs before the server starts.
func serveReal(t testing.TB, l Limits, p apptest.Project, before func(*Server), token string, tokens ...config.TenantToken) *realServer {
	t.Helper()
	srv := New(newAgent(t, p), token, tokens...)
	if before != nil {
		before(srv)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	rs := &realServer{Server: srv, addr: ln.Addr().String(), state: map[string]http.ConnState{}}
	hs, hln := srv.HTTP(ln, l)
	rs.hs = hs
	prev := hs.ConnState
	hs.ConnState = func(c net.Conn, st http.ConnState) {
		if prev != nil {
			prev(c, st)
		}
		rs.mu.Lock()
		rs.state[c.RemoteAddr().String()] = st
		rs.mu.Unlock()
	}
	go hs.Serve(hln)
	t.Cleanup(func() { hs.Close() })
	return rs
}

func (rs *realServer) url() string { return "http://" + rs.addr }

// dialTiny opens a raw connection with a tiny receive buffer, closed when
// the test ends: a client that reads nothing fills it at once.
func (rs *realServer) dialTiny(t testing.TB) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		return rc.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
	}}
	c, err := d.Dial("tcp", rs.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// dial opens a raw connection to the server, closed when the test ends.
func (rs *realServer) dial(t testing.TB) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", rs.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedByServer waits until the server has closed its end of c.
func (rs *realServer) closedByServer(t testing.TB, c net.Conn) { rs.await(t, c, http.StateClosed) }

// await waits until the server reports c in state st.
func (rs *realServer) await(t testing.TB, c net.Conn, st http.ConnState) {
	t.Helper()
	for deadline := time.Now().Add(bound); ; time.Sleep(5 * time.Millisecond) {
		rs.mu.Lock()
		got := rs.state[c.LocalAddr().String()]
		rs.mu.Unlock()
		if got == st {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the connection from %s is %s after %s, not %s", c.LocalAddr(), got, bound, st)
		}
	}
}

// readToEOF reads c until the server closes it and returns what came.
func readToEOF(t testing.TB, c net.Conn, r io.Reader) string {
	t.Helper()
	if r == nil {
		r = c
	}
	c.SetReadDeadline(time.Now().Add(bound))
	var got strings.Builder
	_, err := io.Copy(&got, r)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the server still holds the connection after %s; it sent %q", bound, got.String())
	}
	// A reset is a close too: the server closed with our bytes unread.
	if err != nil && !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("reading: %v", err)
	}
	return got.String()
}

func request(method, path, token, extra string) string {
	auth := ""
	if token != "" {
		auth = "Authorization: Bearer " + token + "\r\n"
	}
	return method + " " + path + " HTTP/1.1\r\nHost: podcode\r\n" + auth + extra + "\r\n"
}

// roundTrip sends req on c and reads one answer.
func roundTrip(t testing.TB, c net.Conn, br *bufio.Reader, req string) int {
	t.Helper()
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(bound))
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer to %q: %v", strings.SplitN(req, "\r\n", 2)[0], err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	c.SetReadDeadline(time.Time{})
	return res.StatusCode
}

// Slowloris: connections that never finish their headers, trickle a body
// (to /webhooks/*, which needs no token), or sit idle between requests,
// are closed at the configured timeouts rather than held for ever.
func TestSlowClientsAreCut(t *testing.T) {
	rs := serveReal(t, Limits{ReadHeaderTimeout: 200 * time.Millisecond, ReadTimeout: 500 * time.Millisecond, IdleTimeout: 300 * time.Millisecond},
		apptest.Project{}, func(s *Server) {
			if err := s.EnableWebhooks(map[string]config.Webhook{"ci": {Secret: "s3cret", Prompt: "p"}}, webhook.Options{}); err != nil {
				t.Fatal(err)
			}
		}, "tok")

	t.Run("headers never finished", func(t *testing.T) {
		c := rs.dial(t)
		io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: podcode\r\n")
		readToEOF(t, c, nil)
	})
	t.Run("body trickled", func(t *testing.T) {
		c := rs.dial(t)
		io.WriteString(c, request("POST", "/webhooks/ci", "", "Content-Length: 100000\r\nX-Podcode-Timestamp: 1\r\nX-Podcode-Signature: sha256=00\r\n"))
		stop := make(chan struct{})
		defer close(stop)
		go func() {
			for {
				select {
				case <-stop:
					return
				case <-time.After(20 * time.Millisecond):
				}
				if _, err := c.Write([]byte("x")); err != nil {
					return
				}
			}
		}()
		readToEOF(t, c, nil)
	})
	for _, token := range []string{"", "tok"} {
		t.Run(map[string]string{"": "idle keep-alive without a token", "tok": "idle keep-alive with the token"}[token], func(t *testing.T) {
			c := rs.dial(t)
			io.WriteString(c, request("GET", "/healthz", token, ""))
			got := readToEOF(t, c, nil)
			want := map[string]string{"": "401", "tok": "200"}[token]
			if !strings.HasPrefix(got, "HTTP/1.1 "+want) {
				t.Errorf("answer %q, want %s", got, want)
			}
		})
	}
}

// A client that asks for a large answer and never reads it is cut off at
// WriteTimeout, although answers as such have no time limit (a turn may
// take minutes).
func TestUnreadAnswerIsCut(t *testing.T) {
	rs := serveReal(t, Limits{WriteTimeout: 300 * time.Millisecond}, apptest.Project{}, nil, "tok")
	c := rs.dial(t)
	br := bufio.NewReader(c)
	io.WriteString(c, request("POST", "/sessions", "tok", "Content-Length: 2\r\n")+"{}")
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	var sess struct{ ID string }
	decodeJSON(res, &sess)
	res.Body.Close()
	// Each turn stores the prompt and its echo: the messages come to more
	// than the server's and the client's socket buffers hold.
	text := strings.Repeat("x", MaxBody/2)
	for i := 0; i < 6; i++ {
		body := `{"text": "` + text + `"}`
		if code := roundTrip(t, c, br, request("POST", "/sessions/"+sess.ID+"/messages", "tok", fmt.Sprintf("Content-Length: %d\r\n", len(body)))+body); code != 200 {
			t.Fatalf("turn %d: %d", i, code)
		}
	}
	stuck := rs.dialTiny(t)
	io.WriteString(stuck, request("GET", "/sessions/"+sess.ID+"/messages", "tok", ""))
	rs.closedByServer(t, stuck)
}

// Stopping the server ends its event streams rather than waiting for
// their clients to leave.
func TestShutdownEndsEventStreams(t *testing.T) {
	rs := serveReal(t, Limits{}, apptest.Project{}, nil, "tok")
	s := rs.openEvents(t, "tok", "")
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	if err := rs.hs.Shutdown(ctx); err != nil {
		t.Fatalf("shutting down with a stream open: %v", err)
	}
	for range s.frames {
	}
}

// A client with a valid token gets in while an attacker without one holds
// (or keeps opening) as many connections as it can: it can hold
// MaxUnauthenticatedConns, and a new connection closes the oldest of
// them. An authenticated keep-alive connection is not touched.
func TestConnectionCapKeepsTokenHoldersIn(t *testing.T) {
	const maxAnon, attack = 4, 40
	rs := serveReal(t, Limits{MaxConns: 16, MaxUnauthenticatedConns: maxAnon, ReadHeaderTimeout: time.Hour, ReadTimeout: time.Hour, IdleTimeout: time.Hour},
		apptest.Project{}, nil, "tok")

	mine := rs.dial(t)
	mineR := bufio.NewReader(mine)
	if code := roundTrip(t, mine, mineR, request("GET", "/sessions", "tok", "")); code != 200 {
		t.Fatalf("with the token: %d", code)
	}

	closed := make(chan struct{}, attack)
	for i := 0; i < attack; i++ {
		c := rs.dial(t)
		r := bufio.NewReader(c)
		if i%2 == 0 {
			io.WriteString(c, "GET /sessions HTTP/1.1\r\nHost: podcode\r\n") // never finished
		} else if code := roundTrip(t, c, r, request("GET", "/sessions", "", "")); code != 401 {
			t.Fatalf("without a token: %d", code) // then idle
		}
		go func() {
			c.SetReadDeadline(time.Now().Add(bound))
			if _, err := io.Copy(io.Discard, r); !errors.Is(err, os.ErrDeadlineExceeded) {
				closed <- struct{}{}
			}
		}()
	}

	late := rs.dial(t)
	if code := roundTrip(t, late, bufio.NewReader(late), request("GET", "/sessions", "tok", "")); code != 200 {
		t.Errorf("a new client with the token, during the attack: %d", code)
	}
	if code := roundTrip(t, mine, mineR, request("GET", "/sessions", "tok", "")); code != 200 {
		t.Errorf("the authenticated keep-alive connection, after the attack: %d", code)
	}
	// All but maxAnon of the attacker's connections were closed (the
	// token holder's new connection counted as unauthenticated until its
	// request, so it too took a slot).
	timeout := time.After(bound)
	for n := 0; n < attack-maxAnon; n++ {
		select {
		case <-closed:
		case <-timeout:
			t.Fatalf("the server still holds %d of the attacker's %d connections; at most %d may stay", attack-n, attack, maxAnon)
		}
	}
}

// At MaxConns a new connection closes the oldest idle one; when every
// connection is busy for a token holder (here, event streams) it is
// refused, and none of the busy ones is touched.
func TestConnectionCapClosesIdleBeforeBusy(t *testing.T) {
	const max = 4
	rs := serveReal(t, Limits{MaxConns: max, MaxUnauthenticatedConns: 2, ReadHeaderTimeout: time.Hour, ReadTimeout: time.Hour, IdleTimeout: time.Hour},
		apptest.Project{}, nil, "tok")
	var idle []net.Conn
	for i := 0; i < max; i++ {
		c := rs.dial(t)
		if code := roundTrip(t, c, bufio.NewReader(c), request("GET", "/healthz", "tok", "")); code != 200 {
			t.Fatal(code)
		}
		rs.await(t, c, http.StateIdle) // the answer comes just before
		idle = append(idle, c)
	}
	var streams []net.Conn
	for i := 0; i < max; i++ {
		c := rs.dial(t)
		io.WriteString(c, request("GET", "/events", "tok", ""))
		r := bufio.NewReader(c)
		c.SetReadDeadline(time.Now().Add(bound))
		if line, err := r.ReadString('\n'); err != nil || !strings.Contains(line, "200") {
			t.Fatalf("stream %d: %q %v", i, line, err)
		}
		// Each stream closed the oldest idle connection to get in.
		readToEOF(t, idle[i], nil)
		streams = append(streams, c)
	}
	refused := rs.dial(t)
	io.WriteString(refused, request("GET", "/healthz", "tok", ""))
	if got := readToEOF(t, refused, nil); got != "" {
		t.Errorf("a connection past the cap, all others busy, was answered %q", got)
	}
	for i, c := range streams {
		c.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
		if _, err := c.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
			t.Errorf("stream %d was closed to make room: %v", i, err)
		}
	}
}

// sse reads an event stream frame by frame.
type sse struct {
	t      testing.TB
	res    *http.Response
	frames chan frame
}

type frame struct{ id, event, data string }

// openEvents opens /events with token; last, when not empty, is sent as
// Last-Event-ID (header "h:" prefix) or as ?last_event_id= ("q:").
func (rs *realServer) openEvents(t testing.TB, token, last string) *sse {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	url := rs.url() + "/events"
	if v, ok := strings.CutPrefix(last, "q:"); ok {
		url += "?last_event_id=" + v
	}
	req, _ := http.NewRequestWithContext(ctx, "GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	if v, ok := strings.CutPrefix(last, "h:"); ok {
		req.Header.Set("Last-Event-ID", v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	s := &sse{t: t, res: res, frames: make(chan frame, 4096)}
	if res.StatusCode != 200 {
		return s
	}
	go func() {
		defer close(s.frames)
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		var f frame
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if f.event != "" {
					s.frames <- f
				}
				f = frame{}
			case strings.HasPrefix(line, "id: "):
				f.id = line[4:]
			case strings.HasPrefix(line, "event: "):
				f.event = line[7:]
			case strings.HasPrefix(line, "data: "):
				f.data = line[6:]
			}
		}
	}()
	return s
}

func (s *sse) close() { s.res.Body.Close() }

// next returns the next frame of a type that starts with prefix.
func (s *sse) next(prefix string) frame {
	s.t.Helper()
	timeout := time.After(bound)
	for {
		select {
		case f, ok := <-s.frames:
			if !ok {
				s.t.Fatalf("the stream ended before a %s event", prefix)
			}
			if strings.HasPrefix(f.event, prefix) {
				return f
			}
		case <-timeout:
			s.t.Fatalf("no %s event within %s", prefix, bound)
		}
	}
}

// An /events client that stops reading is disconnected once a write to it
// does not complete within WriteTimeout; Publish never waits for it, and
// another client, reading, receives every event in order.
func TestNonReadingEventClientIsDisconnected(t *testing.T) {
	rs := serveReal(t, Limits{WriteTimeout: 300 * time.Millisecond, EventsQueue: 1024}, apptest.Project{}, nil, "tok")
	// A tiny receive buffer, and a client that reads only the stream's
	// first line.
	stuck := rs.dialTiny(t)
	io.WriteString(stuck, request("GET", "/events", "tok", ""))
	br := bufio.NewReaderSize(stuck, 16)
	stuck.SetReadDeadline(time.Now().Add(bound))
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream's start: %v", err)
		}
		if strings.Contains(line, "podcode events") {
			break
		}
	}
	// Once its headers came, the stream follows the bus.
	reader := rs.openEvents(t, "tok", "")

	const n = 400
	payload := strings.Repeat("x", 32<<10)
	published := make(chan struct{})
	go func() {
		defer close(published)
		for i := 0; i < n; i++ {
			rs.Agent.App.Bus.Publish("test.big", map[string]any{"i": i, "pad": payload})
		}
	}()
	select {
	case <-published:
	case <-time.After(bound):
		t.Fatal("Publish waited for a client that does not read")
	}
	rs.closedByServer(t, stuck)
	for i := 0; i < n; i++ {
		f := reader.next("test.big")
		if !strings.Contains(f.data, fmt.Sprintf(`"i":%d,`, i)) {
			t.Fatalf("the reading client's event %d: %.80s", i, f.data)
		}
	}
}

// A client that reconnects with the id of the last event it received
// (Last-Event-ID, or ?last_event_id=) gets exactly the events it missed,
// in order, its tenant's and the server's only, then the new ones; when
// those are no longer kept, or the id is from an earlier run, it is told
// (events.missed); a malformed id is a 400.
func TestEventsResume(t *testing.T) {
	const replay = 16
	tokens := []config.TenantToken{{Token: "ann-token", TenantID: 1, UserID: "ann"}, {Token: "bob-token", TenantID: 2, UserID: "bob"}}
	rs := serveReal(t, Limits{EventsReplay: replay}, apptest.Project{}, nil, "admin", tokens...)
	b := rs.Agent.App.Bus
	ann, bob := store.TenantKey(1), store.TenantKey(2)
	pub := func(tenant, name string) { b.PublishFor(tenant, "test."+name, map[string]any{"name": name}) }
	names := func(s *sse, k int) []string {
		var out []string
		var prev uint64
		for i := 0; i < k; i++ {
			f := s.next("test.")
			id, ours, err := b.ParseID(f.id)
			if err != nil || !ours || id <= prev {
				t.Fatalf("event %q has id %q after %d (%v)", f.event, f.id, prev, err)
			}
			prev = id
			out = append(out, strings.TrimPrefix(f.event, "test."))
		}
		return out
	}

	first := rs.openEvents(t, "ann-token", "")
	pub("", "s1")
	pub(ann, "a1")
	pub(bob, "b1")
	if got := strings.Join(names(first, 2), " "); got != "s1 a1" {
		t.Fatalf("ann's stream: %s", got)
	}
	pub(ann, "a2")
	last := first.next("test.a2").id
	first.close()

	pub(ann, "a3")
	pub(bob, "b2")
	pub("", "s2")
	pub(ann, "a4")
	header, query := rs.openEvents(t, "ann-token", "h:"+last), rs.openEvents(t, "ann-token", "q:"+last)
	pub(ann, "live")
	for how, s := range map[string]*sse{"Last-Event-ID": header, "?last_event_id=": query} {
		if got := strings.Join(names(s, 4), " "); got != "a3 s2 a4 live" {
			t.Errorf("resumed with %s: %s, want the missed events, then the new one", how, got)
		}
		s.close()
	}
	s := rs.openEvents(t, "bob-token", "h:"+last)
	if got := strings.Join(names(s, 2), " "); got != "b2 s2" {
		t.Errorf("bob resumed: %s", got)
	}
	s.close()

	for i := 0; i < replay; i++ {
		pub(bob, "flood")
	}
	epoch, _, _ := strings.Cut(last, "-")
	other := "0" // another run's epoch
	if epoch[0] == '0' {
		other = "1"
	}
	for _, id := range []string{last, other + epoch[1:] + "-1"} {
		s := rs.openEvents(t, "ann-token", "h:"+id)
		m := s.next(EventMissed)
		if at, ours, err := b.ParseID(m.id); err != nil || !ours || at == 0 || !strings.Contains(m.data, id) {
			t.Errorf("resuming from %s: %+v (%v)", id, m, err)
		}
		pub(ann, "after")
		if got := names(s, 1)[0]; got != "after" {
			t.Errorf("after events.missed: %s, want the new event only", got)
		}
		s.close()
	}

	bad := rs.openEvents(t, "ann-token", "h:yesterday")
	body, _ := io.ReadAll(bad.res.Body)
	if bad.res.StatusCode != 400 || !strings.Contains(string(body), `\"yesterday\" is not an event id`) {
		t.Errorf("a malformed Last-Event-ID: %d %s", bad.res.StatusCode, body)
	}
}
