package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
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
// payment). Podcode then, within the call:
//
//  1. reads the pages the error names (at most MaxPagesFirst, each in URL
//     mode), and waits for the server's word that each is done
//     (notifications/elicitation/complete), listening before asking;
//  2. asks about each page as an elicitation in URL mode is asked
//     (elicitURL: the person of the call's session, who opens it);
//  3. once every page was accepted and the server said each is done
//     (within PagesWait), sends the call again, once.
//
// A page declined, or not done in time, fails the call, saying so; the
// second answer is the call's, whatever it is.

// MaxPagesFirst bounds the pages one refused call may ask to be opened.
const MaxPagesFirst = 3

// PagesWait bounds how long a call waits for the server to say the pages
// it asked to be opened are done.
const PagesWait = 10 * time.Minute

// openPages are the server's page ids (elicitationId) that a call waits on,
// and those it said are done lately (a notification can come before the
// call listens). The zero value is ready.
type openPages struct {
	mu      sync.Mutex
	waiting map[string]chan struct{}
	done    map[string]time.Time
}

// maxDonePages bounds the ids kept as done with nobody waiting.
const maxDonePages = 64

// listen returns a channel closed when the server says page id is done
// (at once if it said so lately), and a func that stops listening.
func (p *openPages) listen(id string) (<-chan struct{}, func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.waiting == nil {
		p.waiting = map[string]chan struct{}{}
	}
	ch, ok := p.waiting[id]
	if !ok {
		ch = make(chan struct{})
		p.waiting[id] = ch
	}
	if _, said := p.done[id]; said {
		delete(p.done, id)
		select {
		case <-ch:
		default:
			close(ch)
		}
	}
	return ch, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.waiting[id] == ch {
			delete(p.waiting, id)
		}
	}
}

// complete is the server's word that page id is done.
func (p *openPages) complete(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ch, ok := p.waiting[id]; ok {
		select {
		case <-ch:
		default:
			close(ch)
		}
		return
	}
	if p.done == nil {
		p.done = map[string]time.Time{}
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
	p.done[id] = time.Now()
}

// pagesFirst reports whether err is the server's refusal of a call until
// pages are opened; if so, it has the pages asked about and waits for
// them (see above), and returns nil when the call may be sent again.
func (s *Server) pagesFirst(ctx context.Context, err error) (refused bool, _ error) {
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
		if p == nil || p.Mode != "url" {
			return true, fmt.Errorf("the MCP server %s wants pages opened before this call, and named something that is not a page", s.spec.Name)
		}
		if p.ElicitationID != "" {
			ch, stop := s.pages.listen(p.ElicitationID)
			defer stop()
			waits = append(waits, ch)
		}
	}
	for _, p := range data.Elicitations {
		res, err := s.elicitURL(ctx, p)
		switch {
		case err != nil:
			return true, err
		case res.Action != guard.Accept:
			return true, fmt.Errorf("the MCP server %s wants %s opened before this call, and it was not (%s)",
				s.spec.Name, safetext.Line(chat.Shorten(p.URL, 200)), res.Action)
		}
	}
	timer := time.NewTimer(PagesWait)
	defer timer.Stop()
	for _, ch := range waits {
		select {
		case <-ch:
		case <-ctx.Done():
			return true, ctx.Err()
		case <-timer.C:
			return true, fmt.Errorf("the MCP server %s did not say within %s that the pages it asked to be opened are done", s.spec.Name, PagesWait)
		}
	}
	s.log.Info("mcp: the pages the server asked to be opened are done: the call is sent again")
	return true, nil
}
