package mcpclient

import (
	"context"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/guard"
)

// elicit answers elicitation/create. A form goes to whoever answers the
// permission questions of the session whose call to this server is in
// flight (Options.Ask: the web page and the API show the form, a yes/no
// asker accepts the defaults or declines); the values are completed with
// the schema's defaults and checked against it before they are sent. It
// declines, saying why in the log: a URL-mode request (Podcode advertises
// forms only), a form Podcode cannot show (guard.DecodeForm), no call in flight
// or nobody to ask, and an answer that does not fit the form.
func (s *Server) elicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	p := req.Params
	decline := &sdk.ElicitResult{Action: guard.Decline}
	if p == nil {
		return decline, nil
	}
	if p.Mode == "url" {
		s.log.Info("mcp: the server asked the user to open a URL (elicitation in URL mode), which Podcode does not do: declined")
		return decline, nil
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
