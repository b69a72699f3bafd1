package app_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/proctest"
	"github.com/podcode/podcode/internal/sandbox"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/plugin"
)

// runner is a plugin whose tool "run" runs a command through
// child_process: execSync (sync), exec (callback) or spawn (events),
// and answers its output or the error's message.
const runner = `import cp from "node:child_process"
import { $ } from "bun"
export default {
  id: "runner",
  server: () => ({
    tool: () => [{
      id: "run", description: "run a command", parameters: { type: "object", properties: { cmd: { type: "string" }, how: { type: "string" }, cwd: { type: "string" } } },
      async execute(args) {
        const opts = args.cwd ? { cwd: args.cwd } : {};
        try {
          if (args.how === "exec") {
            return { title: "exec", output: await new Promise((res, rej) => cp.exec(args.cmd, opts, (e, out) => e ? rej(e) : res(out))) };
          }
          if (args.how === "$") {
            return { title: "$", output: await $` + "`sh -c ${args.cmd}`" + `.text() };
          }
          if (args.how === "spawn") {
            const child = cp.spawn("sh", ["-c", args.cmd], opts);
            let out = "";
            child.stdout.on("data", (b) => { out += b; });
            const code = await new Promise((res, rej) => { child.on("error", rej); child.on("close", res); });
            return { title: "spawn", output: out + "exit " + code };
          }
          return { title: "execSync", output: cp.execSync(args.cmd, { ...opts, encoding: "utf8" }) };
        } catch (e) {
          return { title: "error", output: "ERROR " + e.message };
        }
      },
    }],
  }),
}
`

func runTool(t *testing.T, a *app.App, ctx context.Context, args map[string]any) string {
	t.Helper()
	res, _, err := a.Runner.CallTool(ctx, tool.Call{}, "run", args)
	if err != nil {
		t.Fatalf("run %v: %v", args, err)
	}
	return res.Output
}

// A plugin's processes run through the guard, as a tool call named
// plugin_exec: PreToolUse handlers see the command, the plugin and the
// API, and a deny (here by the command) is the plugin's error, in every
// form of child_process; what is allowed runs, and PostToolUse follows
// with its exit status.
func TestPluginProcessesPassTheGuard(t *testing.T) {
	var mu sync.Mutex
	var seen []map[string]any
	var post []string
	hooks := func(d *plugin.Dispatcher) error {
		if err := d.Register(plugin.HookPreToolUse, func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
			if p.ToolName != app.ToolPluginExec {
				return nil, nil
			}
			var in map[string]any
			json.Unmarshal([]byte(p.ToolInput), &in)
			mu.Lock()
			seen = append(seen, in)
			mu.Unlock()
			if strings.Contains(in["command"].(string), "forbidden") {
				return &plugin.HookResult{Decision: plugin.DecisionDeny, Message: "no forbidden commands"}, nil
			}
			return nil, nil
		}); err != nil {
			return err
		}
		return d.Register(plugin.HookPostToolUse, func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
			if p.ToolName == app.ToolPluginExec {
				mu.Lock()
				post = append(post, p.ToolInput)
				mu.Unlock()
			}
			return nil, nil
		})
	}
	a, logs := apptest.Boot(t, apptest.Project{Files: map[string]string{".podcode/plugins/runner.js": runner}, Hooks: hooks})
	if len(a.Plugins.Plugins) != 1 {
		t.Fatalf("plugins %v; logs:\n%s", a.Plugins.Plugins, strings.Join(logs.Lines(), "\n"))
	}
	ctx := context.Background()
	for _, how := range []string{"execSync", "exec", "spawn", "$"} {
		out := runTool(t, a, ctx, map[string]any{"cmd": "echo allowed", "how": how})
		if !strings.HasPrefix(out, "allowed\n") {
			t.Errorf("%s: %q", how, out)
		}
		out = runTool(t, a, ctx, map[string]any{"cmd": "echo forbidden > " + filepath.Join(a.Cwd, "written"), "how": how})
		if !strings.Contains(out, "ERROR") || !strings.Contains(out, "plugin_exec was denied: no forbidden commands") {
			t.Errorf("%s denied: %q", how, out)
		}
		if _, err := os.Stat(filepath.Join(a.Cwd, "written")); err == nil {
			t.Fatalf("%s: the denied command ran", how)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 8 {
		t.Fatalf("PreToolUse saw %d processes: %v", len(seen), seen)
	}
	first := seen[0]
	if first["plugin"] != "runner" || first["api"] != "child_process.execSync" || first["command"] != "echo allowed" || first["cwd"] != a.Cwd {
		t.Errorf("tool_input %v", first)
	}
	if seen[5]["api"] != "child_process.spawn" || seen[5]["command"] != "sh -c 'echo forbidden > "+filepath.Join(a.Cwd, "written")+"'" {
		t.Errorf("spawn's tool_input %v", seen[5])
	}
	if cmd, _ := seen[7]["command"].(string); seen[7]["api"] != "$" || !strings.HasPrefix(cmd, "bash -c ") || !strings.Contains(cmd, "echo forbidden") {
		t.Errorf("$'s tool_input %v", seen[7])
	}
	if len(post) != 4 {
		t.Errorf("PostToolUse after %d processes, want the 4 that ran: %v", len(post), post)
	}
}

// The permission rules apply: "plugin_exec": "deny" in the user's file
// refuses every process of every plugin, while plugins load too (a
// process started by server() passes the rules before the lifecycle
// handlers exist).
func TestPluginProcessesFollowPermissionRules(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{
		User: map[string]any{"permission": map[string]any{"plugin_exec": "deny"}},
		Files: map[string]string{
			".podcode/plugins/runner.js": runner,
			".podcode/plugins/starter.js": `import { execSync } from "node:child_process"
export default { id: "starter", server: () => { try { execSync("true") } catch (e) { console.warn("at start: " + e.message) } return {} } }`,
		},
	})
	out := runTool(t, a, context.Background(), map[string]any{"cmd": "echo hi"})
	if !strings.Contains(out, "plugin_exec was denied") {
		t.Errorf("denied by the rules: %q", out)
	}
	logs.Require(t, "plugin=starter", "at start: child_process.execSync: plugin_exec was denied")
}

// A plugin's own lifecycle handlers do not vote on its own processes (it
// may wait for them on the loop they run on: execSync would wait for
// ever); another plugin's do.
func TestOwnLifecycleHandlersAbstain(t *testing.T) {
	const selfGuard = `import { execSync } from "node:child_process"
export default { id: "self", server: () => ({
  lifecycle: { PreToolUse: (p) => p.tool_name === "plugin_exec" ? { decision: "deny", message: "self says no" } : undefined },
  tool: () => [{ id: "selfrun", description: "", parameters: { type: "object", properties: {} },
    execute: () => ({ title: "", output: (() => { try { return execSync("echo mine", { encoding: "utf8" }) } catch (e) { return "ERROR " + e.message } })() }) }],
}) }`
	const otherGuard = `export default { id: "other", server: () => ({
  lifecycle: { PreToolUse: (p) => p.tool_name === "plugin_exec" && JSON.parse(p.tool_input).plugin === "runner" ? { decision: "deny", message: "other says no" } : undefined },
}) }`
	a, _ := apptest.Boot(t, apptest.Project{Files: map[string]string{
		".podcode/plugins/self.js": selfGuard, ".podcode/plugins/other.js": otherGuard, ".podcode/plugins/runner.js": runner,
	}})
	ctx := context.Background()
	start := time.Now()
	res, _, err := a.Runner.CallTool(ctx, tool.Call{}, "selfrun", map[string]any{})
	if err != nil || res.Output != "mine\n" {
		t.Errorf("its own process: %+v %v", res, err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("its own process took %s: did it wait on its own handler?", d)
	}
	if out := runTool(t, a, ctx, map[string]any{"cmd": "echo x"}); !strings.Contains(out, "other says no") {
		t.Errorf("another plugin's guard: %q", out)
	}
}

// What a plugin started is killed with it: a process still running when
// the server stops is gone, its whole group.
func TestPluginProcessesEndWithThePlugin(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{Files: map[string]string{".podcode/plugins/bg.js": `import { spawn } from "node:child_process"
let pid = 0
export default { id: "bg", server: () => ({ tool: () => [{ id: "start", description: "", parameters: { type: "object", properties: {} },
  execute: () => new Promise((res) => { const c = spawn("sh", ["-c", "sleep 300 & sleep 300"]); c.on("spawn", () => res({ title: "", output: String(c.pid) })) }) }] }) }`}})
	res, _, err := a.Runner.CallTool(context.Background(), tool.Call{}, "start", map[string]any{})
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(res.Output)
	if err != nil || len(proctest.Group(pid)) == 0 {
		t.Fatalf("pid %q (%v), group %v", res.Output, err, proctest.Group(pid))
	}
	a.Close()
	proctest.AwaitGroupGone(t, pid)
}

// A tenant's call runs the plugin's process in the sandbox, in the
// tenant's workspace (there when no cwd is named): the project is out of
// its reach.
func TestPluginProcessesOfTenantsAreSandboxed(t *testing.T) {
	if sandbox.Probe().ABI == 0 {
		t.Skip("this kernel has no Landlock: the sandbox cannot be tested here")
	}
	a, _ := apptest.Boot(t, apptest.Project{Files: map[string]string{".podcode/plugins/runner.js": runner, "secret.txt": "the project's"}})
	ws, err := a.Workspace(7)
	if err != nil {
		t.Fatal(err)
	}
	tenant := chat.WithScope(context.Background(), chat.Scope{Tenant: "7", TenantID: 7})
	out := runTool(t, a, tenant, map[string]any{"cmd": "pwd; echo made > made.txt; cat " + filepath.Join(a.Cwd, "secret.txt") + " || echo unreadable"})
	if !strings.HasPrefix(out, ws.Root+"\n") || !strings.Contains(out, "unreadable") || strings.Contains(out, "the project's") {
		t.Errorf("a tenant's process: %q", out)
	}
	if data, err := os.ReadFile(filepath.Join(ws.Root, "made.txt")); err != nil || string(data) != "made\n" {
		t.Errorf("made.txt in the tenant's workspace: %q %v", data, err)
	}
	// The user's own call is not sandboxed (tools.sandbox is off).
	if out := runTool(t, a, context.Background(), map[string]any{"cmd": "cat secret.txt"}); out != "the project's" {
		t.Errorf("the user's process: %q", out)
	}
}

// A plugin in the project's .opencode/plugin folder is the project's
// code: before `podcode trust` it does not run (nothing of it: not its
// import, not its processes), and it is shown as skipped.
func TestOpencodeFolderPluginNeedsTrust(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "ran")
	a, logs := apptest.Boot(t, apptest.Project{Untrusted: true, Files: map[string]string{
		".opencode/plugin/sneaky.js": `import { execSync } from "node:child_process"
execSync("touch ` + marker + `")
export const Sneaky = async () => ({})`,
	}})
	if len(a.Plugins.Plugins) != 0 {
		t.Errorf("loaded %v", a.Plugins.Plugins)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the untrusted plugin ran")
	}
	skipped := a.Trust.Skipped()
	if len(skipped) != 1 || !strings.Contains(skipped[0].Name, "sneaky.js") {
		t.Errorf("skipped %+v; logs:\n%s", skipped, strings.Join(logs.Lines(), "\n"))
	}
}
