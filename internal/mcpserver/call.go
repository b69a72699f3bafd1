package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/pipeline"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/plugin"
)

// call is the handler of every tools/call. While the call runs:
//
//   - its progress (tool.ReportProgress: the bytes bash has written so far) is sent
//     as notifications/progress when the request carries a progress token;
//   - its log lines (tool.ReportLog: a plugin tool's ctx.log) are sent as
//     notifications/message from a logger named after the tool's source
//     (its plugin), to a client that set a level at or below theirs;
//   - a permission question is put to the client as an elicitation when it
//     can answer one (elicitAsker), else refused as the package doc says;
//   - over streamable HTTP, a call still running after the handler's
//     PollAfter has its event stream closed with a retry: delay, and again
//     each PollAfter, so that no proxy's idle timeout cuts it: the client
//     resumes with Last-Event-ID (SEP-1699; clients of 2025-11-25 and later).
//
// When it is done, each hook that ran around it is sent as a
// notifications/message at level info (a refusal: warning) to a client
// that set a logging level, then the result: its text, and its
// attachments as image, audio or embedded-resource content.
func (s *Server) call(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	s.calls.Add(1)
	defer s.calls.Done()
	id := req.Params.Name
	var args map[string]any
	if raw := req.Params.Arguments; len(raw) > 0 {
		if err := json.Unmarshal(raw, &args); err != nil {
			return s.failed(fmt.Errorf("the arguments of %s are not a JSON object", id)), nil
		}
	}
	if args == nil {
		args = map[string]any{}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer context.AfterFunc(s.stopped, cancel)()
	defer cancel()
	ctx, cwd, err := s.callContext(ctx)
	if err != nil {
		return s.failed(err), nil
	}
	ss := req.Session
	if token := req.Params.GetProgressToken(); token != nil && ss != nil {
		ctx = tool.WithProgress(ctx, func(p tool.Progress) {
			// A client that went away ends the call through ctx; a lost
			// notification is nothing to stop for.
			_ = ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token,
				Progress: p.Progress, Total: p.Total, Message: s.app.Redact.String(p.Message)})
		})
	}
	if ss != nil {
		logger := source(s.app.Tools, id)
		ctx = tool.WithLog(ctx, func(l tool.LogLine) {
			sendLog(ctx, ss, l.Level, logger, s.app.Redact.String(l.Message))
		})
	}
	if ss != nil && canElicit(ss) {
		ctx = guard.WithAsker(ctx, elicitAsker{s: s, ss: ss})
	}
	if poll := s.pollAfter(); poll > 0 && req.Extra != nil && req.Extra.CloseSSEStream != nil && resumable(ss) {
		stop := s.pollEvery(ctx, poll, req.Extra.CloseSSEStream)
		defer stop()
	}
	res, rep, err := s.callTool(ctx, cwd, id, args)
	if ss != nil {
		s.logRuns(ctx, ss, id, rep.Runs())
	}
	if err != nil {
		return s.failed(err), nil
	}
	out := res.Output
	// What a turn adds to the result the model reads (agent.runTool).
	if post := rep.Post; post != nil {
		if post.Result.Decision == plugin.DecisionDeny && post.Result.Message != "" {
			out += "\n\n(a " + string(post.Event) + " hook objects: " + post.Result.Message + ")"
		}
		if text, _ := post.Result.Data[plugin.DataAdditionalContext].(string); text != "" {
			out += "\n\n(from a " + string(post.Event) + " hook: " + text + ")"
		}
	}
	content := []mcp.Content{&mcp.TextContent{Text: s.app.Redact.String(out)}}
	for _, a := range res.Attachments {
		content = append(content, s.attachment(a))
	}
	return &mcp.CallToolResult{Content: content}, nil
}

// callTool runs one tool call of the server's (a tools/call, a prompt's
// `!` line or @file, a resource read) through Runner.CallTool: channel and
// session "mcp", in cwd, the loop guard left out (see the package doc).
func (s *Server) callTool(ctx context.Context, cwd, id string, args map[string]any) (tool.Result, pipeline.ToolReport, error) {
	call := tool.Call{SessionID: SessionID, MessageID: SessionID, CallID: chat.NewID("call"), Agent: Channel, Cwd: cwd}
	res, rep, err := s.app.Runner.CallTool(ctx, call, id, args)
	s.app.Guard.Reset(SessionID)
	if err != nil {
		s.log.Debug("mcp: tool call failed", "tool", id, "plugin", source(s.app.Tools, id), "tenant", chat.ScopeFrom(ctx).Tenant, "error", err.Error())
	}
	return res, rep, err
}

// attachment is a as MCP content; a resource's text or bytes are redacted
// as the output is (as resources/read redacts a file's), an image's and
// audio's are not.
func (s *Server) attachment(a tool.Attachment) mcp.Content {
	switch a.Kind() {
	case "image":
		return &mcp.ImageContent{MIMEType: a.MIMEType, Data: a.Data}
	case "audio":
		return &mcp.AudioContent{MIMEType: a.MIMEType, Data: a.Data}
	}
	r := &mcp.ResourceContents{URI: a.URI, MIMEType: a.MIMEType}
	if a.Data != nil {
		r.Blob = []byte(s.app.Redact.String(string(a.Data)))
	} else {
		r.Text = s.app.Redact.String(a.Text)
	}
	return &mcp.EmbeddedResource{Resource: r}
}

// failed is the result of a call that did not succeed: its message, what
// a model of a turn reads (after tool.execute.after for a failed tool),
// redacted.
func (s *Server) failed(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: s.app.Redact.String(err.Error())}}}
}

// logRuns sends the hooks that ran around a call of tool to ss's client,
// one notifications/message each (the SDK drops them unless the client
// set a level at or below theirs). A vote to deny is a warning, a hook
// that failed an error, the rest info.
func (s *Server) logRuns(ctx context.Context, ss *mcp.ServerSession, tool string, runs []chat.HookRun) {
	for _, r := range runs {
		level := "info"
		switch {
		case r.Error != "" || r.Outcome == "threw" || r.Outcome == "timed_out":
			level = "error"
		case r.Decision == string(plugin.DecisionDeny):
			level = "warning"
		}
		line := fmt.Sprintf("%s: %s %s", r.Hook, r.Source, r.Outcome)
		if r.Decision != "" {
			line += " " + r.Decision
		}
		if r.Message != "" {
			line += ": " + r.Message
		}
		if r.Error != "" {
			line += ": " + r.Error
		}
		data := map[string]any{"message": s.app.Redact.String(line), "tool": tool, "hook": r.Hook, "plugin": r.Source,
			"outcome": r.Outcome, "durationMs": float64(r.DurationUs) / 1000}
		if r.Decision != "" {
			data["decision"] = r.Decision
		}
		sendLog(ctx, ss, level, "podcode", data)
	}
}

// resumable reports whether ss's client resumes a stream the server
// closes (protocol 2025-11-25 or later; the SDK sends the retry: event
// only then).
func resumable(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	p := ss.InitializeParams()
	return p != nil && p.ProtocolVersion >= "2025-11-25"
}

// pollRetry is the retry: delay a closed stream asks the client to wait.
const pollRetry = time.Second

// pollEvery closes the call's event stream every poll until stop is
// called or ctx ends.
func (s *Server) pollEvery(ctx context.Context, poll time.Duration, closeStream func(mcp.CloseSSEStreamArgs)) (stop func()) {
	t := time.NewTicker(poll)
	done := make(chan struct{})
	go func() {
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				closeStream(mcp.CloseSSEStreamArgs{RetryAfter: pollRetry})
			}
		}
	}()
	return func() { close(done) }
}
