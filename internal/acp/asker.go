package acp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/safetext"
	"github.com/podcode/podcode/internal/store"
)

// The options of every permission question.
const (
	optionAllow  = "allow"
	optionReject = "reject"
)

var _ guard.Asker = (*Server)(nil)

// Ask implements guard.Asker: the question goes to the client as
// session/request_permission about the call under way (a sub-agent's
// question is about the task call that runs it; a UserPromptSubmit
// question about a call of its own, announced first). Allow once runs
// the call; reject once refuses it; an error or a cancelled outcome
// refuses it too, saying why, as every unanswered question is.
func (s *Server) Ask(ctx context.Context, q guard.Question) (bool, error) {
	return s.ask(ctx, q, "Allow", "Reject")
}

// ask is Ask with the options' names.
func (s *Server) ask(ctx context.Context, q guard.Question, allowName, rejectName string) (bool, error) {
	sess, sub := s.owner(ctx, q.SessionID)
	if sess == nil {
		return false, fmt.Errorf("%w (session %s is not one of the editor's)", guard.ErrNobodyToAsk, q.SessionID)
	}
	sess.mu.Lock()
	tc := sess.calls[sess.current]
	// A question about the call that comes while it runs is not its
	// permission (that one is asked before it runs): the call's MCP
	// server asks it (a page to open, its sampling), and what it asks is
	// the reason. Another tool's question then (a plugin's process) is not.
	during := tc != nil && !tc.since.IsZero() && q.Reason != "" && q.Tool == tc.tool
	if tc != nil && (q.Form != nil || sub || during) {
		tc.retitled = true // the question's title below is the call's until its end
	}
	sess.mu.Unlock()
	var call sdk.ToolCallUpdate
	ownCall := ""
	switch {
	case q.Tool == "prompt" && q.Args == nil: // UserPromptSubmit asked
		ownCall = q.ID
		title := "Confirm the prompt"
		if q.Reason != "" {
			title += " (" + q.Reason + ")"
		}
		s.update(sess.id, sdk.StartToolCall(sdk.ToolCallId(q.ID), title, sdk.WithStartKind(sdk.ToolKindOther), sdk.WithStartStatus(sdk.ToolCallStatusPending)))
		call = sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(q.ID), Title: sdk.Ptr(title)}
	case q.Form != nil && tc != nil: // an MCP server's form, during the call the client knows
		call = sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(tc.id), Title: sdk.Ptr(safetext.Line(q.Form.Asks(200))),
			RawInput: q.Args, Content: []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(safetext.Line(q.Reason)))}}
	case during && !sub:
		call = sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(tc.id), Title: sdk.Ptr(safetext.Line(chat.Shorten(q.Reason, 300))),
			RawInput: q.Args, Content: []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(safetext.Line(q.Reason)))}}
	case tc != nil && !sub:
		call = sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(tc.id), Title: sdk.Ptr(tc.title), Kind: sdk.Ptr(tc.kind),
			Locations: tc.where, RawInput: q.Args, Content: preview(tc.tool, q.Args, tc.where)}
	case tc != nil: // a sub-agent's call, under the task call the client knows
		call = sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(tc.id), Title: sdk.Ptr("Sub-agent wants to run " + q.Tool), RawInput: q.Args}
	default:
		ownCall = q.ID
		title := q.Tool + " wants to run"
		s.update(sess.id, sdk.StartToolCall(sdk.ToolCallId(q.ID), title, sdk.WithStartKind(sdk.ToolKindOther),
			sdk.WithStartStatus(sdk.ToolCallStatusPending), sdk.WithStartRawInput(q.Args)))
		call = sdk.ToolCallUpdate{ToolCallId: sdk.ToolCallId(q.ID), Title: sdk.Ptr(title), RawInput: q.Args}
	}
	log := s.log.With("session", q.SessionID, "tool", q.Tool, "question", q.ID)
	log.Info("acp: asking the editor for permission", "reason", q.Reason)
	resp, err := s.peer().RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(sess.id), ToolCall: call,
		Options: []sdk.PermissionOption{
			{Kind: sdk.PermissionOptionKindAllowOnce, Name: allowName, OptionId: optionAllow},
			{Kind: sdk.PermissionOptionKindRejectOnce, Name: rejectName, OptionId: optionReject},
		}})
	ok := false
	switch {
	case ctx.Err() != nil:
		err = ctx.Err()
	case err != nil:
		err = fmt.Errorf("the editor did not answer the permission question: %w", rpcError(err))
	case resp.Outcome.Selected != nil:
		ok = resp.Outcome.Selected.OptionId == optionAllow
	default:
		err = fmt.Errorf("%w (%w)", guard.ErrNobodyToAsk, errCancelled)
	}
	if ownCall != "" { // the question's own call ends with its answer
		status := sdk.ToolCallStatusCompleted
		if !ok {
			status = sdk.ToolCallStatusFailed
		}
		s.update(sess.id, sdk.UpdateToolCall(sdk.ToolCallId(ownCall), sdk.WithUpdateStatus(status)))
	}
	if err != nil {
		log.Info("acp: no answer: refused", "error", err.Error())
		return false, err
	}
	log.Info("acp: answered", "allowed", ok)
	return ok, nil
}

// errCancelled is a question the editor cancelled (its outcome
// "cancelled", as when the prompt turn is cancelled).
var errCancelled = errors.New("the editor cancelled the question")

var _ guard.FormAsker = (*Server)(nil)

// AskForm implements guard.FormAsker for an MCP server's form
// (elicitation): session/request_permission can only pick an option, so
// the options are "Accept with the defaults" (the form's defaults, shown
// as the call's raw input, are the answer) and "Decline"; a cancelled
// question is Cancel. A form with a required field that has no default
// cannot be answered so: it is declined without asking.
func (s *Server) AskForm(ctx context.Context, q guard.Question) (guard.Answer, error) {
	if q.Form == nil {
		ok, err := s.Ask(ctx, q)
		if ok {
			return guard.Answer{Action: guard.Accept}, err
		}
		return guard.Answer{Action: guard.Decline}, err
	}
	if missing := q.Form.Unfilled(); len(missing) > 0 {
		s.log.Info("acp: an MCP server's form needs values without defaults, which the editor cannot be asked for: declined",
			"session", q.SessionID, "server", q.Form.Server, "fields", missing)
		return guard.Answer{Action: guard.Decline}, nil
	}
	ok, err := s.ask(ctx, q, "Accept with the defaults", "Decline")
	switch {
	case errors.Is(err, errCancelled):
		return guard.Answer{Action: guard.Cancel}, nil
	case err != nil:
		return guard.Answer{}, err
	case ok:
		return guard.Answer{Action: guard.Accept, Content: q.Form.Defaults()}, nil
	}
	return guard.Answer{Action: guard.Decline}, nil
}

// owner is the session of the connection a question of session id belongs
// to: id itself, or the nearest ancestor for a sub-agent's session (sub
// true).
func (s *Server) owner(ctx context.Context, id string) (sess *session, sub bool) {
	for depth := 0; depth < 16 && id != ""; depth++ {
		if sess := s.lookup(id); sess != nil {
			return sess, depth > 0
		}
		st, err := s.store.Session(context.WithoutCancel(ctx), store.DefaultTenant, id)
		if err != nil {
			if !errors.Is(err, store.ErrNotFound) {
				s.log.Warn("acp: could not read a session's parent", "session", id, "error", err.Error())
			}
			return nil, false
		}
		id = st.ParentID
	}
	return nil, false
}

// preview is what a question about an edit shows: the replacement as a
// diff of the file, so the person answering sees the change.
func preview(tool string, args map[string]any, where []sdk.ToolCallLocation) []sdk.ToolCallContent {
	old, _ := args["old_string"].(string)
	repl, _ := args["new_string"].(string)
	if tool != "edit" || len(where) == 0 || old == "" {
		return nil
	}
	return []sdk.ToolCallContent{sdk.ToolDiffContent(where[0].Path, repl, old)}
}
