package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/claudecode"
	"github.com/podcode/podcode/internal/cron"
	"github.com/podcode/podcode/internal/mcpclient"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/internal/webhook"
)

// slashCommand is what a prompt invokes: a command of Claude Code's
// layout, or an MCP server's prompt.
type slashCommand struct {
	claude *claudecode.Command
	args   string // what followed the command's name
	// An MCP server's prompt, with its arguments (Prompt.Bind) and what was
	// typed after a prompt that declares none.
	server *mcpclient.Server
	prompt mcpclient.Prompt
	values map[string]string
	extra  string
}

// command is the slash command req.Prompt invokes ("/name args": a command
// of App.Claude, else an MCP server's prompt, App.MCPHub), nil for a
// prompt that invokes none: not "/…", or a name no source defines ("/tool
// …" for the offline model). A command whose source may not run now (a
// project's file changed since it was trusted), a prompt of a server that
// is not running, and a prompt missing a required argument reject the
// prompt. A command whose model the catalog knows answers this turn with
// it.
func (t *turn) command() (*slashCommand, error) {
	name, args, ok := claudecode.Invocation(t.req.Prompt)
	if !ok {
		return nil, nil
	}
	cmd, err := t.a.App.Claude.Command(name)
	if errors.Is(err, claudecode.ErrUnknown) {
		return t.mcpPrompt(name, args)
	}
	if err != nil {
		return nil, &PromptRejected{Message: err.Error()}
	}
	if cmd.Model != "" && cmd.Model != "inherit" {
		if m, err := t.a.model(cmd.Model); err == nil {
			if p, err := t.a.provider(m); err == nil {
				t.model, t.prov, t.scope.Model, t.scope.MaxContext = m, p, m.Name(), m.Limit.Context
			}
		} else {
			t.a.App.Log.Debug("agent: a command's model is not one of the catalog's; the session's answers", "command", name, "model", cmd.Model)
		}
	}
	return &slashCommand{claude: cmd, args: args}, nil
}

// mcpPrompt is the MCP server's prompt name invokes, with its arguments
// bound; nil when no server's prompt is invoked so.
func (t *turn) mcpPrompt(name, args string) (*slashCommand, error) {
	srv, p, err := t.a.App.MCPHub.Prompt(name)
	switch {
	case errors.Is(err, mcpclient.ErrNoPrompt):
		return nil, nil
	case err != nil:
		return nil, &PromptRejected{Message: err.Error()}
	}
	values, extra, err := p.Bind(args)
	if err != nil {
		return nil, &PromptRejected{Message: err.Error()}
	}
	return &slashCommand{args: args, server: srv, prompt: p, values: values, extra: extra}, nil
}

// expand is the prompt the model reads for the person's prompt, which
// invokes cmd or, when cmd is nil, no command; the hook runs of the calls
// it made are returned, for the user message.
//
//   - A command of Claude Code's layout (claudecode.Command.Expand): its
//     "!`command`" lines run as calls of the bash tool and its "@path"
//     references are read by the read tool, an "@server:uri" of an MCP
//     server by the mcp_read_resource tool, each through every hook and
//     the guard, as the model's calls are.
//   - An MCP server's prompt: the text of its messages (prompts/get), with
//     what was typed after a prompt that declares no argument appended as
//     a command's arguments are ("ARGUMENTS: …").
//   - No command: the prompt, with the MCP resources its "@server:uri"
//     mentions name appended (mcpclient.ExpandMentions), each read by the
//     mcp_read_resource tool, through every hook and the guard.
func (t *turn) expand(ctx context.Context, cmd *slashCommand) (string, []chat.HookRun, error) {
	var runs []chat.HookRun
	call := func(ctx context.Context, id string, args map[string]any) (tool.Result, error) {
		if d, ok := t.a.App.Tools.Get(id); ok && !claudecode.AllowsTool(t.req.Tools, d) {
			return tool.Result{}, fmt.Errorf("%s is not among the tools of agent %s", id, t.req.Agent)
		}
		cwd := tool.WorkspaceFrom(ctx, tool.Workspace{Root: t.a.App.Cwd}).Root
		tc := tool.Call{SessionID: t.sess.ID, CallID: chat.NewID("call"), Agent: t.req.Agent, Cwd: cwd}
		res, rep, err := t.a.App.Runner.CallTool(t.ctx(ctx), tc, id, args)
		runs = append(runs, rep.Runs()...)
		return res, err
	}
	// The arguments of a turn on the server's behalf come from a webhook's
	// sender or a cron job: they name no file to read, nor resource.
	argFiles := t.scope.Channel != webhook.Channel && t.scope.Channel != cron.Channel
	known := func(server string) bool { return t.a.App.MCPHub.Server(server) != nil }
	resource := func(ctx context.Context, server, uri string) (string, error) {
		res, err := call(ctx, mcpclient.ReadResourceToolID, map[string]any{"server": server, "uri": uri})
		return res.Output, err
	}
	switch {
	case cmd == nil && !argFiles:
		return t.req.Prompt, nil, nil
	case cmd == nil:
		text, err := mcpclient.ExpandMentions(ctx, t.req.Prompt, known, resource)
		return text, runs, err
	case cmd.claude == nil:
		text, err := cmd.server.GetPrompt(ctx, cmd.prompt, cmd.values)
		if err == nil && cmd.extra != "" {
			text = strings.TrimRight(text, "\n") + "\n\nARGUMENTS: " + cmd.extra
		}
		return text, nil, err
	}
	text, err := cmd.claude.Expand(ctx, cmd.args, claudecode.Runner{ArgFiles: argFiles,
		Shell: func(ctx context.Context, command string) (string, error) {
			res, err := call(ctx, "bash", map[string]any{"command": command})
			return res.Output, err
		},
		File: func(ctx context.Context, path string) (string, bool, error) {
			if server, uri, ok := strings.Cut(path, ":"); ok && uri != "" && known(server) {
				content, err := resource(ctx, server, uri)
				return content, err == nil, err
			}
			// A mention of no file in the workspace (a handle, an
			// address) stays text, without a call; one outside it is
			// the read tool's to refuse.
			root := tool.WorkspaceFrom(ctx, tool.Workspace{Root: t.a.App.Cwd}).Root
			p := path
			if !filepath.IsAbs(p) {
				p = filepath.Join(root, p)
			}
			// Lstat, not Stat: whether a link's target exists outside
			// the workspace is the read tool's to refuse to tell.
			if rel, err := filepath.Rel(root, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() && fi.Mode()&os.ModeSymlink == 0 {
					return "", false, nil
				}
			}
			res, err := call(ctx, "read", map[string]any{"path": path})
			if err != nil {
				return "", false, err
			}
			return res.Output, true, nil
		},
	})
	return text, runs, err
}
