package chat

import "slices"

// Every tool call a model made needs a result in the history: providers
// (OpenAI's rule, shared by the compatible servers) refuse a history in
// which an assistant message's tool calls are not each followed by a tool
// message, before any other message. A turn stores a result for every
// call, whatever happens to it (Unfinished); a crash can still leave calls
// without one, and those are closed when the session is next used
// (OpenCalls, and Paired for what is sent to a model).

// Why a call has a result that is not the tool's.
const (
	// WhyCancelled: the turn was cancelled while the call ran.
	WhyCancelled = "the call was cancelled before it finished (the turn was cancelled); what it did until then is unknown"
	// WhyNotRun: the turn was cancelled before the call started.
	WhyNotRun = "the call did not run: the turn was cancelled before it started"
	// WhyInterrupted: Podcode stopped (a crash, a kill) while the call ran.
	WhyInterrupted = "the call was interrupted: Podcode stopped before it returned (a crash or a kill); what it did until then is unknown"
)

// Unfinished is the tool message that answers call when the tool's own
// result never came: an error result saying why, marked interrupted.
func Unfinished(call ToolCall, why string) Message {
	return Message{Role: RoleTool, Status: StatusInterrupted,
		Result: &Result{CallID: call.ID, Tool: call.Tool, Title: call.Tool, Output: why, IsError: true}}
}

// OpenCalls returns the calls of the last assistant message of msgs that
// no tool message answers, when only tool messages follow it: the calls a
// stopped turn left open, which results appended now would answer in
// place. Calls left open further back (by an older Podcode) are not
// returned: results appended after later messages would answer nothing;
// Paired closes those in what a model is sent.
func OpenCalls(msgs []Message) []ToolCall {
	var open []ToolCall
	for _, m := range msgs {
		if m.Role == RoleTool {
			if m.Result != nil {
				open = slices.DeleteFunc(open, func(c ToolCall) bool { return c.ID == m.Result.CallID })
			}
			continue
		}
		open = slices.Clone(m.ToolCalls)
	}
	return open
}

// Paired returns msgs as a provider accepts them: every tool call of an
// assistant message answered before the next message that is not a tool
// message (a missing answer is Unfinished with WhyInterrupted), and no
// tool message that answers no open call. msgs itself is returned, not a
// copy, when nothing needs changing; it is never modified.
func Paired(msgs []Message) []Message {
	var out []Message // nil until something changes
	var open, buf []ToolCall
	// copied starts out as msgs[:i], for the first change at i.
	copied := func(i int) {
		if out == nil {
			out = append(make([]Message, 0, len(msgs)+len(open)), msgs[:i]...)
		}
	}
	answerOpen := func(i int) {
		if len(open) == 0 {
			return
		}
		copied(i)
		for _, c := range open {
			out = append(out, Unfinished(c, WhyInterrupted))
		}
		open = nil
	}
	for i := range msgs {
		m := &msgs[i] // not a copy: a Message is large
		if m.Role == RoleTool {
			k := -1
			if m.Result != nil {
				k = slices.IndexFunc(open, func(c ToolCall) bool { return c.ID == m.Result.CallID })
			}
			if k < 0 {
				copied(i) // answers nothing: dropped
				continue
			}
			open = slices.Delete(open, k, k+1)
		} else {
			answerOpen(i)
			buf = append(buf[:0], m.ToolCalls...) // a copy: msgs is never modified
			open = buf
		}
		if out != nil {
			out = append(out, *m)
		}
	}
	answerOpen(len(msgs))
	if out == nil {
		return msgs
	}
	return out
}
