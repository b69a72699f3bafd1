package agent

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/pipeline"
	"github.com/podcode/podcode/plugin"
)

// Compaction: when the history the model would see passes compactAt of the
// model's context window, the older messages (all but the recent ones, cut
// at a user message so that no tool call is separated from its result) are
// replaced by a summary message.
const (
	compactAt  = 0.8
	keepRecent = 6
	summaryCap = 4000 // characters
)

// history returns what the model sees: the latest summary, then every
// message after what it summarizes. It is read from the store once a turn
// and kept up to date as messages are stored. It compacts first when
// needed, or, with force (the provider refused the history as too long
// for the model's context), whenever there is something to compact; a
// forced compaction that cannot be made is a noCompaction saying why.
func (t *turn) history(ctx context.Context, force bool) ([]chat.Message, error) {
	if t.hist == nil {
		var err error
		if t.hist, err = t.a.Store.Recent(ctx, t.sess.ID); err != nil {
			return nil, err
		}
	}
	msgs := t.hist
	limit := t.model.Limit.Context
	if !force && (limit <= 0 || estimate(msgs) < int(float64(limit)*compactAt)) {
		return msgs, nil
	}
	// The context hooks gave at the start of the session stays as it is.
	lead := 0
	for lead < len(msgs) && msgs[lead].Role == chat.RoleContext {
		lead++
	}
	cut, midTurn := cutPoint(msgs)
	if cut <= lead {
		if force {
			return nil, noCompaction{"there is nothing left to compact"}
		}
		return msgs, nil
	}
	p := t.scope.Payload(plugin.HookPreCompact)
	p.Extra["messages"] = cut - lead
	rep, err := t.a.App.Hooks.DispatchReport(ctx, p)
	if err != nil {
		return nil, err
	}
	if rep.Result.Decision == plugin.DecisionDeny {
		t.a.App.Log.Info("agent: a PreCompact hook declined compaction", "session", t.sess.ID, "message", rep.Result.Message)
		if force {
			return nil, noCompaction{"a PreCompact hook declined compaction (" + cmp.Or(rep.Result.Message, "no reason given") + ")"}
		}
		return msgs, nil
	}
	summary := &chat.Message{Role: chat.RoleSummary, Text: summarize(msgs[lead:cut], midTurn), Through: msgs[cut-1].Seq, Hooks: pipeline.LifecycleRuns(rep)}
	if err := t.store(ctx, summary); err != nil {
		return nil, err
	}
	post := t.scope.Payload(plugin.HookPostCompact)
	post.Extra["messages"] = cut - lead
	if rep, err := t.a.App.Hooks.DispatchReport(ctx, post); err == nil {
		summary.Hooks = append(summary.Hooks, pipeline.LifecycleRuns(rep)...)
		t.update(ctx, summary)
	}
	t.a.App.Bus.PublishFor(t.sess.Tenant, EventCompacted, map[string]any{"sessionID": t.sess.ID, "summarized": cut - lead})
	t.hist = append(append(append([]chat.Message{}, msgs[:lead]...), *summary), msgs[cut:]...)
	return t.hist, nil
}

// noCompaction is a forced compaction that could not be made, and why.
type noCompaction struct{ why string }

func (e noCompaction) Error() string { return e.why }

// cutPoint is where the recent messages start: a user message with at
// least keepRecent messages from it on; failing one (a single turn of many
// tool calls), an assistant message with as many after it (midTurn), before
// which every call has its result, since results follow their calls. 0
// when there is neither.
func cutPoint(msgs []chat.Message) (cut int, midTurn bool) {
	for i := len(msgs) - keepRecent; i > 0; i-- {
		if msgs[i].Role == chat.RoleUser {
			return i, false
		}
	}
	for i := len(msgs) - keepRecent; i > 0; i-- {
		if msgs[i].Role == chat.RoleAssistant {
			return i, true
		}
	}
	return 0, false
}

// promptCap bounds the prompt a summary made mid-turn keeps whole.
const promptCap = 16 << 10

// estimate counts about four characters a token.
func estimate(msgs []chat.Message) int {
	n := 0
	for _, m := range msgs {
		n += m.Size() + 16
	}
	return n / 4
}

// summarize writes a plain summary of msgs: what was asked, which tools
// ran with what outcome, what was answered; each line shortened, the whole
// capped. With midTurn (msgs end inside the turn under way), the turn's
// prompt, the last user message, is kept whole (up to promptCap), since
// the model is still working on it. It needs no model, so it works offline
// and never fails.
func summarize(msgs []chat.Message, midTurn bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Summary of %d earlier messages:\n", len(msgs))
	if midTurn {
		for i := len(msgs) - 1; i >= 0; i-- {
			if msgs[i].Role == chat.RoleUser {
				prompt := msgs[i].Text
				if len(prompt) > promptCap {
					prompt = strings.ToValidUTF8(prompt[:promptCap], "") + "…"
				}
				fmt.Fprintf(&b, "The request being worked on, in full:\n%s\n\nWhat happened before and since:\n", prompt)
				break
			}
		}
	}
	for _, m := range msgs {
		var line string
		switch m.Role {
		case chat.RoleUser:
			line = "- the user asked: " + chat.Shorten(m.Text, 300)
		case chat.RoleAssistant:
			var tools []string
			for _, c := range m.ToolCalls {
				tools = append(tools, c.Tool)
			}
			switch {
			case len(tools) > 0:
				line = "- the assistant called " + strings.Join(tools, ", ")
			case m.Text != "":
				line = "- the assistant answered: " + chat.Shorten(m.Text, 300)
			}
		case chat.RoleTool:
			if m.Result != nil {
				state := "returned"
				if m.Result.IsError {
					state = "failed"
				}
				line = fmt.Sprintf("- %s %s: %s", m.Result.Tool, state, chat.Shorten(m.Result.Output, 200))
			}
		case chat.RoleSummary:
			line = chat.Shorten(m.Text, 1000)
		case chat.RoleContext:
			line = "- hooks added: " + chat.Shorten(m.Text, 300)
		}
		if line == "" {
			continue
		}
		if b.Len()+len(line) > summaryCap {
			b.WriteString("- …\n")
			break
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
