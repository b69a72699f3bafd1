package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/plugin"
)

// client is the editor's side of the tests: the SDK's client connection
// over pipes, answering permission questions with answer and serving its
// buffers when it offers files.
type client struct {
	t      testing.TB
	conn   *sdk.ClientSideConnection
	answer func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)

	mu      sync.Mutex
	updates []sdk.SessionNotification
	asked   []sdk.RequestPermissionRequest
	buffers map[string]string // the editor's open files, by absolute path
	reads   []string
	writes  []string
	seen    chan struct{} // a signal per update
}

func (c *client) ReadTextFile(_ context.Context, p sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads = append(c.reads, p.Path)
	text, ok := c.buffers[p.Path]
	if !ok {
		return sdk.ReadTextFileResponse{}, sdk.NewInvalidParams(map[string]any{"error": "no such buffer"})
	}
	return sdk.ReadTextFileResponse{Content: text}, nil
}

func (c *client) WriteTextFile(_ context.Context, p sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, p.Path)
	c.buffers[p.Path] = p.Content
	return sdk.WriteTextFileResponse{}, nil
}

func (c *client) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, p)
	answer := c.answer
	c.mu.Unlock()
	if answer == nil {
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected("allow")}, nil
	}
	return answer(ctx, p)
}

func (c *client) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	c.mu.Lock()
	c.updates = append(c.updates, n)
	c.mu.Unlock()
	select {
	case c.seen <- struct{}{}:
	default:
	}
	return nil
}

func (c *client) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound("terminal/create")
}
func (c *client) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound("terminal/kill")
}
func (c *client) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound("terminal/output")
}
func (c *client) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound("terminal/release")
}
func (c *client) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound("terminal/wait_for_exit")
}

// take returns the updates received so far and forgets them.
func (c *client) take() []sdk.SessionNotification {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.updates
	c.updates = nil
	return out
}

// waitFor waits until an update satisfies ok.
func (c *client) waitFor(what string, ok func(sdk.SessionNotification) bool) {
	c.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		c.mu.Lock()
		for _, u := range c.updates {
			if ok(u) {
				c.mu.Unlock()
				return
			}
		}
		c.mu.Unlock()
		select {
		case <-c.seen:
		case <-time.After(50 * time.Millisecond):
		case <-deadline:
			c.t.Fatalf("no update %s came", what)
		}
	}
}

// waitForText waits until a message chunk of the agent's holds text.
func (c *client) waitForText(what, text string) {
	c.t.Helper()
	c.waitFor(what, func(n sdk.SessionNotification) bool {
		u := n.Update.AgentMessageChunk
		return u != nil && u.Content.Text != nil && strings.Contains(u.Content.Text.Text, text)
	})
}

// commands waits for the commands announced to session id
// (available_commands_update) and returns them.
func (e *env) commands(t testing.TB, id string) []sdk.AvailableCommand {
	t.Helper()
	var got []sdk.AvailableCommand
	e.cl.waitFor("available_commands_update", func(n sdk.SessionNotification) bool {
		if u := n.Update.AvailableCommandsUpdate; u != nil && string(n.SessionId) == id {
			got = u.AvailableCommands
			return true
		}
		return false
	})
	return got
}

// env is a served project and a connected client.
type env struct {
	dir    string
	srv    *Server
	cl     *client
	store  *store.Store
	wire   *wire
	cancel context.CancelFunc
	done   chan error
}

// wire keeps every line each side wrote, for the schema check.
type wire struct {
	mu              sync.Mutex
	agent, fromPeer bytes.Buffer
}

type tee struct {
	w   io.Writer
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (t tee) Write(p []byte) (int, error) {
	t.mu.Lock()
	t.buf.Write(p)
	t.mu.Unlock()
	return t.w.Write(p)
}

func serve(t testing.TB, p apptest.Project, caps sdk.ClientCapabilities) *env {
	t.Helper()
	a, _ := apptest.Boot(t, p)
	st := openStore(t)
	srv := New(a, agent.New(a, st), st)
	toAgentR, toAgentW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	w := &wire{}
	ctx, cancel := context.WithCancel(context.Background())
	e := &env{dir: a.Cwd, srv: srv, store: st, wire: w, cancel: cancel, done: make(chan error, 1)}
	go func() { e.done <- srv.Serve(ctx, toAgentR, tee{toClientW, &w.mu, &w.agent}) }()
	e.cl = &client{t: t, buffers: map[string]string{}, seen: make(chan struct{}, 1)}
	e.cl.conn = sdk.NewClientSideConnection(e.cl, tee{toAgentW, &w.mu, &w.fromPeer}, toClientR)
	t.Cleanup(func() {
		toAgentW.Close() // the end of the input ends Serve
		select {
		case err := <-e.done:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("Serve did not return after its input ended")
		}
		cancel()
		toClientW.Close()
		checkSchema(t, w)
	})
	init, err := e.cl.conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber, ClientCapabilities: caps})
	if err != nil {
		t.Fatal(err)
	}
	if init.ProtocolVersion != 1 || !init.AgentCapabilities.LoadSession || init.AgentInfo == nil || init.AgentInfo.Name != "podcode" {
		t.Fatalf("initialize answered %+v", init)
	}
	return e
}

// openStore opens a database of the test's.
func openStore(t testing.TB) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "podcode.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func (e *env) newSession(t testing.TB, servers ...sdk.McpServer) string {
	t.Helper()
	if servers == nil {
		servers = []sdk.McpServer{}
	}
	res, err := e.cl.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: e.dir, McpServers: servers})
	if err != nil {
		t.Fatal(err)
	}
	return string(res.SessionId)
}

func (e *env) prompt(t testing.TB, id, text string) (sdk.StopReason, error) {
	t.Helper()
	res, err := e.cl.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: sdk.SessionId(id), Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	return res.StopReason, err
}

// describe writes an update on one line, for asserting the order.
func describe(n sdk.SessionNotification) string {
	u := n.Update
	switch {
	case u.AgentMessageChunk != nil:
		return "message: " + u.AgentMessageChunk.Content.Text.Text
	case u.UserMessageChunk != nil:
		return "user: " + u.UserMessageChunk.Content.Text.Text
	case u.ToolCall != nil:
		return fmt.Sprintf("tool_call %s %s %s", u.ToolCall.Kind, u.ToolCall.Status, u.ToolCall.Title)
	case u.ToolCallUpdate != nil:
		s := "tool_call_update"
		if u.ToolCallUpdate.Status != nil {
			s += " " + string(*u.ToolCallUpdate.Status)
		}
		if u.ToolCallUpdate.Title != nil {
			s += " title(" + *u.ToolCallUpdate.Title + ")"
		}
		for _, c := range u.ToolCallUpdate.Content {
			switch {
			case c.Diff != nil:
				old := "<new>"
				if c.Diff.OldText != nil {
					old = *c.Diff.OldText
				}
				s += fmt.Sprintf(" diff(%s: %q -> %q)", filepath.Base(c.Diff.Path), old, c.Diff.NewText)
			case c.Content != nil && c.Content.Content.Text != nil:
				s += " text(" + firstLine(c.Content.Content.Text.Text) + ")"
			}
		}
		return s
	}
	b, _ := json.Marshal(u)
	return string(b)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func describeAll(ns []sdk.SessionNotification) []string {
	var out []string
	for _, n := range ns {
		out = append(out, describe(n))
	}
	return out
}

func askBash() apptest.Project {
	return apptest.Project{User: map[string]any{"permission": map[string]any{"bash": "ask"}}}
}

// A prompt whose tool call asks permission: the client sees the call
// announced, the question about that call, the call run and finished with
// its output, then the answer, in that order; every hook fires with
// channel acp.
func TestPromptAsksAndStreamsTheToolCall(t *testing.T) {
	var mu sync.Mutex
	channels := map[string]string{}
	p := askBash()
	p.Hooks = func(d *plugin.Dispatcher) error {
		for _, ev := range []plugin.HookEvent{plugin.HookSessionStart, plugin.HookUserPromptSubmit, plugin.HookPreToolUse, plugin.HookPostToolUse, plugin.HookAgentStop} {
			if err := d.Register(ev, func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
				mu.Lock()
				channels[string(p.Event)] = p.Channel
				mu.Unlock()
				return nil, nil
			}, plugin.WithSource("recorder")); err != nil {
				return err
			}
		}
		return nil
	}
	e := serve(t, p, sdk.ClientCapabilities{})
	id := e.newSession(t)
	stop, err := e.prompt(t, id, `/tool bash {"command": "echo hello from bash"}`)
	if err != nil || stop != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v %v", stop, err)
	}
	got := describeAll(e.cl.take())
	want := []string{
		"tool_call execute pending Run echo hello from bash",
		"tool_call_update in_progress",
		"tool_call_update completed text(hello from bash)",
	}
	if len(got) < 4 || strings.Join(got[:3], "\n") != strings.Join(want, "\n") || !strings.HasPrefix(got[3], "message: ") || !strings.Contains(got[3], "hello from bash") {
		t.Errorf("updates:\n%s", strings.Join(got, "\n"))
	}
	// On the wire, the question comes between the call's announcement and
	// its run, and every update before the prompt's answer.
	if order := e.wire.order(); !strings.Contains(order, "update:tool_call request:session/request_permission update:tool_call_update update:tool_call_update update:agent_message_chunk answer") {
		t.Errorf("the agent wrote, in order: %s", order)
	}
	if len(e.cl.asked) != 1 {
		t.Fatalf("asked %d times", len(e.cl.asked))
	}
	q := e.cl.asked[0]
	if string(q.SessionId) != id || q.ToolCall.Title == nil || *q.ToolCall.Title != "Run echo hello from bash" || len(q.Options) != 2 ||
		q.Options[0].Kind != sdk.PermissionOptionKindAllowOnce || q.Options[1].Kind != sdk.PermissionOptionKindRejectOnce {
		t.Errorf("the question: %+v", q)
	}
	mu.Lock()
	defer mu.Unlock()
	for ev, ch := range channels {
		if ch != Channel {
			t.Errorf("%s fired with channel %q", ev, ch)
		}
	}
	if len(channels) != 5 {
		t.Errorf("hooks that fired: %v", channels)
	}
}

// Reject once refuses the call; a client that answers with an error or a
// cancelled outcome, or not within agent.ask_timeout_ms, refuses it too,
// saying why.
func TestRefusedAndUnansweredQuestionsDeny(t *testing.T) {
	p := askBash()
	p.User["agent"] = map[string]any{"ask_timeout_ms": 300}
	e := serve(t, p, sdk.ClientCapabilities{})
	id := e.newSession(t)
	for _, c := range []struct {
		name   string
		answer func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)
		want   string
	}{
		{"reject", func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
			return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected("reject")}, nil
		}, "the user refused to run bash"},
		{"error", func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
			return sdk.RequestPermissionResponse{}, errors.New("the dialog broke")
		}, "the editor did not answer the permission question"},
		{"cancelled", func(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
			return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeCancelled()}, nil
		}, "the editor cancelled the question"},
		{"timeout", func(ctx context.Context, _ sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
			<-ctx.Done() // the agent gives up and says so ($/cancel_request)
			return sdk.RequestPermissionResponse{}, ctx.Err()
		}, "nobody answered within 300ms"},
	} {
		e.cl.mu.Lock()
		e.cl.answer = c.answer
		e.cl.mu.Unlock()
		marker := filepath.Join(e.dir, c.name)
		stop, err := e.prompt(t, id, fmt.Sprintf(`/tool bash {"command": "touch %s"}`, marker))
		if err != nil || stop != sdk.StopReasonEndTurn {
			t.Fatalf("%s: %v %v", c.name, stop, err)
		}
		got := strings.Join(describeAll(e.cl.take()), "\n")
		if !strings.Contains(got, "tool_call_update failed text(") || !strings.Contains(got, c.want) || strings.Contains(got, "in_progress") {
			t.Errorf("%s: updates:\n%s", c.name, got)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Errorf("%s: the refused command ran", c.name)
		}
	}
}

// session/cancel during a tool call ends the prompt with stopReason
// cancelled, and the call fails saying it was cancelled.
func TestCancelMidTool(t *testing.T) {
	e := serve(t, apptest.Project{}, sdk.ClientCapabilities{})
	id := e.newSession(t)
	type result struct {
		stop sdk.StopReason
		err  error
	}
	done := make(chan result, 1)
	go func() {
		stop, err := e.prompt(t, id, `/tool bash {"command": "sleep 30"}`)
		done <- result{stop, err}
	}()
	e.cl.waitFor("in_progress", func(n sdk.SessionNotification) bool {
		u := n.Update.ToolCallUpdate
		return u != nil && u.Status != nil && *u.Status == sdk.ToolCallStatusInProgress
	})
	if err := e.cl.conn.Cancel(context.Background(), sdk.CancelNotification{SessionId: sdk.SessionId(id)}); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the prompt did not end after session/cancel")
	}
	if r.err != nil || r.stop != sdk.StopReasonCancelled {
		t.Fatalf("prompt: %v %v", r.stop, r.err)
	}
	got := describeAll(e.cl.take())
	if last := got[len(got)-1]; !strings.HasPrefix(last, "tool_call_update failed text(the call was cancelled") {
		t.Errorf("updates:\n%s", strings.Join(got, "\n"))
	}
	// The session takes the next prompt.
	if stop, err := e.prompt(t, id, "again"); err != nil || stop != sdk.StopReasonEndTurn {
		t.Errorf("the next prompt: %v %v", stop, err)
	}
}

// A call that runs past ProgressAfter (here 200 ms) has its progress in its
// title (bash: the bytes written so far), and its final update has the
// title back.
func TestLongCallShowsItsProgressInItsTitle(t *testing.T) {
	e := serve(t, apptest.Project{}, sdk.ClientCapabilities{})
	e.srv.progressAfter = 200 * time.Millisecond
	id := e.newSession(t)
	if stop, err := e.prompt(t, id, `/tool bash {"command": "echo started; sleep 1.5"}`); err != nil || stop != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v %v", stop, err)
	}
	got := describeAll(e.cl.take())
	want := []string{
		"tool_call execute pending Run echo started; sleep 1.5",
		"tool_call_update in_progress",
		"tool_call_update title(Run echo started; sleep 1.5 · 8 bytes of output)",
		"tool_call_update completed title(Run echo started; sleep 1.5) text(started)",
	}
	if len(got) < 4 || strings.Join(got[:4], "\n") != strings.Join(want, "\n") {
		t.Errorf("updates:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// session/load sends the stored session again as updates, in order, and
// the session then takes prompts.
func TestLoadReplaysTheSession(t *testing.T) {
	e := serve(t, apptest.Project{Files: map[string]string{"a.txt": "alpha\n"}}, sdk.ClientCapabilities{})
	id := e.newSession(t)
	if stop, err := e.prompt(t, id, `/tool read {"path": "a.txt"}`); err != nil || stop != sdk.StopReasonEndTurn {
		t.Fatal(stop, err)
	}
	live := describeAll(e.cl.take())
	if _, err := e.cl.conn.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: sdk.SessionId(id), Cwd: e.dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	replayed := describeAll(e.cl.take())
	want := append([]string{`user: /tool read {"path": "a.txt"}`, "tool_call read pending Read a.txt"}, live[2:]...)
	if strings.Join(replayed, "\n") != strings.Join(want, "\n") {
		t.Errorf("replayed:\n%s\nwant:\n%s", strings.Join(replayed, "\n"), strings.Join(want, "\n"))
	}
	if _, err := e.cl.conn.LoadSession(context.Background(), sdk.LoadSessionRequest{SessionId: "ses_nope", Cwd: e.dir, McpServers: []sdk.McpServer{}}); err == nil ||
		!strings.Contains(err.Error(), "no session ses_nope") {
		t.Errorf("an unknown session: %v", err)
	}
}

// A session must be in the project Podcode booted in.
func TestOtherDirectoryRefused(t *testing.T) {
	e := serve(t, apptest.Project{}, sdk.ClientCapabilities{})
	other := t.TempDir()
	_, err := e.cl.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: other, McpServers: []sdk.McpServer{}})
	if err == nil || !strings.Contains(err.Error(), "serves the project it was started in") || !strings.Contains(err.Error(), other) {
		t.Errorf("another directory: %v", err)
	}
	if _, err := e.prompt(t, "ses_unknown", "hi"); err == nil || !strings.Contains(err.Error(), "unknown session") {
		t.Errorf("a prompt in an unknown session: %v", err)
	}
}

// Where the editor offers its files, read and edit use its buffer, not the
// disk, and the edit's update carries the diff; a path outside the
// project is refused before the editor is asked.
func TestFileToolsUseTheEditorsBuffers(t *testing.T) {
	e := serve(t, apptest.Project{Files: map[string]string{"a.txt": "on disk\n"}},
		sdk.ClientCapabilities{Fs: sdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}})
	path := filepath.Join(e.dir, "a.txt")
	e.cl.buffers[path] = "unsaved buffer\n"
	id := e.newSession(t)
	if _, err := e.prompt(t, id, `/tool read {"path": "a.txt"}`); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(describeAll(e.cl.take()), "\n")
	if !strings.Contains(got, "completed text(     1\tunsaved buffer)") {
		t.Errorf("read did not read the buffer:\n%s", got)
	}
	if _, err := e.prompt(t, id, `/tool edit {"path": "a.txt", "old_string": "unsaved", "new_string": "edited"}`); err != nil {
		t.Fatal(err)
	}
	got = strings.Join(describeAll(e.cl.take()), "\n")
	if !strings.Contains(got, `completed diff(a.txt: "unsaved buffer\n" -> "edited buffer\n") text(edited a.txt: 1 replacement(s))`) {
		t.Errorf("edit's updates:\n%s", got)
	}
	if _, err := e.prompt(t, id, `/tool write {"path": "new.txt", "content": "fresh"}`); err != nil {
		t.Fatal(err)
	}
	got = strings.Join(describeAll(e.cl.take()), "\n")
	if !strings.Contains(got, `completed diff(new.txt: "<new>" -> "fresh")`) {
		t.Errorf("write's updates:\n%s", got)
	}
	e.cl.mu.Lock()
	buf, writes := e.cl.buffers[path], strings.Join(e.cl.writes, ",")
	e.cl.mu.Unlock()
	if buf != "edited buffer\n" || writes != path+","+filepath.Join(e.dir, "new.txt") {
		t.Errorf("the editor's buffer %q, writes %s", buf, writes)
	}
	if disk, _ := os.ReadFile(path); string(disk) != "on disk\n" {
		t.Errorf("the disk was written: %q", disk)
	}
	if _, err := os.Stat(filepath.Join(e.dir, "new.txt")); err == nil {
		t.Error("write wrote the disk")
	}
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("secret"), 0o644)
	e.cl.buffers[outside] = "secret"
	if _, err := e.prompt(t, id, fmt.Sprintf(`/tool read {"path": %q}`, outside)); err != nil {
		t.Fatal(err)
	}
	got = strings.Join(describeAll(e.cl.take()), "\n")
	e.cl.mu.Lock()
	reads := strings.Join(e.cl.reads, ",")
	e.cl.mu.Unlock()
	if !strings.Contains(got, "failed text(") || !strings.Contains(got, "is outside the project") || strings.Contains(reads, outside) {
		t.Errorf("outside the project: reads %s, updates:\n%s", reads, got)
	}
}

// The stop reasons: refusal when UserPromptSubmit denies the prompt,
// max_turn_requests when agent.max_steps is reached.
func TestStopReasons(t *testing.T) {
	p := apptest.Project{User: map[string]any{"agent": map[string]any{"max_steps": 1}}}
	p.Hooks = func(d *plugin.Dispatcher) error {
		return d.Register(plugin.HookUserPromptSubmit, func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
			if strings.Contains(fmt.Sprint(p.Extra["prompt"]), "password") {
				return &plugin.HookResult{Decision: plugin.DecisionDeny, Message: "no secrets in prompts"}, nil
			}
			return nil, nil
		})
	}
	e := serve(t, p, sdk.ClientCapabilities{})
	id := e.newSession(t)
	stop, err := e.prompt(t, id, "my password is hunter2")
	if err != nil || stop != sdk.StopReasonRefusal {
		t.Errorf("a denied prompt: %v %v", stop, err)
	}
	if got := describeAll(e.cl.take()); len(got) != 1 || !strings.Contains(got[0], "no secrets in prompts") {
		t.Errorf("a denied prompt's updates: %v", got)
	}
	if stop, err := e.prompt(t, id, `/tool glob {"pattern": "*"}`); err != nil || stop != sdk.StopReasonMaxTurnRequests {
		t.Errorf("past agent.max_steps: %v %v", stop, err)
	}
}

// The MCP servers the editor passes are started and their tools called
// through the pipeline; an ACP-transport server is refused, saying so.
func TestEditorsMCPServers(t *testing.T) {
	probe, err := filepath.Abs(filepath.Join("..", "mcpclient", "testdata", "servers", "probe.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join("..", "mcpclient", "testdata", "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Fatalf("the MCP test servers are not installed (scripts/test runs npm ci in internal/mcpclient/testdata): %v", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is needed to run the MCP test server")
	}
	e := serve(t, apptest.Project{}, sdk.ClientCapabilities{})
	server := sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "probe", Command: "node", Args: []string{probe}, Env: []sdk.EnvVariable{}}}
	id := e.newSession(t, server)
	e.newSession(t, server) // the same server again: not started twice
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, ok := e.srv.app.Tools.Get("probe_shout"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the editor's MCP server's tools never appeared")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := e.prompt(t, id, `/tool probe_shout {"text": "hi"}`); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(describeAll(e.cl.take()), "\n"); !strings.Contains(got, "completed text(HI (pid") {
		t.Errorf("the MCP tool's updates:\n%s", got)
	}
	if n := len(e.srv.mcp); n != 1 {
		t.Errorf("%d sets of MCP servers started", n)
	}
	other := sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "probe", Command: "node", Args: []string{probe, "x"}, Env: []sdk.EnvVariable{}}}
	if _, err := e.cl.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: e.dir, McpServers: []sdk.McpServer{other}}); err == nil ||
		!strings.Contains(err.Error(), "runs already with other settings") {
		t.Errorf("a second server of the same name: %v", err)
	}
	acpServer := sdk.McpServer{Acp: &sdk.McpServerAcpInline{Name: "inline", Id: "x", Type: "acp"}}
	if _, err := e.cl.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: e.dir, McpServers: []sdk.McpServer{acpServer}}); err == nil ||
		!strings.Contains(err.Error(), "not supported") {
		t.Errorf("an ACP-transport server: %v", err)
	}
}

// order lists what the agent wrote, in order: update:<kind> for a
// session/update, request:<method> for a request, answer for a result.
func (w *wire) order() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(w.agent.String()), "\n") {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Update struct {
					Kind string `json:"sessionUpdate"`
				} `json:"update"`
			} `json:"params"`
		}
		json.Unmarshal([]byte(line), &m)
		switch {
		case m.Method == "session/update":
			out = append(out, "update:"+m.Params.Update.Kind)
		case m.Method != "":
			out = append(out, "request:"+m.Method)
		default:
			out = append(out, "answer")
		}
	}
	return strings.Join(out, " ")
}

// protocol is the SDK's copy of the protocol's JSON Schema, read once.
var protocol struct {
	once sync.Once
	err  error
	mu   sync.Mutex
	c    *jsonschema.Compiler
	defs map[string]*jsonschema.Schema
}

func loadSchema() {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/coder/acp-go-sdk").Output()
	if err != nil {
		protocol.err = fmt.Errorf("finding the SDK's module: %w", err)
		return
	}
	f, err := os.Open(filepath.Join(strings.TrimSpace(string(out)), "schema", "schema.json"))
	if err != nil {
		protocol.err = err
		return
	}
	defer f.Close()
	doc, err := jsonschema.UnmarshalJSON(f)
	if err != nil {
		protocol.err = err
		return
	}
	protocol.c = jsonschema.NewCompiler()
	protocol.err = protocol.c.AddResource("acp.json", doc)
	protocol.defs = map[string]*jsonschema.Schema{}
}

// checkSchema validates what the agent wrote against the protocol's JSON
// Schema (the SDK's copy): each session/update, each request to the client
// and each answer to the client's requests.
func checkSchema(t testing.TB, w *wire) {
	t.Helper()
	protocol.once.Do(loadSchema)
	if protocol.err != nil {
		t.Fatalf("the protocol's schema: %v", protocol.err)
	}
	def := func(name string) *jsonschema.Schema {
		protocol.mu.Lock()
		defer protocol.mu.Unlock()
		if s := protocol.defs[name]; s != nil {
			return s
		}
		s, err := protocol.c.Compile("acp.json#/$defs/" + name)
		if err != nil {
			t.Fatalf("compiling %s: %v", name, err)
		}
		protocol.defs[name] = s
		return s
	}
	type msg struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
		Result json.RawMessage `json:"result"`
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	asked := map[string]string{} // the client's request ids → methods
	for sc := bufio.NewScanner(bytes.NewReader(w.fromPeer.Bytes())); sc.Scan(); {
		var m msg
		if json.Unmarshal(sc.Bytes(), &m) == nil && m.Method != "" && m.ID != nil {
			asked[string(m.ID)] = m.Method
		}
	}
	responses := map[string]string{"initialize": "InitializeResponse", "session/new": "NewSessionResponse",
		"session/load": "LoadSessionResponse", "session/prompt": "PromptResponse"}
	requests := map[string]string{"session/update": "SessionNotification", "session/request_permission": "RequestPermissionRequest",
		"fs/read_text_file": "ReadTextFileRequest", "fs/write_text_file": "WriteTextFileRequest"}
	checked := 0
	sc := bufio.NewScanner(bytes.NewReader(w.agent.Bytes()))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var m msg
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Errorf("not JSON on the wire: %q", sc.Bytes())
			continue
		}
		name, data := "", json.RawMessage(nil)
		switch {
		case m.Method != "":
			name, data = requests[m.Method], m.Params
		case m.Result != nil:
			name, data = responses[asked[string(m.ID)]], m.Result
		}
		if name == "" {
			continue
		}
		v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		if err := def(name).Validate(v); err != nil {
			t.Errorf("%s does not match the schema: %v\n%s", name, err, data)
		}
		checked++
	}
	if checked == 0 {
		t.Error("no message was checked against the schema")
	}
	t.Logf("%d messages checked against the protocol's schema", checked)
}

// A prompt is what the client sends: whatever its blocks hold, turning
// them into the model's text never panics, and text blocks are kept whole.
func FuzzPromptText(f *testing.F) {
	f.Add(`[{"type":"text","text":"hi "},{"type":"resource_link","name":"a","uri":"file:///p/a.go"}]`)
	f.Add(`[{"type":"resource","resource":{"uri":"file:///p/b.go","text":"package b"}}]`)
	f.Add(`[{"type":"image","data":"AAAA","mimeType":"image/png"}]`)
	f.Add(`[{"type":"resource","resource":{"uri":"x","blob":"AAAA"}},{}]`)
	f.Fuzz(func(t *testing.T, raw string) {
		var blocks []sdk.ContentBlock
		if json.Unmarshal([]byte(raw), &blocks) != nil {
			return
		}
		text, err := promptText(blocks)
		if err != nil {
			return
		}
		for _, b := range blocks {
			if b.Text != nil && !strings.Contains(text, b.Text.Text) {
				t.Fatalf("the text %q is not in the prompt %q", b.Text.Text, text)
			}
		}
	})
}

// A prompt's blocks become its text: resource links as their paths
// (decoded), embedded text resources with their content; images refused.
func TestPromptText(t *testing.T) {
	text, err := promptText([]sdk.ContentBlock{sdk.TextBlock("look at "), sdk.ResourceLinkBlock("a b.go", "file:///p/a%20b.go"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///p/c.go", Text: "package c\n"}})})
	if err != nil || text != "look at /p/a b.go\n\n/p/c.go:\n```\npackage c\n```\n" {
		t.Errorf("%v %q", err, text)
	}
	if _, err := promptText([]sdk.ContentBlock{sdk.ImageBlock("AAAA", "image/png")}); err == nil || !strings.Contains(err.Error(), "image") {
		t.Errorf("an image: %v", err)
	}
}

// A question about an edit shows the replacement as a diff of the file.
func TestEditQuestionShowsTheDiff(t *testing.T) {
	e := serve(t, apptest.Project{Files: map[string]string{"a.txt": "one two\n"},
		User: map[string]any{"permission": map[string]any{"edit": "ask"}}}, sdk.ClientCapabilities{})
	id := e.newSession(t)
	if _, err := e.prompt(t, id, `/tool edit {"path": "a.txt", "old_string": "one", "new_string": "1"}`); err != nil {
		t.Fatal(err)
	}
	if len(e.cl.asked) != 1 || len(e.cl.asked[0].ToolCall.Content) != 1 {
		t.Fatalf("asked: %+v", e.cl.asked)
	}
	d := e.cl.asked[0].ToolCall.Content[0].Diff
	if d == nil || d.Path != filepath.Join(e.dir, "a.txt") || d.OldText == nil || *d.OldText != "one" || d.NewText != "1" {
		t.Errorf("the question's content: %+v", e.cl.asked[0].ToolCall.Content)
	}
	if disk, _ := os.ReadFile(filepath.Join(e.dir, "a.txt")); string(disk) != "1 two\n" {
		t.Errorf("the allowed edit: %q", disk)
	}
}

// A project's MCP server named to overlap the editor's (github_evil
// beside github) would share the ids, and the user's permission rules,
// meant for the editor's server's tools: the editor's server is refused,
// naming the project's.
func TestEditorsMCPServerOverlappingTheProjectsIsRefused(t *testing.T) {
	e := serve(t, apptest.Project{Config: map[string]any{"mcp": map[string]any{
		"github_evil": map[string]any{"type": "local", "command": []string{"/nonexistent/server"}}}}}, sdk.ClientCapabilities{})
	github := sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "github", Command: "/nonexistent/github", Args: []string{}, Env: []sdk.EnvVariable{}}}
	_, err := e.cl.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: e.dir, McpServers: []sdk.McpServer{github}})
	if err == nil || !strings.Contains(err.Error(), "github_evil") || !strings.Contains(err.Error(), "overlaps the name") {
		t.Errorf("the editor's github beside the project's github_evil: %v", err)
	}
	gitlab := sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "gitlab", Command: "/nonexistent/gitlab", Args: []string{}, Env: []sdk.EnvVariable{}}}
	if _, err := e.cl.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: e.dir, McpServers: []sdk.McpServer{gitlab}}); err != nil {
		t.Errorf("a server whose name overlaps none: %v", err)
	}
}

// A list of the editor's MCP servers is taken whole or not at all: a
// server listed before one that is refused is not left recorded as
// running (it was never started), so the editor may pass it again.
func TestEditorsMCPServersAreTakenWholeOrNotAtAll(t *testing.T) {
	e := serve(t, apptest.Project{Config: map[string]any{"mcp": map[string]any{
		"github_evil": map[string]any{"type": "local", "command": []string{"/nonexistent/server"}}}}}, sdk.ClientCapabilities{})
	mk := func(name string) sdk.McpServer {
		return sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: name, Command: "/nonexistent/" + name, Args: []string{}, Env: []sdk.EnvVariable{}}}
	}
	if _, err := e.cl.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: e.dir, McpServers: []sdk.McpServer{mk("a"), mk("github")}}); err == nil {
		t.Fatal("a list with a refused server was taken")
	}
	if _, err := e.cl.conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: e.dir, McpServers: []sdk.McpServer{mk("a")}}); err != nil {
		t.Fatal(err)
	}
	if n := len(e.srv.mcp); n != 1 {
		t.Errorf("%d sets of MCP servers started, want the one with a", n)
	}
}

// A session's slash commands reach the editor (available_commands_update,
// after the answer that names the session), and a prompt runs one.
func TestSlashCommandsAreAnnounced(t *testing.T) {
	e := serve(t, apptest.Project{Files: map[string]string{
		".claude/commands/hello.md": "---\ndescription: say hello\nargument-hint: <name>\n---\nHello $ARGUMENTS\n",
	}}, sdk.ClientCapabilities{})
	id := e.newSession(t)
	got := e.commands(t, id)
	if len(got) != 1 || got[0].Name != "hello" || got[0].Description != "say hello" || got[0].Input == nil ||
		got[0].Input.Unstructured == nil || got[0].Input.Unstructured.Hint != "<name>" {
		t.Errorf("commands announced: %+v", got)
	}
	if _, err := e.prompt(t, id, "/hello editor"); err != nil {
		t.Fatal(err)
	}
	e.cl.waitForText("the command's answer", "You said: Hello editor")
}

// The prompts of the editor's MCP servers are slash commands too: each
// announced as /mcp__<server>__<prompt> with its arguments, and a prompt
// runs one.
func TestEditorsMCPPromptsAreAnnounced(t *testing.T) {
	everything := apptest.EverythingScript(t)
	e := serve(t, apptest.Project{}, sdk.ClientCapabilities{})
	server := sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "everything", Command: "node", Args: []string{everything, "stdio"}, Env: []sdk.EnvVariable{}}}
	id := e.newSession(t, server)
	got := e.commands(t, id)
	i := slices.IndexFunc(got, func(c sdk.AvailableCommand) bool { return c.Name == "mcp__everything__args-prompt" })
	if i < 0 || got[i].Input == nil || got[i].Input.Unstructured == nil || got[i].Input.Unstructured.Hint != "<city> [state]" {
		t.Fatalf("commands announced: %+v", got)
	}
	if _, err := e.prompt(t, id, "/mcp__everything__args-prompt Paris"); err != nil {
		t.Fatal(err)
	}
	e.cl.waitForText("the prompt's answer", "What's weather in Paris?")
}
