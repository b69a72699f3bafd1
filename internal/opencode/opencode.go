// Package opencode speaks opencode's vocabulary for the plugins written for
// it: its sessions, messages and parts (the shapes of @opencode-ai/sdk's
// current server schema), made from Podcode's, and its bus events, made
// from Podcode's bus events.
//
// What maps, and how (docs/plugins.md lists it for plugin authors):
//
//   - A Podcode session is an opencode Session; its usage is the session's
//     cost and tokens.
//   - A user message is a UserMessage with one text part. An assistant
//     message (one model call) is an AssistantMessage whose parts are a
//     step-start, its text, a tool part per call it made, and a
//     step-finish with its tokens. A tool message (one call's result) is
//     not a message of opencode's: it completes the tool part of the call
//     it answers (status completed or error, with the result's output,
//     title and metadata). Summaries and context messages are left out.
//   - Events (Mapper): session.created/deleted; turn.started is
//     session.status busy; turn.finished is session.error when the turn
//     failed, then session.status idle and session.idle, always last;
//     message.stored is message.updated and a message.part.updated per
//     part (a tool result: the completed tool part, and file.edited when
//     write or edit changed a file); session.compacted, permission.asked and tui.toast.show keep their
//     names. Other Podcode events have no opencode counterpart; text is
//     not streamed (no message.part.delta): it arrives whole in its part
//     when its message is stored.
//
// IDs are Podcode's: ses_… and msg_… as they are; a part's id is its
// message's with prt_ in front and its place after.
package opencode

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/version"
)

// Agent is the name opencode's messages give the agent that answered:
// Podcode's one agent is opencode's default, build.
const Agent = "build"

func millis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// splitModel is "provider/model" as opencode's providerID and modelID.
func splitModel(m string) (provider, model string) {
	p, rest, ok := strings.Cut(m, "/")
	if !ok {
		return "", m
	}
	return p, rest
}

func tokens(u chat.Usage) map[string]any {
	return map[string]any{"total": u.Input + u.Output, "input": u.Input - u.CacheRead - u.CacheWrite, "output": u.Output - u.Reasoning,
		"reasoning": u.Reasoning, "cache": map[string]any{"read": u.CacheRead, "write": u.CacheWrite}}
}

// Project is the project's id and folders, as opencode's Project.
type Project struct {
	Directory string // where the server runs
	Worktree  string // the git worktree holding it, else Directory
	VCS       string // "git" or ""
	Version   string // Podcode's release, opencode's session version
}

// ProjectAt is the project at dir: the git worktree holding it, when it is
// in one.
func ProjectAt(dir string) Project {
	p := Project{Directory: dir, Worktree: dir, Version: version.App()}
	for d := dir; d != ""; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			p.Worktree, p.VCS = d, "git"
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	return p
}

// ID is the project's id: its worktree, as Podcode plugins' context has it.
func (p Project) ID() string { return p.Worktree }

// Session is s as opencode's Session.
func (p Project) Session(s store.Session) map[string]any {
	provider, model := splitModel(s.Model)
	out := map[string]any{
		"id": s.ID, "slug": s.ID, "projectID": p.ID(), "directory": p.Directory, "title": s.Title, "version": p.Version,
		"agent": Agent, "cost": s.Usage.Cost, "tokens": tokens(s.Usage),
		"time": map[string]any{"created": millis(s.CreatedAt), "updated": millis(s.UpdatedAt)},
	}
	if s.Model != "" {
		out["model"] = map[string]any{"id": model, "providerID": provider}
	}
	if s.ParentID != "" {
		out["parentID"] = s.ParentID
	}
	return out
}

// PartID is the id of a message's part at place i.
func PartID(messageID string, i int) string {
	return fmt.Sprintf("prt_%s_%02d", strings.TrimPrefix(messageID, "msg_"), i)
}

// toolPartIndex is the place of an assistant message's i-th tool call
// among its parts: after its step-start and its text.
func toolPartIndex(i int) int { return 2 + i }

// call is what a tool part needs of the assistant message that made the
// call, until its result arrives.
type call struct {
	messageID, tool string
	index           int // the part's place in its message
	input           map[string]any
	start           int64
}

func args(raw json.RawMessage) map[string]any {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m == nil {
		m = map[string]any{}
	}
	return m
}

// Info is m as opencode's message info (UserMessage or AssistantMessage),
// or nil for a message opencode has no counterpart of (tool results,
// summaries, context).
func (p Project) Info(m chat.Message) map[string]any {
	created := millis(m.CreatedAt)
	switch m.Role {
	case chat.RoleUser:
		return map[string]any{"id": m.ID, "sessionID": m.SessionID, "role": "user", "time": map[string]any{"created": created},
			"agent": Agent, "model": map[string]any{"providerID": "", "modelID": ""}}
	case chat.RoleAssistant:
		provider, model := splitModel(m.Model)
		var u chat.Usage
		if m.Usage != nil {
			u = *m.Usage
		}
		finish := "stop"
		if len(m.ToolCalls) > 0 {
			finish = "tool-calls"
		}
		info := map[string]any{"id": m.ID, "sessionID": m.SessionID, "role": "assistant",
			"time": map[string]any{"created": created, "completed": created}, "parentID": "", "modelID": model, "providerID": provider,
			"mode": Agent, "agent": Agent, "path": map[string]any{"cwd": p.Directory, "root": p.Worktree}, "cost": u.Cost,
			"tokens": tokens(u), "finish": finish}
		if m.Error != "" {
			info["error"] = map[string]any{"name": "UnknownError", "data": map[string]any{"message": m.Error}}
			info["finish"] = "error"
		}
		return info
	}
	return nil
}

// Parts is m's parts as opencode's, with the tool parts of an assistant
// message pending until their results arrive (results, by call id, when
// known: completed).
func (p Project) Parts(m chat.Message, results map[string]*chat.Message) []map[string]any {
	created := millis(m.CreatedAt)
	base := func(i int, typ string) map[string]any {
		return map[string]any{"id": PartID(m.ID, i), "sessionID": m.SessionID, "messageID": m.ID, "type": typ}
	}
	var parts []map[string]any
	switch m.Role {
	case chat.RoleUser:
		t := base(0, "text")
		t["text"] = m.Text
		parts = append(parts, t)
	case chat.RoleAssistant:
		parts = append(parts, base(0, "step-start"))
		if m.Text != "" {
			t := base(1, "text")
			t["text"] = m.Text
			t["time"] = map[string]any{"start": created, "end": created}
			parts = append(parts, t)
		}
		for i, c := range m.ToolCalls {
			tp := base(toolPartIndex(i), "tool")
			tp["callID"], tp["tool"] = c.ID, c.Tool
			in := args(c.Args)
			if r := results[c.ID]; r != nil && r.Result != nil {
				tp["state"] = p.resultState(in, created, *r)
			} else {
				tp["state"] = map[string]any{"status": "running", "input": in, "time": map[string]any{"start": created}}
			}
			parts = append(parts, tp)
		}
		var u chat.Usage
		if m.Usage != nil {
			u = *m.Usage
		}
		fin := base(toolPartIndex(len(m.ToolCalls)), "step-finish")
		fin["reason"], fin["cost"], fin["tokens"] = p.Info(m)["finish"], u.Cost, tokens(u)
		parts = append(parts, fin)
	}
	return parts
}

// resultState is the completed (or failed) state of a tool part whose
// call had input, answered by the tool message r.
func (p Project) resultState(input map[string]any, start int64, r chat.Message) map[string]any {
	res := r.Result
	end := millis(r.CreatedAt)
	if res.IsError {
		return map[string]any{"status": "error", "input": input, "error": res.Output, "time": map[string]any{"start": start, "end": end}}
	}
	meta := map[string]any{}
	for k, v := range res.Metadata {
		meta[k] = v
	}
	// opencode's file tools name the file in their metadata, where plugins
	// (time trackers, formatters) read it
	if path, ok := input["path"].(string); ok && (res.Tool == "write" || res.Tool == "edit") {
		abs := p.abs(path)
		switch res.Tool {
		case "write":
			meta["filepath"] = abs
			meta["exists"] = meta["created"] != true
		case "edit":
			meta["filePath"] = abs
			meta["filediff"] = map[string]any{"file": abs}
		}
	}
	return map[string]any{"status": "completed", "input": input, "output": res.Output, "title": res.Title, "metadata": meta,
		"time": map[string]any{"start": start, "end": end}}
}

func (p Project) abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(p.Directory, path)
}

// Entry is one message as opencode's session.messages lists it.
type Entry struct {
	Info  map[string]any   `json:"info"`
	Parts []map[string]any `json:"parts"`
}

// Messages is a session's messages as opencode's session.messages: each
// tool result folded into its call's tool part.
func (p Project) Messages(msgs []chat.Message) []Entry {
	results := map[string]*chat.Message{}
	for i := range msgs {
		if m := &msgs[i]; m.Role == chat.RoleTool && m.Result != nil {
			results[m.Result.CallID] = m
		}
	}
	out := []Entry{}
	for _, m := range msgs {
		if info := p.Info(m); info != nil {
			out = append(out, Entry{Info: info, Parts: p.Parts(m, results)})
		}
	}
	return out
}
