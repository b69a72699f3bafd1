package mcpclient

import (
	"context"
	"fmt"
	"net/url"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/safetext"
)

// elicit answers elicitation/create. A form goes to whoever answers the
// permission questions of the session whose call to this server is in
// flight (Options.Ask: the web page and the API show the form, a yes/no
// asker accepts the defaults or declines); the values are completed with
// the schema's defaults and checked against it before they are sent. A
// URL goes to the same person as a yes/no question (elicitURL). It
// declines, saying why in the log: a form Podcode cannot show
// (guard.DecodeForm), a URL it will not show, no call in flight or nobody
// to ask, and an answer that does not fit the form.
func (s *Server) elicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	p := req.Params
	decline := &sdk.ElicitResult{Action: guard.Decline}
	if p == nil {
		return decline, nil
	}
	if p.Mode == "url" {
		return s.elicitURL(ctx, p)
	}
	form, err := guard.DecodeForm(s.spec.Name, p.Message, p.RequestedSchema)
	if err != nil {
		s.log.Warn("mcp: the server asked for a form Podcode cannot show: declined", "error", err.Error())
		return decline, nil
	}
	actx, call, done := s.onBehalf(ctx)
	defer done()
	if call == nil || s.set.opts.Ask == nil {
		s.log.Info("mcp: the server asked the user a question with no call of its in flight, so nobody to ask: declined", "message", chat.Shorten(p.Message, 200))
		return decline, nil
	}
	q := guard.NewFormQuestion(chat.ScopeFrom(actx).SessionID, call.tool, form)
	log := s.log.With("tool", call.tool, "session", q.SessionID, "question", q.ID)
	log.Info("mcp: the server asks the user", "fields", len(form.Fields))
	ans, err := s.set.opts.Ask(actx, q)
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err() // the server gave up on the request
	case err != nil:
		log.Info("mcp: the server's question got no answer: declined", "error", err.Error())
		return decline, nil
	}
	switch ans.Action {
	case guard.Accept:
		content, err := form.Complete(ans.Content)
		if err != nil {
			log.Warn("mcp: the answer does not fit the server's form: declined", "error", err.Error())
			return decline, nil
		}
		log.Info("mcp: the user accepted the server's form")
		return &sdk.ElicitResult{Action: guard.Accept, Content: content}, nil
	case guard.Cancel:
		log.Info("mcp: the user dismissed the server's form")
		return &sdk.ElicitResult{Action: guard.Cancel}, nil
	}
	log.Info("mcp: the user declined the server's form")
	return decline, nil
}

// MaxElicitURL bounds the URL of an elicitation in URL mode, in bytes.
const MaxElicitURL = 2048

// elicitURL answers an elicitation in URL mode: the server wants the user
// to open a page of its (a sign-in, a payment) outside Podcode. The person
// who answers the session's questions is asked, as a yes/no question
// naming the server, the page's host and the whole URL; yes is accept
// (they open it themselves: Podcode never opens or fetches it, on the
// server's machine or elsewhere), no declines. The URL must be https (or
// http on loopback), without user:password, at most MaxElicitURL bytes;
// otherwise, and with no call in flight or nobody to ask, it declines.
func (s *Server) elicitURL(ctx context.Context, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	actx, call, done := s.onBehalf(ctx)
	defer done()
	if call == nil {
		s.log.Info("mcp: the server asked the user to open a page with no call of its in flight, so nobody to ask: declined")
		return &sdk.ElicitResult{Action: guard.Decline}, nil
	}
	return s.askPage(ctx, actx, call, p)
}

// askPage asks the person of call's session about page p (see elicitURL),
// in actx; req is the request's context (the server may give up).
func (s *Server) askPage(req, actx context.Context, call *inflight, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	decline := &sdk.ElicitResult{Action: guard.Decline}
	u, err := pageURL(p.URL)
	if err != nil {
		s.log.Warn("mcp: the server asked the user to open a page Podcode will not show: declined", "error", err.Error())
		return decline, nil
	}
	if s.set.opts.Ask == nil {
		s.log.Info("mcp: the server asked the user to open a page, and nobody can be asked: declined", "host", u.Host)
		return decline, nil
	}
	q := guard.Question{ID: chat.NewID("perm"), SessionID: chat.ScopeFrom(actx).SessionID, Tool: call.tool,
		Args: map[string]any{"server": s.spec.Name, "url": u.String()},
		// The URL before the server's words, which are quoted: its message
		// cannot pass for Podcode's.
		Reason: fmt.Sprintf("the MCP server %s asks you to open %s, a page of %s (yes: you open it yourself, Podcode does not; no declines); its message: %q",
			s.spec.Name, u.String(), u.Host, chat.Shorten(p.Message, 300))}
	log := s.log.With("tool", call.tool, "session", q.SessionID, "question", q.ID, "host", u.Host,
		"elicitation", safetext.Line(chat.Shorten(p.ElicitationID, 200)))
	log.Info("mcp: the server asks the user to open a page")
	ans, err := s.set.opts.Ask(actx, q)
	switch {
	case req.Err() != nil:
		return nil, req.Err()
	case err != nil:
		log.Info("mcp: the server's question got no answer: declined", "error", err.Error())
		return decline, nil
	case ans.Action == guard.Accept:
		log.Info("mcp: the user agreed to open the server's page")
		return &sdk.ElicitResult{Action: guard.Accept}, nil
	case ans.Action == guard.Cancel:
		log.Info("mcp: the user dismissed the server's page")
		return &sdk.ElicitResult{Action: guard.Cancel}, nil
	}
	log.Info("mcp: the user declined to open the server's page")
	return decline, nil
}

// pageURL is the URL of a page a server asks the user to open, if
// Podcode will show it (see elicitURL).
func pageURL(raw string) (*url.URL, error) {
	if len(raw) > MaxElicitURL {
		return nil, fmt.Errorf("the page's URL is %d bytes, more than %d", len(raw), MaxElicitURL)
	}
	// Printable ASCII only: a host in another script must come as
	// punycode (xn--…), which shows what the browser opens, where
	// Unicode could look like another host; and no bidi control can
	// reorder what is shown.
	for i := 0; i < len(raw); i++ {
		if raw[i] <= ' ' || raw[i] >= 0x7f {
			return nil, fmt.Errorf("the page's URL has a byte that is not printable ASCII (%#x at %d)", raw[i], i)
		}
	}
	u, err := secureURL("the page", raw)
	if err == nil && u.User != nil {
		err = fmt.Errorf("the page %q carries a user name or password", safetext.Line(chat.Shorten(raw, 200)))
	}
	return u, err
}

// elicitationComplete is the server's word that a page it asked the user
// to open (elicitURL) was completed: logged, and a call waiting for it
// (pagesFirst) goes on.
func (s *Server) elicitationComplete(_ context.Context, req *sdk.ElicitationCompleteNotificationRequest) {
	if req.Params == nil || req.Params.ElicitationID == "" || len(req.Params.ElicitationID) > maxPageID {
		return
	}
	s.log.Info("mcp: the server says the page the user opened is done", "elicitation", safetext.Line(chat.Shorten(req.Params.ElicitationID, 200)))
	s.pages.complete(req.Params.ElicitationID)
}
