package acp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
)

// event is a line testdata/client.mjs prints.
type event struct {
	Event      string `json:"event"`
	Session    string `json:"session"`
	Update     string `json:"update"`
	Status     string `json:"status"`
	ToolCallID string `json:"toolCallId"`
	Kind       string `json:"kind"`
	Title      string `json:"title"`
	Text       string `json:"text"`
	StopReason string `json:"stopReason"`
	Options    []string
	Message    string `json:"message"`
	Code       *int   `json:"code"`

	ProtocolVersion int    `json:"protocolVersion"`
	LoadSession     bool   `json:"loadSession"`
	Agent           string `json:"agent"`
}

// The official TypeScript client (@agentclientprotocol/sdk, installed by
// scripts/test) starts the built `podcode acp`, runs a prompt whose bash
// call asks permission and answers it, receives the updates in order,
// cancels a second prompt while its call runs, and loads the session back.
func TestOfficialTypeScriptClient(t *testing.T) {
	testdata, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(testdata, "node_modules", "@agentclientprotocol", "sdk")); err != nil {
		t.Fatalf("the ACP client is not installed (scripts/test runs npm ci in internal/acp/testdata): %v", err)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is needed to run the ACP client")
	}
	bin := apptest.Binary(t, apptest.Podcode)
	project, config := projectAndConfig(t, `{"permission": {"bash": "ask"}}`)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(testdata, "client.mjs"), bin, project)
	cmd.Dir = testdata
	cmd.Env = environ(t, config)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the client: %v\n%s\nstderr:\n%s", err, out, stderr.String())
	}
	var events []event
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var e event
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		events = append(events, e)
		lines = append(lines, describeEvent(e))
	}
	got := strings.Join(lines, "\n")
	want := strings.Join([]string{
		"initialized 1 load=true podcode",
		"session",
		// The first prompt: announced, asked, run, finished, answered.
		"update tool_call pending execute Run echo from-bash",
		"permission Run echo from-bash allow_once,reject_once",
		"update tool_call_update in_progress",
		"update tool_call_update completed from-bash",
		"update agent_message_chunk",
		"stop end_turn",
		// The second: asked, run, cancelled.
		"update tool_call pending execute Run sleep 30",
		"permission Run sleep 30 allow_once,reject_once",
		"update tool_call_update in_progress",
		"cancel",
		"update tool_call_update failed the call was cancelled before it finished (the turn was cancelled); what it did until then is unknown",
		"stop cancelled",
		// The session, loaded back.
		"load",
		`update user_message_chunk /tool bash {"command": "echo from-bash"}`,
		"update tool_call pending execute Run echo from-bash",
		"update tool_call_update completed from-bash",
		"update agent_message_chunk",
		`update user_message_chunk /tool bash {"command": "sleep 30"}`,
		"update tool_call pending execute Run sleep 30",
		"update tool_call_update failed the call was cancelled before it finished (the turn was cancelled); what it did until then is unknown",
		"loaded",
		"exit 0",
	}, "\n")
	if got != want {
		t.Errorf("the client saw:\n%s\n\nwant:\n%s\n\npodcode's log:\n%s", got, want, stderr.String())
	}
	// The question is about the call announced just before it, in the
	// session the client created.
	for i, e := range events {
		if e.Event == "permission" && (e.ToolCallID == "" || e.ToolCallID != events[i-1].ToolCallID || e.Session != events[1].Session) {
			t.Errorf("the question %+v is not about the call %+v", e, events[i-1])
		}
	}
}

func TestMain(m *testing.M) {
	code := m.Run()
	apptest.RemoveBinaries()
	os.Exit(code)
}

// projectAndConfig makes a project and a user config folder whose
// podcode.json is user.
func projectAndConfig(t *testing.T, user string) (project, config string) {
	t.Helper()
	project, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(project, "podcode.json"), []byte("{}"), 0o644)
	config = t.TempDir()
	os.MkdirAll(filepath.Join(config, "podcode"), 0o755)
	os.WriteFile(filepath.Join(config, "podcode", "podcode.json"), []byte(user), 0o644)
	return project, config
}

// environ is the environment of a podcode of the tests: nothing of the
// real user's config, data or Claude Code folder.
func environ(t *testing.T, config string) []string {
	return append(os.Environ(), "XDG_CONFIG_HOME="+config, "XDG_DATA_HOME="+t.TempDir(), "XDG_CACHE_HOME="+t.TempDir(),
		"CLAUDE_CONFIG_DIR="+t.TempDir(), "PODCODE_TRUST_ALL=")
}

// SIGTERM ends podcode acp: the running turn is cancelled, its prompt
// answered with stopReason cancelled, and the process exits with status 0.
func TestSIGTERMCancelsAndEnds(t *testing.T) {
	bin := apptest.Binary(t, apptest.Podcode)
	project, config := projectAndConfig(t, `{}`)
	cmd := exec.Command(bin, "acp")
	cmd.Dir, cmd.Env = project, environ(t, config)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	send := func(v string) { io.WriteString(stdin, v+"\n") }
	until := func(what string, ok func(string) bool) {
		t.Helper()
		for lines.Scan() {
			if ok(lines.Text()) {
				return
			}
		}
		t.Fatalf("no %s on stdout; stderr:\n%s", what, stderr.String())
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	until("initialize answer", func(l string) bool { return strings.Contains(l, `"id":1`) })
	send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + strconvQuote(project) + `,"mcpServers":[]}}`)
	var session string
	until("session", func(l string) bool {
		var m struct {
			Result struct {
				SessionID string `json:"sessionId"`
			} `json:"result"`
		}
		json.Unmarshal([]byte(l), &m)
		session = m.Result.SessionID
		return session != ""
	})
	send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + session + `","prompt":[{"type":"text","text":"/tool bash {\"command\": \"sleep 30\"}"}]}}`)
	until("in_progress", func(l string) bool { return strings.Contains(l, `"status":"in_progress"`) })
	start := time.Now()
	cmd.Process.Signal(syscall.SIGTERM)
	until("the prompt's answer", func(l string) bool {
		return strings.Contains(l, `"id":3`) && strings.Contains(l, `"stopReason":"cancelled"`)
	})
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("podcode acp after SIGTERM: %v\n%s", err, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("podcode acp did not exit after SIGTERM (%s)", time.Since(start))
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

func describeEvent(e event) string {
	var parts []string
	switch e.Event {
	case "initialized":
		parts = []string{e.Event, itoa(e.ProtocolVersion), "load=" + map[bool]string{true: "true", false: "false"}[e.LoadSession], e.Agent}
	case "update":
		parts = []string{e.Event, e.Update, e.Status, e.Kind, e.Title}
		switch e.Update {
		case "tool_call_update", "user_message_chunk":
			parts = append(parts, strings.TrimSpace(e.Text))
		}
	case "permission":
		parts = []string{e.Event, e.Title, strings.Join(e.Options, ",")}
	case "stop":
		parts = []string{e.Event, e.StopReason}
	case "error":
		parts = []string{e.Event, e.Message}
	case "exit":
		code := -1
		if e.Code != nil {
			code = *e.Code
		}
		parts = []string{e.Event, itoa(code)}
	default:
		parts = []string{e.Event}
	}
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, " ")
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
