package claudehooks

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sync"
	"time"

	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/version"
)

// EventMessageStored is the bus event that carries each message a session
// stores ({sessionID, message}); Transcripts.Listen follows it. (The agent
// publishes it; its name is repeated here, the agent being above this
// package.)
const EventMessageStored = "message.stored"

// TranscriptDir is the folder of the data directory that holds the
// transcripts, one <session id>.jsonl each.
const TranscriptDir = "transcripts"

// Transcripts keep, for each session, a transcript in Claude Code's JSONL
// format, which hooks read through transcript_path: one line a message, as
// Claude Code writes them (type "user" with the prompt, "assistant" with
// text and tool_use blocks, "user" with a tool_result block, "summary" for
// a compaction), each with uuid, parentUuid, sessionId, timestamp, cwd and
// version.
//
// Lifecycle: a message is appended when the session stores it (Listen on
// the bus's EventMessageStored, delivered on the storing goroutine), so a
// hook that fires after it (a Stop hook after the last assistant message)
// reads it. The file is created (mode 0600, its folder 0700: it holds the
// conversation) at the session's first message seen, and appended to
// across processes; messages stored before Podcode kept transcripts are
// not in it. A session's file stays when the session is deleted. Errors
// are logged, never fatal: a transcript is a convenience for hooks.
type Transcripts struct {
	dir     string // where the files are
	project string // the project, each line's cwd and the base of file_path
	log     *slog.Logger

	mu       sync.Mutex
	sessions map[string]*transcriptState
}

// transcriptState is what the lines of a session still to come need.
type transcriptState struct {
	last          string // uuid of the last line, the next one's parentUuid
	lastAssistant string // text of the last assistant message
	// stopActive: the last user message was a Stop hook's continuation.
	stopActive bool
	loaded     bool // last was read from the file
}

// NewTranscripts keeps transcripts in dataDir/transcripts for sessions run
// in projectDir. log nil is slog.Default().
func NewTranscripts(dataDir, projectDir string, log *slog.Logger) *Transcripts {
	if log == nil {
		log = slog.Default()
	}
	return &Transcripts{dir: filepath.Join(dataDir, TranscriptDir), project: projectDir, log: log,
		sessions: map[string]*transcriptState{}}
}

// sessionIDs are what a transcript may be named after (chat.NewID's ids),
// no path.
var sessionIDs = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// Path is the transcript of session id, "" for an id no file may be named
// after, or on nil. The file exists once the session stored a message.
func (t *Transcripts) Path(id string) string {
	if t == nil || !sessionIDs.MatchString(id) {
		return ""
	}
	return filepath.Join(t.dir, id+".jsonl")
}

// LastAssistantMessage is the text of the last assistant message of
// session id seen so far (Stop's last_assistant_message), "" if none.
func (t *Transcripts) LastAssistantMessage(id string) string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.sessions[id]; s != nil {
		return s.lastAssistant
	}
	return ""
}

// StopHookActive reports whether session id goes on because a Stop hook
// blocked its stop (the last user message is the hook's continuation), as
// Stop's stop_hook_active says.
func (t *Transcripts) StopHookActive(id string) bool {
	if t == nil {
		return false
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sessions[id]
	return s != nil && s.stopActive
}

// Listen subscribes t to b's EventMessageStored and returns the function
// that ends the subscription.
func (t *Transcripts) Listen(b *bus.Bus) (unsubscribe func()) {
	return b.Subscribe(EventMessageStored, "claude transcripts", func(ev bus.Event) {
		raw, err := json.Marshal(ev.Properties["message"])
		if err != nil {
			return
		}
		var m chat.Message
		if err := json.Unmarshal(raw, &m); err != nil || m.SessionID == "" {
			t.log.Warn("claude hooks: transcript: a stored message that does not read as one", "error", fmt.Sprint(err))
			return
		}
		if err := t.Append(&m); err != nil {
			t.log.Warn("claude hooks: transcript not written", "session", m.SessionID, "error", err.Error())
		}
	})
}

// Append writes m's line to its session's transcript.
func (t *Transcripts) Append(m *chat.Message) error {
	path := t.Path(m.SessionID)
	if path == "" {
		return fmt.Errorf("session id %q cannot name a transcript", m.SessionID)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	s := t.sessions[m.SessionID]
	if s == nil {
		s = &transcriptState{}
		t.sessions[m.SessionID] = s
	}
	if !s.loaded {
		s.last, s.loaded = lastUUID(path), true
	}
	line, id := t.line(m, s.last)
	if line == nil {
		return nil
	}
	if err := os.MkdirAll(t.dir, 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	_, err = f.Write(line)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	s.last = id
	switch m.Role {
	case chat.RoleAssistant:
		if m.Text != "" {
			s.lastAssistant = m.Text
		}
	case chat.RoleUser:
		s.stopActive = false
		for _, h := range m.Hooks {
			if h.Kind == "lifecycle" && h.Hook == "AgentStop" {
				s.stopActive = true
			}
		}
	}
	return nil
}

// line is m as a transcript line (newline included) and its uuid; nil for
// a message Claude Code has no line for.
func (t *Transcripts) line(m *chat.Message, parent string) ([]byte, string) {
	id := messageUUID(m.SessionID, m.ID)
	at := m.CreatedAt
	if at.IsZero() {
		at = time.Now()
	}
	e := map[string]any{"uuid": id, "sessionId": m.SessionID, "timestamp": at.UTC().Format("2006-01-02T15:04:05.000Z"),
		"cwd": t.project, "version": version.App(), "isSidechain": false, "userType": "external"}
	if parent != "" {
		e["parentUuid"] = parent
	} else {
		e["parentUuid"] = nil
	}
	switch m.Role {
	case chat.RoleUser:
		e["type"] = "user"
		e["message"] = map[string]any{"role": "user", "content": m.Text}
	case chat.RoleContext:
		// What hooks gave the model: Claude Code records such text as a
		// meta user message.
		e["type"], e["isMeta"] = "user", true
		e["message"] = map[string]any{"role": "user", "content": m.Text}
	case chat.RoleAssistant:
		content := []any{}
		if m.Text != "" {
			content = append(content, map[string]any{"type": "text", "text": m.Text})
		}
		stop := "end_turn"
		for _, c := range m.ToolCalls {
			args, err := decodeArgs(string(c.Args))
			if err != nil {
				args = map[string]any{}
			}
			content = append(content, map[string]any{"type": "tool_use", "id": c.ID, "name": ClaudeToolName(c.Tool),
				"input": toClaudeArgs(c.Tool, args, t.project)})
			stop = "tool_use"
		}
		msg := map[string]any{"id": m.ID, "type": "message", "role": "assistant", "content": content, "stop_reason": stop}
		if m.Usage != nil {
			msg["usage"] = map[string]any{"input_tokens": m.Usage.Input, "output_tokens": m.Usage.Output}
		}
		if m.Error != "" {
			e["isApiErrorMessage"] = true
		}
		e["type"], e["message"] = "assistant", msg
	case chat.RoleTool:
		if m.Result == nil {
			return nil, ""
		}
		r := m.Result
		e["type"] = "user"
		e["message"] = map[string]any{"role": "user", "content": []any{map[string]any{
			"type": "tool_result", "tool_use_id": r.CallID, "content": r.Output, "is_error": r.IsError}}}
		e["toolUseResult"] = r.Output
	case chat.RoleSummary:
		// Claude Code's compaction summary line has no uuid of its own.
		b, err := marshal(map[string]any{"type": "summary", "summary": m.Text, "leafUuid": parent})
		if err != nil {
			return nil, ""
		}
		return append(b, '\n'), parent
	default:
		return nil, ""
	}
	b, err := marshal(e)
	if err != nil {
		return nil, ""
	}
	return append(b, '\n'), id
}

// messageUUID is a stable UUID (version 4 layout) for a stored message, so
// that a line's parentUuid can be found again after a restart.
func messageUUID(session, id string) string {
	sum := sha256.Sum256([]byte(session + "\x00" + id))
	sum[6] = sum[6]&0x0f | 0x40
	sum[8] = sum[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", sum[0:4], sum[4:6], sum[6:8], sum[8:10], sum[10:16])
}

// lastUUID is the uuid of the last line of an existing transcript ("" if
// none): the next line's parent. Only the file's tail is read.
func lastUUID(path string) string {
	f, err := os.Open(path) // none yet, or unreadable: a new chain
	if err != nil {
		return ""
	}
	defer f.Close()
	const tail = 1 << 20
	if fi, err := f.Stat(); err == nil && fi.Size() > tail {
		if _, err := f.Seek(-tail, io.SeekEnd); err != nil {
			return ""
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), tail)
	last := ""
	for sc.Scan() {
		var l struct {
			UUID     string `json:"uuid"`
			LeafUUID string `json:"leafUuid"`
		}
		if b := bytes.TrimSpace(sc.Bytes()); len(b) > 0 && json.Unmarshal(b, &l) == nil {
			if l.UUID != "" {
				last = l.UUID
			} else if l.LeafUUID != "" {
				last = l.LeafUUID
			}
		}
	}
	return last
}
