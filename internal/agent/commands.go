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
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/internal/webhook"
)

// command is the slash command req.Prompt invokes ("/name args",
// App.Claude), nil for a prompt that invokes none: not "/…", or a name no
// source defines ("/tool …" for the offline model). A command whose
// source may not run now (a project's file changed since it was trusted)
// rejects the prompt. A command whose model the catalog knows answers
// this turn with it.
func (t *turn) command() (*claudecode.Command, string, error) {
	name, args, ok := claudecode.Invocation(t.req.Prompt)
	if !ok {
		return nil, "", nil
	}
	cmd, err := t.a.App.Claude.Command(name)
	if errors.Is(err, claudecode.ErrUnknown) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", &PromptRejected{Message: err.Error()}
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
	return cmd, args, nil
}

// expand is the prompt the model reads for cmd invoked with args
// (claudecode.Command.Expand): its "!`command`" lines run as calls of the
// bash tool and its "@path" references are read by the read tool, each
// through every hook and the guard, as the model's calls are; their hook
// runs are returned, for the user message.
func (t *turn) expand(ctx context.Context, cmd *claudecode.Command, args string) (string, []chat.HookRun, error) {
	var runs []chat.HookRun
	call := func(ctx context.Context, id string, args map[string]any) (tool.Result, error) {
		if d, ok := t.a.App.Tools.Get(id); ok && !claudecode.AllowsTool(t.req.Tools, d) {
			return tool.Result{}, fmt.Errorf("%s is not among the tools of agent %s", id, t.req.Agent)
		}
		cwd := tool.WorkspaceFrom(ctx, tool.Workspace{Root: t.a.App.Cwd}).Root
		tc := tool.Call{SessionID: t.sess.ID, CallID: chat.NewID("call"), Agent: t.req.Agent, Cwd: cwd}
		res, rep, err := t.a.App.Runner.CallTool(t.ctx(ctx), tc, id, args)
		runs = append(runs, toolRuns(rep)...)
		return res, err
	}
	// The arguments of a turn on the server's behalf come from a webhook's
	// sender or a cron job: they name no file to read.
	argFiles := t.scope.Channel != webhook.Channel && t.scope.Channel != cron.Channel
	text, err := cmd.Expand(ctx, args, claudecode.Runner{ArgFiles: argFiles,
		Shell: func(ctx context.Context, command string) (string, error) {
			res, err := call(ctx, "bash", map[string]any{"command": command})
			return res.Output, err
		},
		File: func(ctx context.Context, path string) (string, bool, error) {
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
