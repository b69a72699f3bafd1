package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/safetext"
)

// A server may refuse a tools/call until the user has opened pages of its
// (error -32042, URL elicitation required: a sign-in to a third party, a
// payment). Podcode then, within the call and its time limit (the server's
// timeout):
//
//  1. reads the pages the error names (1 to MaxPagesFirst, each in URL
//     mode with an id), and listens for the server's word that each is
//     done (notifications/elicitation/complete) before asking;
//  2. asks the person of the refused call's session about each page, as an
//     elicitation in URL mode is asked (askPage: they open it);
//  3. once every page was accepted and the server said each is done,
//     sends the call again, once.
//
// Anything else (no pages, too many, one not a page or without an id, one
// declined, the time limit) fails the call, saying so; the second answer
// is the call's, whatever it is.

// MaxPagesFirst bounds the pages one refused call may ask to be opened.
const MaxPagesFirst = 3

// openPages are the calls waiting for the server's word that a page is
// done, by the page's id (several calls may wait on one id: the ids are
// the server's), and the words that came while nobody waited, kept for
// doneFor (a notification can come before the call listens). The zero
// value is ready.
type openPages struct {
	mu      sync.Mutex
	waiting map[string][]chan struct{}
	done    map[string]time.Time
}

const (
	maxDonePages = 64               // words kept with nobody waiting
	doneFor      = 30 * time.Second // how long such a word is kept
	maxPageID    = 256              // a longer id is not a page's
)

// listen returns a channel closed when the server says page id is done
// (at once if it said so within doneFor), and a func that stops listening.
func (p *openPages) listen(id string) (<-chan struct{}, func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ch := make(chan struct{})
	if t, said := p.done[id]; said && time.Since(t) < doneFor {
		delete(p.done, id)
		close(ch)
		return ch, func() {}
	}
	if p.waiting == nil {
		p.waiting = map[string][]chan struct{}{}
	}
	p.waiting[id] = append(p.waiting[id], ch)
	return ch, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if rest := slices.DeleteFunc(p.waiting[id], func(c chan struct{}) bool { return c == ch }); len(rest) > 0 {
			p.waiting[id] = rest
		} else {
			delete(p.waiting, id)
		}
	}
}

// complete is the server's word that page id is done: every call waiting
// for it goes on; with none, it is kept for doneFor.
func (p *openPages) complete(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if chs, ok := p.waiting[id]; ok {
		for _, ch := range chs {
			close(ch)
		}
		delete(p.waiting, id)
		return
	}
	if p.done == nil {
		p.done = map[string]time.Time{}
	}
	now := time.Now()
	for k, t := range p.done {
		if now.Sub(t) >= doneFor {
			delete(p.done, k)
		}
	}
	if len(p.done) >= maxDonePages { // forget the oldest
		var oldest string
		for k, t := range p.done {
			if oldest == "" || t.Before(p.done[oldest]) {
				oldest = k
			}
		}
		delete(p.done, oldest)
	}
	p.done[id] = now
}

// pagesFirst reports whether err is the server's refusal of call until
// pages are opened; if so, it has the pages asked about and waits for
// them (see above), and returns nil when the call may be sent again.
func (s *Server) pagesFirst(ctx context.Context, call *inflight, err error) (refused bool, _ error) {
	var rpcErr *jsonrpc.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != sdk.CodeURLElicitationRequired {
		return false, nil
	}
	var data struct {
		Elicitations []*sdk.ElicitParams `json:"elicitations"`
	}
	if json.Unmarshal(rpcErr.Data, &data) != nil || len(data.Elicitations) == 0 || len(data.Elicitations) > MaxPagesFirst {
		return true, fmt.Errorf("the MCP server %s wants pages opened before this call, and named none Podcode can ask about (1 to %d pages in URL mode)",
			s.spec.Name, MaxPagesFirst)
	}
	var waits []<-chan struct{}
	for _, p := range data.Elicitations {
		if p == nil || p.Mode != "url" || p.ElicitationID == "" || len(p.ElicitationID) > maxPageID {
			return true, fmt.Errorf("the MCP server %s wants pages opened before this call, and named one that is not a page with an id", s.spec.Name)
		}
		ch, stop := s.pages.listen(p.ElicitationID)
		defer stop()
		waits = append(waits, ch)
	}
	for _, p := range data.Elicitations {
		res, err := s.askPage(ctx, ctx, call, p)
		switch {
		case err != nil:
			return true, err
		case res.Action != guard.Accept:
			return true, fmt.Errorf("the MCP server %s wants %s opened before this call, and it was not (%s)",
				s.spec.Name, safetext.Line(chat.Shorten(p.URL, 200)), res.Action)
		}
	}
	for _, ch := range waits {
		select {
		case <-ch:
		case <-ctx.Done():
			return true, ctx.Err()
		}
	}
	s.log.Info("mcp: the pages the server asked to be opened are done: the call is sent again", "tool", call.tool)
	return true, nil
}
