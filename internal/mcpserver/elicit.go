package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/guard"
)

// canElicit reports whether ss's client said it answers elicitation
// requests in a form (not only in URL mode), on a protocol that lets a server ask while it serves
// a request (before 2026-07-28, whose calls must return their questions
// instead: multi round-trip requests, SEP-2322, which Podcode does not
// make yet; such a client's calls are refused as with no one to ask).
func canElicit(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	if p == nil || p.Capabilities == nil || p.Capabilities.Elicitation == nil || p.ProtocolVersion >= "2026-07-28" {
		return false
	}
	// {} is forms (as before modes were named); URL mode alone is not.
	e := p.Capabilities.Elicitation
	return e.Form != nil || e.URL == nil
}

// allowSchema is the form of a permission question: one yes/no field.
var allowSchema = json.RawMessage(`{"type":"object","properties":{"allow":{"type":"boolean","title":"Allow",` +
	`"description":"Let the tool run with these arguments","default":false}},"required":["allow"]}`)

// elicitAsker puts a call's questions to the MCP client that made the
// call, as elicitations: a permission question as a yes/no form, a form
// question as its form; the client's user answers them as the API's or the
// terminal's would. Accepting with allow true lets the call
// run; anything else (allow false, decline, cancel) refuses it, and a
// client that does not answer is asked no longer than the guard's
// AskTimeout.
type elicitAsker struct {
	s  *Server
	ss *mcp.ServerSession
}

// AskForm passes a form question (an MCP server Podcode uses asks its
// user, or a plugin's tool does) on to the client as an elicitation of the
// same form, saying who asks; the answer is completed with the form's
// defaults and checked against it (guard.Form.Complete) by whoever asked.
func (a elicitAsker) AskForm(ctx context.Context, q guard.Question) (guard.Answer, error) {
	msg := q.Form.Message
	if q.Form.Server != "" {
		msg = fmt.Sprintf("%s asks, through Podcode: %s", q.Form.Server, msg)
	}
	res, err := a.ss.Elicit(ctx, &mcp.ElicitParams{Message: a.s.app.Redact.String(msg), RequestedSchema: q.Form.Requested()})
	if err != nil {
		return guard.Answer{}, fmt.Errorf("the MCP client did not answer the form: %w", err)
	}
	return guard.Answer{Action: res.Action, Content: res.Content}, nil
}

func (a elicitAsker) Ask(ctx context.Context, q guard.Question) (bool, error) {
	args, _ := json.Marshal(q.Args)
	msg := fmt.Sprintf("Podcode asks: may %s run with %s?", q.Tool, chat.Shorten(string(args), 2000))
	if q.Reason != "" {
		msg += " (" + q.Reason + ")"
	}
	res, err := a.ss.Elicit(ctx, &mcp.ElicitParams{Message: a.s.app.Redact.String(msg), RequestedSchema: allowSchema})
	if err != nil {
		return false, fmt.Errorf("the MCP client did not answer the permission question: %w", err)
	}
	allow, _ := res.Content["allow"].(bool)
	return res.Action == "accept" && allow, nil
}
