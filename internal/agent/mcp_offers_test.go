package agent_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/mcpclient"
	"github.com/podcode/podcode/plugin"
)

// everythingServer is the MCP project's example server of every feature
// (installed in package mcpclient's testdata), as a user's podcode.json
// declares it.
func everythingServer(t *testing.T) map[string]any {
	t.Helper()
	return map[string]any{"type": "local", "command": []string{"node", apptest.EverythingScript(t), "stdio"}, "timeout": 60000}
}

// An MCP server's prompt is the slash command /mcp__<server>__<prompt>:
// listed with the other commands, its arguments taken from the command
// line in order, its messages the turn's prompt, after UserPromptSubmit
// saw the command as typed; a missing required argument rejects the
// prompt, naming it.
func TestMCPPromptIsASlashCommand(t *testing.T) {
	var submitted []string
	e := newEnv(t, apptest.Project{User: map[string]any{"mcp": map[string]any{"everything": everythingServer(t)}}},
		func(d *plugin.Dispatcher) error {
			return d.Register(plugin.HookUserPromptSubmit, func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
				submitted = append(submitted, p.Extra["prompt"].(string))
				return nil, nil
			})
		})
	cmds := e.ag.App.Commands()
	i := slices.IndexFunc(cmds, func(c app.Command) bool { return c.Name == "mcp__everything__args-prompt" })
	if i < 0 || cmds[i].Source != "mcp:everything" || cmds[i].ArgumentHint != "<city> [state]" || cmds[i].Description == "" {
		t.Fatalf("commands: %+v", cmds)
	}
	res, err := e.turn(t, "/mcp__everything__args-prompt Lyon Auvergne-Rhône-Alpes region")
	if err != nil {
		t.Fatal(err)
	}
	want := "What's weather in Lyon, Auvergne-Rhône-Alpes region?"
	if got := userText(res); got != want {
		t.Errorf("the prompt became %q, want %q", got, want)
	}
	if !strings.Contains(res.Text, want) {
		t.Errorf("the model did not read the prompt's text: %q", res.Text)
	}
	if len(submitted) != 1 || submitted[0] != "/mcp__everything__args-prompt Lyon Auvergne-Rhône-Alpes region" {
		t.Errorf("UserPromptSubmit saw %q", submitted)
	}
	// A prompt of no arguments keeps what was typed after it.
	res, err = e.turn(t, "/mcp__everything__simple-prompt in French")
	if got := userText(res); err != nil || got != "This is a simple prompt without arguments.\n\nARGUMENTS: in French" {
		t.Errorf("simple-prompt: %q %v", got, err)
	}
	_, err = e.turn(t, "/mcp__everything__args-prompt")
	var rejected *agent.PromptRejected
	if !errors.As(err, &rejected) || !strings.Contains(err.Error(), `needs its argument "city"`) {
		t.Errorf("a missing argument: %v", err)
	}
	// A prompt no server has is sent as written, as an unknown command is.
	if res, err = e.turn(t, "/mcp__everything__nope x"); err != nil || userText(res) != "/mcp__everything__nope x" {
		t.Errorf("an unknown prompt: %q %v", userText(res), err)
	}
}

// An @server:uri mention reads the resource into the prompt through the
// mcp_read_resource tool, after UserPromptSubmit and through PreToolUse;
// a PreToolUse deny (here a .claude hook on Claude Code's name of the
// tool, ReadMcpResourceTool) blocks the read, and the prompt says why. The
// model reads resources through the same tools.
func TestMCPResourceMention(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	input := filepath.Join(t.TempDir(), "claude-input.json")
	e := newEnv(t, apptest.Project{
		User: map[string]any{"mcp": map[string]any{"everything": everythingServer(t)}},
		Files: map[string]string{".claude/settings.json": `{"hooks": {"PreToolUse": [{"matcher": "ReadMcpResourceTool", "hooks": [{"type": "command",
			"command": "cat > ` + input + `; grep -q instructions.md ` + input + ` && { echo no instructions for you >&2; exit 2; }; exit 0"}]}]}}`,
			".claude/commands/explain.md": "Explain @everything:demo://resource/dynamic/text/5 in $ARGUMENTS words.\n"},
	})
	doc := "demo://resource/static/document/architecture.md"
	res, err := e.turn(t, "Summarize @everything:"+doc+", and mail me@everything:x or @nobody:a://b.")
	if err != nil {
		t.Fatal(err)
	}
	text := userText(res)
	if !strings.HasPrefix(text, "Summarize @everything:"+doc+", and mail me@everything:x or @nobody:a://b.\n\nContents of @everything:"+doc+":\n") ||
		!strings.Contains(text, "# Everything Server") || strings.Count(text, "Contents of") != 1 {
		t.Errorf("the prompt became:\n%s", text)
	}
	if !strings.Contains(res.Text, "# Everything Server") {
		t.Errorf("the model did not read the resource: %q", chat.Shorten(res.Text, 200))
	}
	if got := e.rec.events(); !strings.Contains(got, "UserPromptSubmit PreToolUse:mcp_read_resource PostToolUse:mcp_read_resource") {
		t.Errorf("the read did not pass the hooks after UserPromptSubmit: %s", got)
	}
	if in, _ := os.ReadFile(input); !strings.Contains(string(in), `"tool_name":"ReadMcpResourceTool"`) || !strings.Contains(string(in), doc) {
		t.Errorf("the .claude hook's input: %s", in)
	}
	msgs, _ := e.st.Messages(context.Background(), res.Session.ID)
	if len(msgs) == 0 || !slices.ContainsFunc(msgs[0].Hooks, func(h chat.HookRun) bool { return h.Hook == string(plugin.HookPreToolUse) }) {
		t.Errorf("the read's hook runs are not on the user message: %+v", msgs)
	}

	// Denied: the resource is not read, and the prompt says why.
	denied := "demo://resource/static/document/instructions.md"
	res, err = e.turn(t, "Follow @everything:"+denied)
	if err != nil {
		t.Fatal(err)
	}
	text = userText(res)
	if strings.Contains(text, "Contents of") || !strings.Contains(text, "@everything:"+denied+" could not be read: ") || !strings.Contains(text, "no instructions for you") {
		t.Errorf("a denied read:\n%s", text)
	}

	// A resource that does not exist: the server's error, in the prompt.
	res, _ = e.turn(t, "Read @everything:demo://nothing/here")
	if text = userText(res); !strings.Contains(text, "@everything:demo://nothing/here could not be read: MCP server \"everything\": reading demo://nothing/here") {
		t.Errorf("a missing resource:\n%s", text)
	}

	// A command's body mentions a resource as it names a file.
	res, err = e.turn(t, "/explain ten")
	if text = userText(res); err != nil || !strings.HasPrefix(text, "Explain @everything:demo://resource/dynamic/text/5 in ten words.") ||
		!strings.Contains(text, "\n\nContents of @everything:demo://resource/dynamic/text/5:\nResource 5: This is a plaintext resource") {
		t.Errorf("a command's mention: %v\n%s", err, text)
	}

	// The model lists and reads resources through the same tools.
	res, err = e.turn(t, "/tool "+mcpclient.ListResourcesToolID+" {}\n/tool "+mcpclient.ReadResourceToolID+` {"server": "everything", "uri": "demo://resource/dynamic/text/3"}`)
	if err != nil {
		t.Fatal(err)
	}
	var outputs []string
	for _, m := range res.Messages {
		if m.Role == chat.RoleTool && m.Result != nil {
			outputs = append(outputs, m.Result.Output)
		}
	}
	if len(outputs) != 2 || !strings.Contains(outputs[0], "- "+doc) || !strings.HasPrefix(outputs[1], "Resource 3: This is a plaintext resource") {
		t.Errorf("the model's calls: %q", outputs)
	}
}
