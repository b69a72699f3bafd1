package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/pipeline"
	"github.com/podcode/podcode/internal/safetext"
	"github.com/podcode/podcode/internal/tool"
)

// session is a Podcode session the client created or loaded on this
// connection.
type session struct {
	id   string
	turn sync.Mutex // held by the prompt (or load) under way

	mu      sync.Mutex
	calls   map[string]*toolCall // announced and not finished, by call id
	current string               // the call under way: permission questions are about it

	// sending is held while a call's progress goes out and while its end
	// is decided and sent, so that no progress follows its final update.
	sending sync.Mutex
}

// toolCall is a tool call announced to the client.
type toolCall struct {
	id      string
	tool    string
	args    map[string]any
	title   string
	kind    sdk.ToolKind
	where   []sdk.ToolCallLocation
	changes []tool.FileChange // what write or edit changed, for the diff

	since    time.Time // when it began to run (in_progress)
	progress string    // the latest progress, not yet sent when queued
	queued   bool      // a goroutine is about to send progress
	shown    string    // the progress the title carries
	retitled bool      // progress or a question changed the title: the final update restores it
}

// ProgressAfter is how long a call runs before its progress is shown:
// a quicker call's would only flicker in the editor.
const ProgressAfter = 2 * time.Second

// register makes id a session of this connection (once).
func (s *Server) register(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	if sess := s.sessions[id]; sess != nil {
		return sess
	}
	sess := &session{id: id, calls: map[string]*toolCall{}}
	s.sessions[id] = sess
	return sess
}

func (s *Server) lookup(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// update sends one session/update. A failure (the client is gone) is
// logged: the turn goes on, and ends when the connection's end cancels it.
// The context is not the turn's: a cancelled turn's last updates (its
// calls failed) still go out before its answer, and a context would not
// bound the write anyway (the SDK checks it only before writing). An
// editor that stops reading blocks the update; Serve's grace bounds that.
func (s *Server) update(sessionID string, u sdk.SessionUpdate) {
	err := s.peer().SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: sdk.SessionId(sessionID), Update: u})
	if err != nil {
		s.log.Warn("acp: could not send a session update", "session", sessionID, "error", err.Error())
	}
}

// event turns the turn's progress into updates, on the turn's goroutine,
// so that every update is sent before the prompt's answer.
func (s *Server) event(sess *session, e agent.Event) {
	switch e.Type {
	case "text":
		if e.Text != "" {
			s.update(sess.id, sdk.UpdateAgentMessageText(e.Text))
		}
	case "tool.start":
		s.announce(sess, *e.Call)
	case "tool.end":
		s.finish(sess, *e.Call, e.Result)
	}
}

// describe is what the client is told of a call: title, kind, locations.
func (s *Server) describe(c chat.ToolCall) *toolCall {
	var args map[string]any
	json.Unmarshal(c.Args, &args)
	tc := &toolCall{id: c.ID, tool: c.Tool, args: args, title: c.Tool, kind: sdk.ToolKindOther}
	str := func(k string) string { v, _ := args[k].(string); return v }
	path := str("path")
	switch c.Tool {
	case "read":
		tc.kind, tc.title = sdk.ToolKindRead, "Read "+path
	case "write":
		tc.kind, tc.title = sdk.ToolKindEdit, "Write "+path
	case "edit":
		tc.kind, tc.title = sdk.ToolKindEdit, "Edit "+path
	case "bash":
		line, _, _ := strings.Cut(strings.TrimSpace(str("command")), "\n")
		tc.kind, tc.title = sdk.ToolKindExecute, "Run "+chat.Shorten(line, 80)
	case "glob":
		tc.kind, tc.title = sdk.ToolKindSearch, "Find "+str("pattern")
	case "grep":
		tc.kind, tc.title = sdk.ToolKindSearch, "Search for "+str("pattern")
	case "webfetch":
		tc.kind, tc.title = sdk.ToolKindFetch, "Fetch "+str("url")
	case "task":
		tc.kind, tc.title = sdk.ToolKindThink, "Sub-agent: "+chat.Shorten(str("description"), 80)
	}
	if path != "" {
		if !filepath.IsAbs(path) {
			path = filepath.Join(s.app.Cwd, path)
		}
		loc := sdk.ToolCallLocation{Path: filepath.Clean(path)}
		if off, ok := args["offset"].(float64); ok && c.Tool == "read" && off >= 0 {
			loc.Line = sdk.Ptr(int(off) + 1)
		}
		tc.where = []sdk.ToolCallLocation{loc}
	}
	return tc
}

// announce sends a tool_call (pending) and makes it the session's current
// call.
func (s *Server) announce(sess *session, c chat.ToolCall) {
	tc := s.describe(c)
	sess.mu.Lock()
	sess.calls[c.ID] = tc
	sess.current = c.ID
	sess.mu.Unlock()
	s.update(sess.id, sdk.StartToolCall(sdk.ToolCallId(c.ID), tc.title, sdk.WithStartKind(tc.kind),
		sdk.WithStartStatus(sdk.ToolCallStatusPending), sdk.WithStartLocations(tc.where), sdk.WithStartRawInput(tc.args)))
}

// running sends tool_call_update in_progress for a call the guard let run.
func (s *Server) running(sessionID, callID string) {
	sess := s.lookup(sessionID)
	if sess == nil {
		return // a sub-agent's call: the client knows only the task call
	}
	sess.mu.Lock()
	tc, ok := sess.calls[callID]
	if ok {
		tc.since = time.Now()
	}
	sess.mu.Unlock()
	if ok {
		s.update(sess.id, sdk.UpdateToolCall(sdk.ToolCallId(callID), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress)))
	}
}

// progressed takes a call's progress (tool.call.progress, on the tool's
// goroutine, which must not wait for the editor): a call of a session of
// this connection that has run ProgressAfter has it shown in its title,
// " · " and the progress, by a goroutine of its own; reports that come
// before that or while one is being sent are thinned to the latest. A
// sub-agent's calls are not the client's.
func (s *Server) progressed(ev bus.Event) {
	sid, _ := ev.Properties["sessionID"].(string)
	sess := s.lookup(sid)
	if sess == nil {
		return
	}
	var p tool.Progress
	raw, _ := json.Marshal(ev.Properties)
	if json.Unmarshal(raw, &p) != nil {
		return
	}
	id, _ := ev.Properties["callID"].(string)
	sess.mu.Lock()
	defer sess.mu.Unlock()
	tc := sess.calls[id]
	if tc == nil {
		return
	}
	tc.progress = p.String()
	if !tc.queued && tc.progress != tc.shown {
		tc.queued = true
		go s.sendProgress(sess, id, time.Until(tc.since.Add(s.progressAfter)))
	}
}

// sendProgress sends the call's latest progress after wait, unless it has
// ended by then, or Serve is ending (nothing is written after it returns).
func (s *Server) sendProgress(sess *session, id string, wait time.Duration) {
	if wait > 0 {
		time.Sleep(wait)
	}
	sess.sending.Lock()
	defer sess.sending.Unlock()
	s.mu.Lock()
	closing := s.closing
	s.mu.Unlock()
	sess.mu.Lock()
	tc := sess.calls[id]
	var title string
	send := !closing && tc != nil && tc.progress != tc.shown
	if tc != nil {
		tc.queued = false
	}
	if send {
		tc.shown, tc.retitled = tc.progress, true
		// The message is a plugin's or an MCP server's: no control
		// characters reach the editor.
		title = tc.title + " · " + safetext.Line(tc.progress)
	}
	sess.mu.Unlock()
	if send {
		s.update(sess.id, sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateTitle(title)))
	}
}

// changed is the Editor's Changed: it keeps what write or edit changed
// for the call's final update.
func (sess *session) changed(ch tool.FileChange) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if tc := sess.calls[ch.CallID]; tc != nil {
		tc.changes = append(tc.changes, ch)
	}
}

// finish sends the call's final tool_call_update: completed or failed, the
// output as text, and a diff for each change. A call that was never
// announced (one the cancelled turn did not start) is announced with its
// final status.
func (s *Server) finish(sess *session, c chat.ToolCall, res *chat.Result) {
	sess.sending.Lock()
	defer sess.sending.Unlock()
	sess.mu.Lock()
	tc := sess.calls[c.ID]
	delete(sess.calls, c.ID)
	if sess.current == c.ID {
		sess.current = ""
	}
	sess.mu.Unlock()
	status := sdk.ToolCallStatusCompleted
	var content []sdk.ToolCallContent
	if res != nil {
		if res.IsError {
			status = sdk.ToolCallStatusFailed
		}
		if tc != nil && !res.IsError {
			for _, ch := range tc.changes {
				if ch.Created {
					content = append(content, sdk.ToolDiffContent(ch.Path, ch.New))
				} else {
					content = append(content, sdk.ToolDiffContent(ch.Path, ch.New, ch.Old))
				}
			}
		}
		if res.Output != "" {
			content = append(content, sdk.ToolContent(sdk.TextBlock(res.Output)))
		}
	}
	if tc == nil {
		tc = s.describe(c)
		s.update(sess.id, sdk.StartToolCall(sdk.ToolCallId(c.ID), tc.title, sdk.WithStartKind(tc.kind),
			sdk.WithStartStatus(status), sdk.WithStartLocations(tc.where), sdk.WithStartRawInput(tc.args), sdk.WithStartContent(content)))
		return
	}
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(status), sdk.WithUpdateContent(content)}
	if tc.retitled {
		opts = append(opts, sdk.WithUpdateTitle(tc.title))
	}
	s.update(sess.id, sdk.UpdateToolCall(sdk.ToolCallId(c.ID), opts...))
}

// replay sends a stored session's messages as updates, in order: user
// text, the assistant's text and tool calls, each tool's result. Context
// and summaries are Podcode's own and are not shown.
func (s *Server) replay(ctx context.Context, sess *session, msgs []chat.Message) error {
	for i := range msgs {
		if err := ctx.Err(); err != nil {
			return err
		}
		m := &msgs[i]
		switch m.Role {
		case chat.RoleUser:
			if m.Text != "" {
				s.update(sess.id, sdk.UpdateUserMessageText(m.Text))
			}
		case chat.RoleAssistant:
			if m.Text != "" {
				s.update(sess.id, sdk.UpdateAgentMessageText(m.Text))
			}
			for _, c := range m.ToolCalls {
				s.announce(sess, c)
			}
		case chat.RoleTool:
			if m.Result != nil {
				s.finish(sess, chat.ToolCall{ID: m.Result.CallID, Tool: m.Result.Tool}, m.Result)
			}
		}
	}
	sess.mu.Lock()
	clear(sess.calls) // a call with no stored result stays pending in the client
	sess.current = ""
	sess.mu.Unlock()
	return nil
}

// editor is the tool.Editor of the session's turns: the client's
// fs/read_text_file and fs/write_text_file where it offers them.
func (s *Server) editor(sess *session) tool.Editor {
	s.mu.Lock()
	fs := s.client.Fs
	s.mu.Unlock()
	e := tool.Editor{Changed: sess.changed}
	id := sdk.SessionId(sess.id)
	if fs.ReadTextFile {
		e.Read = func(ctx context.Context, path string) (string, error) {
			r, err := s.peer().ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: id, Path: path})
			return r.Content, rpcError(err)
		}
	}
	if fs.WriteTextFile {
		e.Write = func(ctx context.Context, path, content string) error {
			_, err := s.peer().WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: id, Path: path, Content: content})
			return rpcError(err)
		}
	}
	return e
}

// rpcError makes a client's error readable: its message and data.
func rpcError(err error) error {
	re, ok := err.(*sdk.RequestError)
	if !ok || re == nil {
		return err
	}
	if re.Data != nil {
		return fmt.Errorf("%s (%v)", re.Message, re.Data)
	}
	return fmt.Errorf("%s", re.Message)
}

// gate wraps the Runner's gate: a call the guard let run is reported
// in_progress before tool.execute.before and the tool run.
type gate struct {
	pipeline.ToolGate
	s *Server
}

func (g gate) Before(ctx context.Context, call tool.Call, def *tool.Def, args map[string]any, rep *pipeline.ToolReport) error {
	if err := g.ToolGate.Before(ctx, call, def, args, rep); err != nil {
		return err
	}
	g.s.running(call.SessionID, call.CallID)
	return nil
}
