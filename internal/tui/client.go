package tui

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/server"
	"github.com/podcode/podcode/internal/store"
)

// Client is a client of Podcode's HTTP API: the chat's one way to the
// agent, whether the server runs in this process or elsewhere (--attach).
type Client struct {
	Base  string // "http://127.0.0.1:4096", no trailing slash
	Token string // sent as Authorization: Bearer; "" for none
	HTTP  *http.Client
}

// APIError is an answer other than 2xx, with the API's message.
type APIError struct {
	Status  int
	Message string
}

func (e *APIError) Error() string { return fmt.Sprintf("%s (HTTP %d)", e.Message, e.Status) }

// maxAnswer bounds an answer read whole (a session's messages).
const maxAnswer = 64 << 20

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

func (c *Client) request(ctx context.Context, method, path string, body any) (*http.Request, error) {
	var r io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.Base+path, r)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	return req, nil
}

// do sends a request and decodes the answer into out (nil: dropped).
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	req, err := c.request(ctx, method, path, body)
	if err != nil {
		return err
	}
	res, err := c.httpClient().Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxAnswer))
	if err != nil {
		return err
	}
	if res.StatusCode/100 != 2 {
		var e server.ErrorBody
		if json.Unmarshal(data, &e) != nil || e.Error == "" {
			e.Error = strings.TrimSpace(string(data))
		}
		return &APIError{Status: res.StatusCode, Message: e.Error}
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: the answer is not what the API gives: %w", method, path, err)
	}
	return nil
}

// NewSession creates a session.
func (c *Client) NewSession(ctx context.Context, title string) (store.Session, error) {
	var s store.Session
	err := c.do(ctx, "POST", "/sessions", server.CreateSession{Title: title}, &s)
	return s, err
}

// Sessions lists the sessions, newest first.
func (c *Client) Sessions(ctx context.Context) ([]store.Session, error) {
	var list []store.Session
	err := c.do(ctx, "GET", "/sessions", nil, &list)
	return list, err
}

// Session is one session.
func (c *Client) Session(ctx context.Context, id string) (store.Session, error) {
	var s store.Session
	err := c.do(ctx, "GET", "/sessions/"+url.PathEscape(id), nil, &s)
	return s, err
}

// Messages are a session's messages, in order.
func (c *Client) Messages(ctx context.Context, id string) ([]chat.Message, error) {
	var list []chat.Message
	err := c.do(ctx, "GET", "/sessions/"+url.PathEscape(id)+"/messages", nil, &list)
	return list, err
}

// Send starts a turn of the session with text; its progress comes on
// the event stream.
func (c *Client) Send(ctx context.Context, id, text string) error {
	return c.do(ctx, "POST", "/sessions/"+url.PathEscape(id)+"/messages", server.PostMessage{Text: text, Async: true}, nil)
}

// Cancel cancels the session's running turn.
func (c *Client) Cancel(ctx context.Context, id string) error {
	return c.do(ctx, "POST", "/sessions/"+url.PathEscape(id)+"/cancel", nil, nil)
}

// Answer answers a permission question.
func (c *Client) Answer(ctx context.Context, question string, allow bool) error {
	return c.do(ctx, "POST", "/permissions/"+url.PathEscape(question), server.PermissionReply{Allow: allow}, nil)
}

// Commands are the slash commands a message may invoke.
func (c *Client) Commands(ctx context.Context) ([]server.Command, error) {
	var list []server.Command
	err := c.do(ctx, "GET", "/commands", nil, &list)
	return list, err
}

// maxFrame bounds one event's data: a stored message with a large tool
// result is the largest.
const maxFrame = 16 << 20

// Follow reads the event stream until ctx ends, calling fn with each
// event, in order. A stream that breaks is resumed after a second with
// the last id seen (Last-Event-ID), so no event is missed or repeated; a
// refusal (a wrong token) ends it with the error.
func (c *Client) Follow(ctx context.Context, fn func(bus.Event)) error {
	last := ""
	for {
		err := c.follow(ctx, &last, fn)
		var apiErr *APIError
		if ctx.Err() != nil || errors.As(err, &apiErr) || errors.Is(err, bufio.ErrTooLong) {
			return err // resuming would meet the same refusal, or the same event
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

func (c *Client) follow(ctx context.Context, last *string, fn func(bus.Event)) error {
	req, err := c.request(ctx, "GET", "/events", nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "text/event-stream")
	if *last != "" {
		req.Header.Set("Last-Event-ID", *last)
	}
	res, err := c.httpClient().Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		data, _ := io.ReadAll(io.LimitReader(res.Body, 4096))
		return &APIError{Status: res.StatusCode, Message: strings.TrimSpace(string(data))}
	}
	return readEvents(res.Body, last, fn)
}

// readEvents reads Server-Sent Events from r, calling fn with each whose
// data is an event's JSON (others are left out) and keeping in last the
// id of the last one read. It returns when r ends (io.ErrUnexpectedEOF:
// the stream never ends by itself) or fails, or at a frame past maxFrame.
func readEvents(r io.Reader, last *string, fn func(bus.Event)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxFrame)
	var id string
	var data strings.Builder
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if data.Len() > 0 {
				var ev bus.Event
				if json.Unmarshal([]byte(data.String()), &ev) == nil {
					fn(ev)
				}
				if id != "" {
					*last = id
				}
			}
			id = ""
			data.Reset()
		case strings.HasPrefix(line, "id:"):
			id = strings.TrimSpace(line[3:])
		case strings.HasPrefix(line, "data:"):
			if data.Len() > 0 {
				data.WriteByte('\n')
			}
			data.WriteString(strings.TrimPrefix(line[5:], " "))
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return fmt.Errorf("an event of the stream is larger than %d MiB: %w", maxFrame>>20, err)
	} else if err != nil {
		return err
	}
	return io.ErrUnexpectedEOF
}
