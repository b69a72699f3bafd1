package pipeline_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/jsrt"
	"github.com/podcode/podcode/internal/pipeline"
	"github.com/podcode/podcode/internal/provider"
	"github.com/podcode/podcode/internal/tool"
)

func fixture(t *testing.T, name string) string {
	return apptest.Fixture(t, filepath.Join("plugins", name))
}

func trail(v map[string]any) string {
	b, _ := json.Marshal(v["trail"])
	return string(b)
}

func outcomes(steps []pipeline.Step) string {
	var out []string
	for _, s := range steps {
		out = append(out, s.Plugin+":"+s.Outcome)
	}
	return strings.Join(out, " ")
}

var before = map[string]any{"toolID": "bash", "args": map[string]any{"command": "ls"}, "ctx": map[string]any{"callID": "c1"}}

// covers H1
func TestFourHooksAreWired(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "chain-a.js"), fixture(t, "tool-probe.js")}})
	want := map[string][]string{"chain-a": {"chat.params", "tool.execute.before", "tool.execute.after"}, "tool-probe": {"tool", "tool.execute.before", "tool.execute.after"}}
	for _, p := range a.Plugins.Plugins {
		if strings.Join(p.Hooks, ",") != strings.Join(want[p.ID], ",") {
			t.Errorf("%s implements %v", p.ID, p.Hooks)
		}
	}
	if strings.Join(jsplugin.Hooks, ",") != "tool,chat.params,tool.execute.before,tool.execute.after" {
		t.Errorf("hooks %v", jsplugin.Hooks)
	}
	_, rep, err := a.Runner.CallTool(context.Background(), tool.Call{}, "echo_args", map[string]any{"n": 1.0})
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomes(rep.Steps); got != "chain-a:changed tool-probe:changed chain-a:changed tool-probe:changed" {
		t.Errorf("steps %s", got)
	}
	_, steps := a.Runner.ChatParams(context.Background(), pipeline.ChatInput{Model: offline(t, a)})
	if outcomes(steps) != "chain-a:changed" {
		t.Errorf("chat.params steps %s", outcomes(steps))
	}
}

func offline(t *testing.T, a interface {
	Model() (provider.Model, error)
}) provider.Model {
	m, err := a.Model()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// covers H2 P11
func TestOrderConfigThenDiscovered(t *testing.T) {
	chain := func(name string) string {
		return `export default { id: "` + name + `", server: () => ({ "tool.execute.before": (i) => ({ ...i, trail: [...(i.trail || []), "` + name + `"] }) }) }`
	}
	dir := apptest.Dir(t, apptest.Project{
		Plugins: []string{fixture(t, "chain-c.js"), fixture(t, "async-slow.js"), fixture(t, "chain-a.js")},
		Files: map[string]string{
			".podcode/plugins/b-disc.ts":  chain("b-disc"),
			".podcode/plugins/a-disc.mjs": chain("a-disc"),
			".podcode/plugins/Z-disc.cjs": `module.exports = { id: "Z-disc", server: () => ({ "tool.execute.before": (i) => ({ ...i, trail: [...(i.trail || []), "Z-disc"] }) }) }`,
			".podcode/plugins/notes.txt":  "not a plugin",
			".podcode/plugins/types.d.ts": "declare const x: number",
		},
	})
	// The user's plugins folder comes after the project's.
	userDir := t.TempDir()
	writeFile(t, filepath.Join(userDir, "plugins", "0-user.js"), chain("0-user"))
	for i := 0; i < 3; i++ { // the same order on every start
		a, _ := apptest.BootDir(t, dir, apptest.Project{UserDir: userDir})
		out, _ := a.Runner.Run(context.Background(), jsplugin.HookToolBefore, before)
		if got := trail(out); got != `["c","async-slow","a","Z-disc","a-disc","b-disc","0-user"]` {
			t.Fatalf("start %d: order %s", i, got)
		}
		if p := a.Plugins.Plugins[3]; p.Source != jsplugin.FromDiscovered || a.Plugins.Plugins[0].Source != jsplugin.FromConfig {
			t.Errorf("sources %s %s", a.Plugins.Plugins[0].Source, p.Source)
		}
		a.Close()
	}
}

// covers H3 H6
func TestOutputThreadsForwardAndAsyncIsAwaited(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "chain-a.js"), fixture(t, "async-slow.js"), fixture(t, "chain-b.js")}})
	out, steps := a.Runner.Run(context.Background(), jsplugin.HookToolBefore, before)
	if got := trail(out); got != `["a","async-slow","b"]` {
		t.Errorf("trail %s", got)
	}
	if steps[1].Duration < 25*time.Millisecond {
		t.Errorf("async hook took %s: not awaited?", steps[1].Duration)
	}
	if trail(before) != "null" {
		t.Error("the caller's payload changed")
	}
}

// covers H4
func TestUndefinedMeansNoChange(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "chain-a.js"), fixture(t, "observer.js"), fixture(t, "chain-b.js")}})
	out, steps := a.Runner.Run(context.Background(), jsplugin.HookToolBefore, before)
	if got := trail(out); got != `["a","b"]` || out["args"] == nil {
		t.Errorf("observer's mutation leaked: %v", out)
	}
	if outcomes(steps) != "chain-a:changed observer:unchanged chain-b:changed" {
		t.Errorf("steps %s", outcomes(steps))
	}
	res, _, err := a.Runner.CallTool(context.Background(), tool.Call{}, "bash", map[string]any{"command": "echo hi"})
	if err != nil || res.Output != "hi\n" {
		t.Errorf("after hook mutation leaked: %q %v", res.Output, err)
	}
}

// covers H5
func TestFragmentReplacesWholePayload(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "fragment.js"), fixture(t, "params-probe.js")}})
	m := offline(t, a)
	req, _ := a.Runner.ChatParams(context.Background(), pipeline.ChatInput{SessionID: "s", Model: m, Specified: map[string]any{"topP": 0.9}})
	if req.Temperature == nil || *req.Temperature != 0.5 || req.TopP != nil {
		t.Errorf("fragment did not replace the whole payload: %+v", req)
	}
	seen, _ := json.Marshal(req.Options["seen"])
	if string(seen) != `{"maxOutputTokens":"missing","options":"missing","temperature":0.5,"topK":"missing","topP":"missing"}` {
		t.Errorf("the next plugin saw %s", seen)
	}
}

// covers H7
func TestThrowIsIsolated(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "chain-a.js"), fixture(t, "thrower.js"), fixture(t, "chain-b.js")}})
	out, steps := a.Runner.Run(context.Background(), jsplugin.HookToolBefore, before)
	if got := trail(out); got != `["a","b"]` {
		t.Errorf("trail %s: the pipeline must continue from the pre-throw value", got)
	}
	if outcomes(steps) != "chain-a:changed thrower:threw chain-b:changed" || !strings.Contains(steps[1].Error, "before broke") {
		t.Errorf("steps %+v", steps)
	}
	logs.Require(t, "WARN plugin: hook threw", "plugin=thrower", "hook=tool.execute.before", "before broke")
	m := offline(t, a)
	req, _ := a.Runner.ChatParams(context.Background(), pipeline.ChatInput{Model: m})
	if req.MaxOutputTokens != m.Limit.Output {
		t.Errorf("chat.params after a throw: %+v", req)
	}
	logs.Require(t, "WARN plugin: hook threw", "plugin=thrower", "hook=chat.params", "TypeError: params broke")
}

// covers H8
func TestSlowHookAbandonedAfter5s(t *testing.T) {
	t.Parallel() // five real seconds: run beside the others
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "chain-a.js"), fixture(t, "sleeper.js"), fixture(t, "chain-b.js")}})
	start := time.Now()
	out, steps := a.Runner.Run(context.Background(), jsplugin.HookToolBefore, before)
	elapsed := time.Since(start)
	if got := trail(out); got != `["a","b"]` {
		t.Errorf("trail %s", got)
	}
	if outcomes(steps) != "chain-a:changed sleeper:timed_out chain-b:changed" {
		t.Errorf("steps %s", outcomes(steps))
	}
	if elapsed < pipeline.DefaultHookTimeout || elapsed > pipeline.DefaultHookTimeout+4*time.Second {
		t.Errorf("pipeline took %s", elapsed)
	}
	logs.Require(t, "WARN", "exceeded 5000ms; dropping its contribution", "plugin=sleeper", "hook=tool.execute.before")
}

// A hook that spins is stopped by the runtime, its contribution dropped,
// and its plugin keeps serving; other plugins and calls are unaffected.
func TestSpinningHookIsStopped(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "spinner.js"), fixture(t, "chain-b.js")},
		HookTimeout: 2 * time.Second, JobLimit: 300 * time.Millisecond})
	spin := map[string]any{"toolID": "bash", "args": map[string]any{"spin": true}}
	out, steps := a.Runner.Run(context.Background(), jsplugin.HookToolBefore, spin)
	if trail(out) != `["b"]` || outcomes(steps) != "spinner:timed_out chain-b:changed" {
		t.Errorf("spin: %s %s", trail(out), outcomes(steps))
	}
	logs.Require(t, "exceeded 2000ms; dropping its contribution", "plugin=spinner")
	// Only a stopped spin frees the plugin's loop for the next call.
	out, _ = a.Runner.Run(context.Background(), jsplugin.HookToolBefore, before)
	if trail(out) != `["spinner2","b"]` {
		t.Errorf("after the spin the plugin should serve with its state: %s", trail(out))
	}
}

// A rejected promise nobody awaits is logged; nothing else happens.
func TestUnhandledRejectionIsLogged(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "rejects-unawaited.js"), fixture(t, "chain-b.js")}})
	out, _ := a.Runner.Run(context.Background(), jsplugin.HookToolBefore, before)
	if trail(out) != `["rejects-unawaited","b"]` {
		t.Errorf("trail %s", trail(out))
	}
	// The loop reports rejections after the job that made them.
	logs.Await(t, "WARN plugin: unhandled promise rejection", "plugin=rejects-unawaited", "nobody catches this")
}

// covers H12 H13
func TestChatParamsUndefinedTunables(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "params-probe.js")}})
	m := offline(t, a)
	req, steps := a.Runner.ChatParams(context.Background(), pipeline.ChatInput{SessionID: "s1", Agent: "build", Model: m,
		Specified: map[string]any{"temperature": 0.0, "topK": 40.0}})
	if len(steps) != 1 {
		t.Fatalf("chat.params did not run: %v", steps)
	}
	seen, _ := json.Marshal(req.Options["seen"])
	if string(seen) != `{"maxOutputTokens":"undefined","options":"undefined","temperature":0,"topK":40,"topP":"undefined"}` {
		t.Errorf("the plugin saw %s", seen)
	}
	if req.Temperature == nil || *req.Temperature != 0 || req.TopP != nil || req.TopK == nil || *req.TopK != 40 {
		t.Errorf("request %+v: an explicit zero must stay, undefined must be left out", req)
	}
	p := pipeline.ChatPayload(pipeline.ChatInput{Model: m})
	for _, k := range pipeline.Tunables {
		if v, ok := p[k]; !ok || !jsrt.IsUndefined(v) {
			t.Errorf("payload[%s] = %#v, want present and undefined", k, v)
		}
	}
	if lim := p["model"].(map[string]any)["limit"].(map[string]any); lim["output"] != 4096.0 || lim["context"] != 128000.0 {
		t.Errorf("model limit %v", lim)
	}
}

// covers H14
func TestMaxOutputTokensClamped(t *testing.T) {
	for _, c := range []struct {
		set  any
		want int
	}{{nil, 4096}, {100000.0, 4096}, {1000.0, 1000}, {0.0, 4096}} {
		cfg := map[string]any{}
		if c.set != nil {
			cfg["params-probe"] = map[string]any{"maxOutputTokens": c.set}
		}
		a, _ := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "params-probe.js")}, PluginConfig: cfg})
		req, _ := a.Runner.ChatParams(context.Background(), pipeline.ChatInput{Model: offline(t, a)})
		if req.MaxOutputTokens != c.want {
			t.Errorf("plugin set %v: maxOutputTokens %d, want %d", c.set, req.MaxOutputTokens, c.want)
		}
	}
}

// covers H15
func TestOptionsMergeOverPodcodes(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{
		Plugins:      []string{fixture(t, "params-probe.js")},
		PluginConfig: map[string]any{"params-probe": map[string]any{"options": map[string]any{"reasoningEffort": "low", "plugin": true}}},
		User: map[string]any{"model": "acme/thinker", "provider": map[string]any{"acme": map[string]any{
			"options": map[string]any{"baseURL": "https://acme.test", "store": false},
			"models":  map[string]any{"thinker": map[string]any{"limit": map[string]any{"context": 1000, "output": 100}, "reasoning": true, "options": map[string]any{"store": true}}},
		}}},
	})
	m := offline(t, a)
	if m.Name() != "acme/thinker" || m.Limit.Output != 100 {
		t.Fatalf("model %+v", m)
	}
	req, _ := a.Runner.ChatParams(context.Background(), pipeline.ChatInput{Model: m})
	if req.Options["baseURL"] != nil || m.Connection.BaseURL != "https://acme.test" || req.Options["store"] != true || req.Options["plugin"] != true || req.Options["reasoningEffort"] != "low" {
		t.Errorf("options %v: the plugin's keys must win over the computed reasoning effort and the configured options; connection settings stay out", req.Options)
	}
	plain := pipeline.Finalize(m, pipeline.ChatPayload(pipeline.ChatInput{Model: m}))
	if plain.Options[pipeline.ReasoningEffortKey] != pipeline.DefaultReasoningEffort {
		t.Errorf("no reasoning effort computed: %v", plain.Options)
	}
}

// covers H16 H17
func TestToolHooksAroundExecute(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "tool-probe.js")}})
	ctx := context.Background()
	res, rep, err := a.Runner.CallTool(ctx, tool.Call{CallID: "call_9"}, "echo_args", map[string]any{"n": 1.0})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != `{"n":2,"seenCtx":"call_9"} (after saw {"n":2,"seenCtx":"call_9"})` {
		t.Errorf("output %q", res.Output)
	}
	if res.Metadata["callID"] != "call_9" || res.Metadata["hasAbort"] != true {
		t.Errorf("metadata %v", res.Metadata)
	}
	if args, _ := json.Marshal(rep.Args); string(args) != `{"n":2,"seenCtx":"call_9"}` {
		t.Errorf("execute received %s", args)
	}
	// Validation comes first: invalid arguments never reach the hook.
	if _, _, err := a.Runner.CallTool(ctx, tool.Call{}, "echo_args", map[string]any{"n": "x"}); err == nil || !strings.Contains(err.Error(), "n: ") {
		t.Errorf("invalid args: %v", err)
	}
	// The hook sees every tool, built-ins included.
	if _, _, err := a.Runner.CallTool(ctx, tool.Call{}, "read", map[string]any{"path": "podcode.json"}); err != nil {
		t.Fatal(err)
	}
	res, _, _ = a.Runner.CallTool(ctx, tool.Call{}, "echo_args", map[string]any{"n": 1.0})
	if seen, _ := json.Marshal(res.Metadata["seenTools"]); string(seen) != `["echo_args","read","echo_args"]` {
		t.Errorf("the before hook saw %s", seen)
	}
}

// Arguments a before hook rewrote are validated again before execute.
func TestRewrittenArgsAreValidatedAgain(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "tool-probe.js"), fixture(t, "bad-rewrite.js")}})
	_, _, err := a.Runner.CallTool(context.Background(), tool.Call{}, "echo_args", map[string]any{"n": 1.0})
	if err == nil || !strings.Contains(err.Error(), "rewritten by tool.execute.before") || !strings.Contains(err.Error(), "n: ") {
		t.Errorf("err %v", err)
	}
}

// covers H18
func TestAfterHookThrowIsNotAToolError(t *testing.T) {
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "thrower.js")}})
	res, rep, err := a.Runner.CallTool(context.Background(), tool.Call{}, "bash", map[string]any{"command": "echo fine"})
	if err != nil || res.Output != "fine\n" {
		t.Errorf("result %q, %v: the model must receive the unmodified result", res.Output, err)
	}
	if outcomes(rep.Steps) != "thrower:threw thrower:threw" {
		t.Errorf("steps %s", outcomes(rep.Steps))
	}
	logs.Require(t, "WARN plugin: hook threw", "plugin=thrower", "hook=tool.execute.after", "after broke")
}

// Concurrent tool calls through the same plugins: run with -race.
func TestConcurrentCalls(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{Plugins: []string{fixture(t, "chain-a.js"), fixture(t, "tool-probe.js"), fixture(t, "async-slow.js")}})
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				res, _, err := a.Runner.CallTool(context.Background(), tool.Call{CallID: "c"}, "echo_args", map[string]any{"n": float64(g*100 + i)})
				if err != nil || !strings.HasPrefix(res.Output, `{"n":`+jsonNumber(g*100+i+1)) {
					t.Errorf("call %d/%d: %q %v", g, i, res.Output, err)
					return
				}
			}
		}(g)
	}
	wg.Wait()
}

func jsonNumber(n int) string {
	b, _ := json.Marshal(n)
	return string(b)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// An error's text reaches the model too, so tool.execute.after sees it: a
// redactor must be able to scrub a failing command's output.
func TestAfterHookSeesErrors(t *testing.T) {
	a, _ := apptest.Boot(t, apptest.Project{Plugins: []string{"./redact.js"}, Files: map[string]string{"redact.js": `export default { id: "redact", server: () => ({
		"tool.execute.after": (i) => ({ ...i, result: { ...i.result, output: i.result.output.replaceAll("hunter2", "[REDACTED]") + (i.result.metadata && i.result.metadata.error ? " (error)" : "") } }),
	}) }`}})
	_, _, err := a.Runner.CallTool(context.Background(), tool.Call{}, "bash", map[string]any{"command": "echo password=hunter2; sleep 10", "timeout": 1500.0})
	var te *pipeline.ToolError
	if !errors.As(err, &te) || strings.Contains(err.Error(), "hunter2") || !strings.Contains(err.Error(), "password=[REDACTED]") ||
		!strings.HasSuffix(err.Error(), "(error)") || !strings.Contains(te.Err.Error(), "did not finish") {
		t.Errorf("err = %v", err)
	}
}

// covers H14: absurd values clamp too, never overflow.
func TestMaxOutputTokensHugeValues(t *testing.T) {
	m := provider.Model{ProviderID: "offline", ModelID: "echo"}
	m.Limit.Output = 4096
	for _, n := range []float64{1e19, 1e300} {
		req := pipeline.Finalize(m, map[string]any{"maxOutputTokens": n})
		if req.MaxOutputTokens != 4096 {
			t.Errorf("%g: %d", n, req.MaxOutputTokens)
		}
	}
}
