package openaitest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Brief is what a Responder sees of one message of a request: its role
// and, for a tool message, the call it answers.
type Brief struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id,omitempty"`
}

// Responder decides the answer to one request from its messages. It is
// called from the connections' goroutines at once, so it must be safe for
// concurrent use; it should be cheap, since its time is the model's.
type Responder func(msgs []Brief) Answer

// Exchange is the timing of one request as the model saw it.
type Exchange struct {
	Arrived  time.Time // the request's headers were read
	Answered time.Time // the whole response was ready for its one write
	// Replied is the call the request's last message answers, when that
	// message is a tool message; "" otherwise.
	Replied string
	Calls   []string // the call IDs of the answer
}

// StreamServer is an OpenAI-compatible chat-completions endpoint for
// benchmarks, where the model's own time must not blur the server's: a
// plain HTTP/1.1 server on a loopback TCP listener (keep-alive, no
// net/http server in between) that answers each request with a streamed
// completion in the real wire format, written with TCP_NODELAY in one
// write, headers and body together. A response split over several small
// writes meets the client's delayed ACK and waits tens of milliseconds
// for it, which would be counted as the server's time.
//
// Unlike Server it does not check the tool-call rules: a Responder that
// needs them sees the roles and call IDs. Its lifecycle: NewStreamServer
// listens and serves until Close, which closes the listener and every
// connection and waits for their goroutines.
type StreamServer struct {
	// URL is the base URL, to put in provider.<id>.options.baseURL.
	URL string

	respond Responder
	ln      net.Listener
	wg      sync.WaitGroup

	mu        sync.Mutex
	conns     map[net.Conn]bool
	exchanges []Exchange
	calls     int
	accepted  int
	closed    bool
}

// NewStreamServer starts a StreamServer on a free loopback port.
func NewStreamServer(respond Responder) (*StreamServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("openaitest: listening on loopback: %w", err)
	}
	s := &StreamServer{URL: "http://" + ln.Addr().String() + "/v1", respond: respond, ln: ln, conns: map[net.Conn]bool{}}
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Close stops the server and waits until its goroutines have returned.
func (s *StreamServer) Close() error {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	return err
}

// Exchanges returns the requests answered since the last Reset, in the
// order their answers were written.
func (s *StreamServer) Exchanges() []Exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Exchange(nil), s.exchanges...)
}

// Accepted returns how many connections the server has accepted: as
// many as requests when the client keeps none alive.
func (s *StreamServer) Accepted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accepted
}

// Reset forgets the exchanges so far.
func (s *StreamServer) Reset() {
	s.mu.Lock()
	s.exchanges = nil
	s.mu.Unlock()
}

func (s *StreamServer) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			c.Close()
			return
		}
		s.conns[c] = true
		s.accepted++
		s.mu.Unlock()
		s.wg.Add(1)
		go s.serveConn(c)
	}
}

func (s *StreamServer) serveConn(c net.Conn) {
	defer s.wg.Done()
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.Close()
	}()
	if tc, ok := c.(*net.TCPConn); ok {
		tc.SetNoDelay(true) // Go's default, but the figures depend on it
	}
	r := bufio.NewReader(c)
	var out []byte
	for {
		req, err := http.ReadRequest(r)
		if err != nil {
			return
		}
		arrived := time.Now()
		body, err := io.ReadAll(io.LimitReader(req.Body, 64<<20))
		req.Body.Close()
		if err != nil {
			return
		}
		var ex Exchange
		out, ex = s.answer(out[:0], req, body)
		ex.Arrived = arrived
		// Recorded before the write, so that a client that has read the
		// answer finds its exchange recorded.
		ex.Answered = time.Now()
		s.mu.Lock()
		s.exchanges = append(s.exchanges, ex)
		s.mu.Unlock()
		if _, err := c.Write(out); err != nil {
			return
		}
		if req.Close {
			return
		}
	}
}

// answer renders the whole response to req into out.
func (s *StreamServer) answer(out []byte, req *http.Request, body []byte) ([]byte, Exchange) {
	var ex Exchange
	if req.Method != http.MethodPost || req.URL.Path != "/v1/chat/completions" {
		return appendResponse(out, http.StatusNotFound, "application/json", []byte(`{"error":{"message":"not found"}}`)), ex
	}
	var in struct {
		Messages []Brief `json:"messages"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return appendResponse(out, http.StatusBadRequest, "application/json",
			[]byte(`{"error":{"message":"We could not parse the JSON body of your request.","type":"invalid_request_error"}}`)), ex
	}
	if n := len(in.Messages); n > 0 && in.Messages[n-1].Role == "tool" {
		ex.Replied = in.Messages[n-1].ToolCallID
	}
	a := s.respond(in.Messages)
	a.Calls = append([]Call(nil), a.Calls...)
	s.mu.Lock()
	for i := range a.Calls {
		s.calls++
		if a.Calls[i].ID == "" {
			a.Calls[i].ID = "call_" + strconv.Itoa(s.calls)
		}
		ex.Calls = append(ex.Calls, a.Calls[i].ID)
	}
	s.mu.Unlock()
	return appendResponse(out, http.StatusOK, "text/event-stream", AppendStream(nil, a)), ex
}

func appendResponse(out []byte, status int, contentType string, body []byte) []byte {
	out = fmt.Appendf(out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nCache-Control: no-cache\r\nContent-Length: %d\r\n\r\n",
		status, http.StatusText(status), contentType, len(body))
	return append(out, body...)
}

// ErrNoExchange is returned by Gaps when an exchange answers a call the
// server never made.
var ErrNoExchange = errors.New("openaitest: a request answers a call this server did not make")

// Gaps returns, for each request that answers a tool call, the time from
// the write of the answer that made the call to the request's arrival:
// what the client spent between two model calls (the tool call, its
// hooks, storing, building the next request), as the model sees it.
func Gaps(exchanges []Exchange) ([]time.Duration, error) {
	made := map[string]time.Time{}
	for _, ex := range exchanges {
		for _, id := range ex.Calls {
			made[id] = ex.Answered
		}
	}
	var gaps []time.Duration
	for _, ex := range exchanges {
		if ex.Replied == "" {
			continue
		}
		at, ok := made[ex.Replied]
		if !ok {
			return gaps, fmt.Errorf("%w: %q", ErrNoExchange, ex.Replied)
		}
		gaps = append(gaps, ex.Arrived.Sub(at))
	}
	return gaps, nil
}
