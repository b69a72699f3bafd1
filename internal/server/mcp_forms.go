package server

import (
	"context"
	"errors"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/guard"
)

var _ guard.FormAsker = (*apiAsker)(nil)

// AskForm implements guard.FormAsker: a form question (an MCP server's
// elicitation during a call of an API turn) is published with its form
// (permission.asked's question.form) and answered with its values (POST
// /permissions/{id} with action and content, checked against the form
// before the question is let go). Other channels' questions go to next,
// which may show only yes/no (guard.AskForm).
func (a *apiAsker) AskForm(ctx context.Context, q guard.Question) (guard.Answer, error) {
	if chat.ScopeFrom(ctx).Channel != "api" {
		return guard.AskForm(ctx, a.next, q)
	}
	return a.ask(ctx, q)
}

// answer is the reply as the answer to a question with form (nil: a
// yes/no question, answered Accept for yes and Decline for no). For a
// form, allow true or action accept completes the values with the form's
// defaults and checks them (guard.Form.Complete); the error says what does
// not fit.
func (b PermissionReply) answer(form *guard.Form) (guard.Answer, error) {
	action := b.Action
	if action == "" {
		action = guard.Decline
		if b.Allow {
			action = guard.Accept
		}
	}
	if form == nil {
		if b.Content != nil {
			return guard.Answer{}, errors.New("the question has no form: answer it with allow (or action) alone")
		}
		if action != guard.Accept {
			action = guard.Decline
		}
		return guard.Answer{Action: action}, nil
	}
	if action != guard.Accept {
		return guard.Answer{Action: action}, nil
	}
	content, err := form.Complete(b.Content)
	if err != nil {
		return guard.Answer{}, err
	}
	return guard.Answer{Action: guard.Accept, Content: content}, nil
}
