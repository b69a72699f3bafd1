package acp

import (
	"context"
	"errors"
	"fmt"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/podcode/podcode/internal/guard"
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
	sess, sub := s.owner(ctx, q.SessionID)
	if sess == nil {
		return false, fmt.Errorf("%w (session %s is not one of the editor's)", guard.ErrNobodyToAsk, q.SessionID)
	}
	sess.mu.Lock()
	tc := sess.calls[sess.current]
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
			{Kind: sdk.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: optionAllow},
			{Kind: sdk.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: optionReject},
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
		err = fmt.Errorf("%w (the editor cancelled the question)", guard.ErrNobodyToAsk)
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
