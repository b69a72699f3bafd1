package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/provider"
	"github.com/podcode/podcode/internal/provider/openaitest"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/plugin"
)

// recorder keeps every lifecycle payload, by event.
type recorder struct {
	mu       sync.Mutex
	payloads []plugin.HookPayload
}

func (r *recorder) register(d *plugin.Dispatcher) error {
	for _, ev := range plugin.HookEvents() {
		if err := d.Register(ev, func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
			r.mu.Lock()
			cp := *p
			cp.Extra = map[string]any{}
			for k, v := range p.Extra {
				cp.Extra[k] = v
			}
			r.payloads = append(r.payloads, cp)
			r.mu.Unlock()
			return nil, nil
		}, plugin.WithSource("recorder")); err != nil {
			return err
		}
	}
	return nil
}

func (r *recorder) events() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, p := range r.payloads {
		s := string(p.Event)
		if p.ToolName != "" {
			s += ":" + p.ToolName
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

type env struct {
	ag  *agent.Agent
	st  *store.Store
	rec *recorder
}

func newEnv(t *testing.T, p apptest.Project, extra ...func(*plugin.Dispatcher) error) *env {
	t.Helper()
	e := &env{rec: &recorder{}}
	p.Hooks = func(d *plugin.Dispatcher) error {
		if err := e.rec.register(d); err != nil {
			return err
		}
		for _, f := range extra {
			if err := f(d); err != nil {
				return err
			}
		}
		return nil
	}
	a, _ := apptest.Boot(t, p)
	st, err := store.Open(context.Background(), filepath.Join(a.Cwd, ".podcode", "podcode.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	e.ag = agent.New(a, st)
	e.st = st
	return e
}

func (e *env) turn(t *testing.T, prompt string) (*agent.TurnResult, error) {
	t.Helper()
	sess, err := e.ag.NewSession(context.Background(), agent.SessionRequest{Channel: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	return e.ag.Run(context.Background(), agent.TurnRequest{SessionID: sess.ID, Prompt: prompt, Channel: "cli"})
}

// covers L1 L5
func TestTurnFiresEveryHookInOrder(t *testing.T) {
	e := newEnv(t, apptest.Project{Files: map[string]string{"notes.txt": "hello notes",
		".podcode/plugins/trail.js": `export default { id: "trail", server: () => ({
			"chat.params": (p) => ({ ...p, temperature: 0.1 }),
			"tool.execute.before": (i) => ({ ...i, args: { ...i.args } }),
			"tool.execute.after": (i) => ({ ...i, result: { ...i.result, output: i.result.output + " [seen]" } }),
		}) }`}})
	res, err := e.turn(t, "please read\n/tool read {\"path\": \"notes.txt\"}")
	if err != nil {
		t.Fatal(err)
	}
	if got := e.rec.events(); got != "SessionStart UserPromptSubmit PreToolUse:read PostToolUse:read AgentStop" {
		t.Errorf("lifecycle order: %s", got)
	}
	roles := []string{}
	for _, m := range res.Messages {
		roles = append(roles, m.Role)
	}
	if strings.Join(roles, ",") != "user,assistant,tool,assistant" {
		t.Fatalf("messages %v", roles)
	}
	tm := res.Messages[2]
	if !strings.Contains(tm.Result.Output, "hello notes") || !strings.HasSuffix(tm.Result.Output, "[seen]") {
		t.Errorf("tool result %q", tm.Result.Output)
	}
	var hooks []string
	for _, h := range tm.Hooks {
		hooks = append(hooks, h.Hook+"/"+h.Source+"/"+h.Outcome)
	}
	want := "PreToolUse/config:permission/abstained PreToolUse/recorder/abstained tool.execute.before/trail/changed tool.execute.after/trail/changed PostToolUse/recorder/abstained"
	if strings.Join(hooks, " ") != want {
		t.Errorf("tool message hooks:\n%s\nwant\n%s", strings.Join(hooks, " "), want)
	}
	if h := res.Messages[1].Hooks; len(h) != 1 || h[0].Hook != "chat.params" || h[0].Outcome != "changed" {
		t.Errorf("assistant hooks %+v", h)
	}
	if res.Text != "Tool read returned:\n     1\thello notes\n [seen]" {
		t.Errorf("final text %q", res.Text)
	}
	// Every payload carries the session, the channel, and extra.model/max_context/usage.
	e.rec.mu.Lock()
	defer e.rec.mu.Unlock()
	for _, p := range e.rec.payloads {
		if p.SessionID != res.Session.ID || p.Channel != "cli" || p.Extra[plugin.ExtraModel] != "offline/echo" ||
			p.Extra[plugin.ExtraMaxContext] != 128000 || p.Extra[plugin.ExtraUsage] == nil {
			t.Errorf("%s payload %+v", p.Event, p)
		}
		if p.Event == plugin.HookPostToolUse && (p.ToolOutput == "" || p.ToolInput != `{"path":"notes.txt"}`) {
			t.Errorf("PostToolUse payload %+v", p)
		}
	}
	if res.Session.Status != store.SessionIdle || res.Session.Usage.Input == 0 {
		t.Errorf("session %+v", res.Session)
	}
	stored, _ := e.st.Messages(context.Background(), res.Session.ID)
	if len(stored) != 4 || len(stored[2].Hooks) != 5 {
		t.Errorf("stored %d messages", len(stored))
	}
}

func TestPromptRejectedByHook(t *testing.T) {
	e := newEnv(t, apptest.Project{}, func(d *plugin.Dispatcher) error {
		return d.Register(plugin.HookUserPromptSubmit, func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
			if strings.Contains(fmt.Sprint(p.Extra["prompt"]), "password") {
				return &plugin.HookResult{Decision: plugin.DecisionDeny, Message: "no secrets in prompts"}, nil
			}
			return nil, nil
		})
	})
	_, err := e.turn(t, "my password is hunter2")
	var rej *agent.PromptRejected
	if !errors.As(err, &rej) || rej.Message != "no secrets in prompts" {
		t.Fatalf("err = %v", err)
	}
}

func TestPermissionPolicyAndHookDeny(t *testing.T) {
	e := newEnv(t, apptest.Project{Config: map[string]any{"permission": map[string]any{"bash": "deny", "b*": "allow", "*": "ask"}}},
		func(d *plugin.Dispatcher) error {
			return d.Register(plugin.HookPreToolUse, func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
				return &plugin.HookResult{Decision: plugin.DecisionAllow}, nil
			}, plugin.WithSource("allow-all"))
		})
	res, err := e.turn(t, "/tool bash {\"command\": \"echo hi\"}")
	if err != nil {
		t.Fatal(err)
	}
	out := res.Messages[2].Result
	if !out.IsError || !strings.Contains(out.Output, "bash was denied") || !strings.Contains(out.Output, `permission rule "bash" says deny`) {
		t.Errorf("a config deny must beat a hook's allow: %+v", out)
	}
	// "*" says ask and nobody can answer here: refused, saying so.
	res, _ = e.turn(t, "/tool glob {\"pattern\": \"*\"}")
	if out := res.Messages[2].Result; !out.IsError || !strings.Contains(out.Output, "nobody can answer") {
		t.Errorf("ask without an asker: %+v", out)
	}
}

// silent never answers: it waits until the question's context ends.
type silent struct{}

func (silent) Ask(ctx context.Context, _ guard.Question) (bool, error) {
	<-ctx.Done()
	return false, ctx.Err()
}

// An ask, on a prompt or on a tool, that nobody answers within
// agent.ask_timeout_ms is a refusal that says so; with nobody to ask at
// all, it is refused at once.
//
// covers L8
func TestUnansweredAskIsARefusal(t *testing.T) {
	e := newEnv(t, apptest.Project{Config: map[string]any{"permission": map[string]any{"glob": "ask"}, "agent": map[string]any{"ask_timeout_ms": 50}}},
		func(d *plugin.Dispatcher) error {
			return d.Register(plugin.HookUserPromptSubmit, func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
				if strings.Contains(fmt.Sprint(p.Extra["prompt"]), "deploy") {
					return &plugin.HookResult{Decision: plugin.DecisionAsk, Message: "deploys need a yes"}, nil
				}
				return nil, nil
			})
		})
	_, err := e.turn(t, "deploy now")
	var rej *agent.PromptRejected
	if !errors.As(err, &rej) || rej.Message != "a hook wants the prompt confirmed (deploys need a yes), and "+guard.ErrNobodyToAsk.Error() {
		t.Errorf("no asker: %v", err)
	}
	e.ag.App.Guard.SetAsker(silent{})
	_, err = e.turn(t, "deploy now")
	if !errors.As(err, &rej) || rej.Message != "a hook wants the prompt confirmed (deploys need a yes), and nobody answered within 50ms" {
		t.Errorf("no answer: %v", err)
	}
	res, err := e.turn(t, "/tool glob {\"pattern\": \"*\"}")
	if err != nil {
		t.Fatal(err)
	}
	if out := res.Messages[2].Result; !out.IsError || !strings.Contains(out.Output, "nobody answered within 50ms: refused") {
		t.Errorf("tool ask with no answer: %+v", out)
	}
}

type yes struct{ asked []guard.Question }

func (y *yes) Ask(_ context.Context, q guard.Question) (bool, error) {
	y.asked = append(y.asked, q)
	return q.Tool == "glob", nil
}

func TestAskGoesToTheAsker(t *testing.T) {
	e := newEnv(t, apptest.Project{Config: map[string]any{"permission": map[string]any{"*": "ask"}}})
	asker := &yes{}
	e.ag.App.Guard.SetAsker(asker)
	res, err := e.turn(t, "/tool glob {\"pattern\": \"*.json\"}\n/tool grep {\"pattern\": \"x\"}")
	if err != nil {
		t.Fatal(err)
	}
	if res.Messages[2].Result.IsError || !strings.Contains(res.Messages[2].Result.Output, "podcode.json") {
		t.Errorf("approved glob: %+v", res.Messages[2].Result)
	}
	if r := res.Messages[3].Result; !r.IsError || !strings.Contains(r.Output, "refused to run grep") {
		t.Errorf("refused grep: %+v", r)
	}
	if len(asker.asked) != 2 || asker.asked[0].SessionID != res.Session.ID {
		t.Errorf("questions %+v", asker.asked)
	}
}

func TestLoopGuard(t *testing.T) {
	e := newEnv(t, apptest.Project{Files: map[string]string{"a.txt": "a"}})
	line := "/tool read {\"path\": \"a.txt\"}"
	res, err := e.turn(t, line+"\n"+line+"\n"+line)
	if err != nil {
		t.Fatal(err)
	}
	var outs []bool
	for _, m := range res.Messages {
		if m.Result != nil {
			outs = append(outs, m.Result.IsError)
		}
	}
	if fmt.Sprint(outs) != "[false false true]" || !strings.Contains(res.Messages[4].Result.Output, "3 times in a row") {
		t.Errorf("loop guard: %v %+v", outs, res.Messages[4].Result)
	}
}

func TestAgentStopDenyContinues(t *testing.T) {
	n := 0
	e := newEnv(t, apptest.Project{}, func(d *plugin.Dispatcher) error {
		return d.Register(plugin.HookAgentStop, func(context.Context, *plugin.HookPayload) (*plugin.HookResult, error) {
			n++
			if n == 1 {
				return &plugin.HookResult{Decision: plugin.DecisionDeny, Message: "also run the tests"}, nil
			}
			return nil, nil
		})
	})
	res, err := e.turn(t, "done?")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range res.Messages {
		texts = append(texts, m.Role+":"+m.Text)
	}
	// The session's first echo on the cli channel introduces the offline model.
	if strings.Join(texts, "|") != "user:done?|assistant:You said: done?\n\n"+provider.Intro+"|user:also run the tests|assistant:You said: also run the tests" {
		t.Errorf("messages %q", texts)
	}
}

// SubAgentStart's additional_context starts the child session, and the
// child's SessionEnd follows SubAgentStop.
//
// covers L1
func TestSubAgentFiresItsHooks(t *testing.T) {
	e := newEnv(t, apptest.Project{Files: map[string]string{"b.txt": "bee"}}, func(d *plugin.Dispatcher) error {
		return d.Register(plugin.HookSubAgentStart, func(context.Context, *plugin.HookPayload) (*plugin.HookResult, error) {
			return &plugin.HookResult{Data: map[string]any{plugin.DataAdditionalContext: "you only read"}}, nil
		})
	})
	prompt := "/tool task " + mustJSON(map[string]any{"description": "read b", "prompt": "/tool read {\"path\": \"b.txt\"}"})
	res, err := e.turn(t, prompt)
	if err != nil {
		t.Fatal(err)
	}
	want := "SessionStart UserPromptSubmit PreToolUse:task SubAgentStart SessionStart UserPromptSubmit PreToolUse:read PostToolUse:read AgentStop SubAgentStop SessionEnd PostToolUse:task AgentStop"
	if got := e.rec.events(); got != want {
		t.Errorf("order:\n%s\nwant\n%s", got, want)
	}
	r := res.Messages[2].Result
	if r.IsError || !strings.Contains(r.Output, "bee") || r.Metadata["sessionID"] == nil {
		t.Errorf("task result %+v", r)
	}
	child, err := e.st.Session(context.Background(), store.DefaultTenant, r.Metadata["sessionID"].(string))
	if err != nil || child.ParentID != res.Session.ID {
		t.Errorf("child %+v %v", child, err)
	}
	// The child's session ends with its task: SessionEnd pairs its
	// SessionStart.
	for _, p := range e.rec.payloads {
		if p.Event == plugin.HookSessionEnd && p.SessionID != child.ID {
			t.Errorf("SessionEnd of %s, want the child's %s", p.SessionID, child.ID)
		}
	}
	msgs, _ := e.st.Messages(context.Background(), child.ID)
	if len(msgs) < 2 || msgs[0].Role != chat.RoleContext || msgs[0].Text != "you only read" || msgs[1].Role != chat.RoleUser {
		t.Errorf("child messages %+v", msgs)
	}
	// The turn's usage counts the sub-agent's calls; each session counts
	// its own.
	if child.Usage.Input == 0 || res.Usage != res.Session.Usage.Add(child.Usage) {
		t.Errorf("turn %+v, session %+v, child %+v", res.Usage, res.Session.Usage, child.Usage)
	}
}

func TestCompaction(t *testing.T) {
	e := newEnv(t, apptest.Project{Config: map[string]any{"model": "offline/tiny", "provider": map[string]any{"offline": map[string]any{
		"models": map[string]any{"tiny": map[string]any{"limit": map[string]any{"context": 400, "output": 100}}}}}}})
	sess, _ := e.ag.NewSession(context.Background(), agent.SessionRequest{})
	for i := 0; i < 8; i++ {
		if _, err := e.ag.Run(context.Background(), agent.TurnRequest{SessionID: sess.ID, Prompt: strings.Repeat(fmt.Sprintf("turn %d ", i), 20)}); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.Contains(e.rec.events(), "PreCompact PostCompact") {
		t.Fatalf("no compaction: %s", e.rec.events())
	}
	msgs, _ := e.st.Messages(context.Background(), sess.ID)
	found := false
	for _, m := range msgs {
		if m.Role == chat.RoleSummary {
			found = true
			if !strings.HasPrefix(m.Text, "Summary of ") || m.Through == 0 || !strings.Contains(m.Text, "the user asked: turn 0") {
				t.Errorf("summary %+v", m)
			}
		}
	}
	if !found {
		t.Error("no summary stored")
	}
}

// What SessionStart handlers gave the model opens every history, however
// often the session is compacted: it is never summarized away.
//
// covers L1
func TestCompactionKeepsTheOpeningContext(t *testing.T) {
	opening := "Project rules: " + strings.Repeat("always run the tests; ", 20)
	e := newEnv(t, apptest.Project{Config: map[string]any{"model": "offline/tiny", "provider": map[string]any{"offline": map[string]any{
		"models": map[string]any{"tiny": map[string]any{"limit": map[string]any{"context": 700, "output": 100}}}}}}},
		func(d *plugin.Dispatcher) error {
			return d.Register(plugin.HookSessionStart, func(context.Context, *plugin.HookPayload) (*plugin.HookResult, error) {
				return &plugin.HookResult{Data: map[string]any{plugin.DataAdditionalContext: opening}}, nil
			})
		})
	sess, err := e.ag.NewSession(context.Background(), agent.SessionRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 12; i++ {
		if _, err := e.ag.Run(context.Background(), agent.TurnRequest{SessionID: sess.ID, Prompt: strings.Repeat(fmt.Sprintf("turn %d ", i), 20)}); err != nil {
			t.Fatal(err)
		}
	}
	if n := strings.Count(e.rec.events(), "PreCompact PostCompact"); n < 2 {
		t.Fatalf("compacted %d times; the test needs two", n)
	}
	hist, err := e.st.Recent(context.Background(), sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) < 2 || hist[0].Role != chat.RoleContext || hist[0].Text != opening || hist[1].Role != chat.RoleSummary {
		t.Fatalf("history after compaction starts with %+v", hist[:min(2, len(hist))])
	}
	for _, m := range hist[1:] {
		if strings.Contains(m.Text, "Project rules") {
			t.Errorf("the opening context was summarized too: %q", m.Text)
		}
	}
}

func TestDeleteSessionFiresSessionEnd(t *testing.T) {
	e := newEnv(t, apptest.Project{})
	res, _ := e.turn(t, "hi")
	if err := e.ag.DeleteSession(context.Background(), store.DefaultTenant, res.Session.ID); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(e.rec.events(), "SessionEnd") {
		t.Errorf("events %s", e.rec.events())
	}
	// Claude Code's reason for a conversation cleared away.
	e.rec.mu.Lock()
	last := e.rec.payloads[len(e.rec.payloads)-1]
	e.rec.mu.Unlock()
	if last.Extra["reason"] != "clear" {
		t.Errorf("SessionEnd of a deleted session has reason %v, want clear", last.Extra["reason"])
	}
	if _, err := e.st.Session(context.Background(), store.DefaultTenant, res.Session.ID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("still there: %v", err)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A turn on an OpenAI-compatible endpoint (a local server replaying the
// wire format): tool calls stream in, run through the hooks, and the
// answer comes back; a provider failure leaves the session consistent.
func TestTurnOnOpenAICompatibleProvider(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		switch calls.Add(1) {
		case 1:
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"read\",\"arguments\":\"{\\\"path\\\":\\\"a.txt\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":5}}\n\ndata: [DONE]\n\n")
		case 2:
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a.txt says hi\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":30,\"completion_tokens\":4}}\n\ndata: [DONE]\n\n")
		default:
			w.WriteHeader(401)
		}
	}))
	defer srv.Close()
	// The provider is the user's: a project's file cannot set an endpoint.
	e := newEnv(t, apptest.Project{Files: map[string]string{"a.txt": "hi"}, User: map[string]any{"model": "local/m", "provider": map[string]any{"local": map[string]any{
		"options": map[string]any{"baseURL": srv.URL, "maxRetries": 0}, "models": map[string]any{"m": map[string]any{"limit": map[string]any{"context": 8000, "output": 500}}}}}}})
	res, err := e.turn(t, "what does a.txt say?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "a.txt says hi" || len(res.Messages) != 4 || !strings.Contains(res.Messages[2].Result.Output, "hi") || res.Session.Usage.Input != 40 {
		t.Errorf("%+v", res)
	}
	res, err = e.ag.Run(context.Background(), agent.TurnRequest{SessionID: res.Session.ID, Prompt: "again"})
	if err == nil || !strings.Contains(err.Error(), "refused the API key") {
		t.Fatalf("err = %v", err)
	}
	last := res.Messages[len(res.Messages)-1]
	if last.Role != chat.RoleAssistant || last.Status != chat.StatusError || res.Session.Status != store.SessionIdle {
		t.Errorf("after a failed call: %+v, session %s", last, res.Session.Status)
	}
}

// Secrets of the environment never reach the store, hence neither the
// model nor the API.
func TestSecretsAreRedactedBeforeStorage(t *testing.T) {
	t.Setenv("ACME_API_KEY", "sk-acme-0123456789")
	e := newEnv(t, apptest.Project{})
	res, err := e.turn(t, "/tool bash {\"command\": \"echo key=$ACME_API_KEY\"}")
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := e.st.Messages(context.Background(), res.Session.ID)
	for _, m := range msgs {
		b, _ := json.Marshal(m)
		if strings.Contains(string(b), "sk-acme-0123456789") {
			t.Fatalf("a secret was stored: %s", b)
		}
	}
	if !strings.Contains(msgs[2].Result.Output, "key=[redacted]") || !strings.Contains(res.Text, "[redacted]") {
		t.Errorf("tool output %q, final %q", msgs[2].Result.Output, res.Text)
	}
}

// A recorded conversation replays fixed turns, so plugins can be tested
// against them.
func TestOfflineReplay(t *testing.T) {
	e := newEnv(t, apptest.Project{Files: map[string]string{
		"a.txt": "alpha",
		"turn.jsonl": `{"text": "Let me look.", "toolCalls": [{"tool": "read", "args": {"path": "a.txt"}}]}` + "\n" +
			`{"text": "It says alpha.", "usage": {"input": 100, "output": 5}}` + "\n",
	}, Config: map[string]any{"provider": map[string]any{"offline": map[string]any{"options": map[string]any{"replay": "turn.jsonl"}}}}})
	res, err := e.turn(t, "what is in a.txt?")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "It says alpha." || !strings.Contains(res.Messages[2].Result.Output, "alpha") || res.Session.Usage.Output < 5 {
		t.Errorf("%+v", res)
	}
	if _, err := e.turn(t, "more"); err == nil || !strings.Contains(err.Error(), "has no answer 3") {
		t.Errorf("after the recording: %v", err)
	}
}

// Cancelling a turn reaches the running tool: the bash command is killed,
// the turn ends at once, the session is marked interrupted.
func TestCancelReachesTheRunningTool(t *testing.T) {
	e := newEnv(t, apptest.Project{})
	sess, _ := e.ag.NewSession(context.Background(), agent.SessionRequest{})
	started := make(chan struct{})
	var once sync.Once
	e.ag.App.Bus.Subscribe("tool.call.started", "test", func(bus.Event) { once.Do(func() { close(started) }) })
	done := make(chan error, 1)
	begin := time.Now()
	go func() {
		_, err := e.ag.Run(context.Background(), agent.TurnRequest{SessionID: sess.ID, Prompt: "/tool bash {\"command\": \"sleep 30\"}"})
		done <- err
	}()
	<-started
	if !e.ag.Cancel(sess.ID) {
		t.Fatal("no turn to cancel")
	}
	err := <-done
	if !errors.Is(err, context.Canceled) || time.Since(begin) > 10*time.Second {
		t.Fatalf("err %v after %s", err, time.Since(begin))
	}
	got, _ := e.st.Session(context.Background(), store.DefaultTenant, sess.ID)
	if got.Status != store.SessionInterrupted {
		t.Errorf("status %q", got.Status)
	}
	if strings.Contains(e.rec.events(), "PostToolUse") && !strings.Contains(e.rec.events(), "PostToolUseFailure:bash") {
		t.Errorf("events %s", e.rec.events())
	}
}

// Many sessions run turns at once. Run with -race.
func TestManySessionsAtOnce(t *testing.T) {
	e := newEnv(t, apptest.Project{Files: map[string]string{"a.txt": "a",
		".podcode/plugins/p.js": `export default { id: "p", server: () => ({ "tool.execute.after": (i) => ({ ...i, result: { ...i.result, output: i.result.output + "!" } }) }) }`}})
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			sess, err := e.ag.NewSession(context.Background(), agent.SessionRequest{})
			if err != nil {
				t.Error(err)
				return
			}
			for j := 0; j < 3; j++ {
				res, err := e.ag.Run(context.Background(), agent.TurnRequest{SessionID: sess.ID, Prompt: `/tool read {"path": "a.txt", "offset": 0}`})
				if err != nil || !strings.HasSuffix(res.Text, "!") {
					t.Errorf("session %d turn %d: %v %+v", i, j, err, res)
					return
				}
			}
		}(i)
	}
	wg.Wait()
}

// Text that handlers give the model (plugin.DataAdditionalContext) reaches
// it: SessionStart's at the start of the session, UserPromptSubmit's after
// the prompt (two handlers' joined), PostToolUse's after the tool's result;
// it is stored with the session and sent to an OpenAI-compatible endpoint
// as user input.
//
// covers L1 L8
func TestAdditionalContextReachesTheModel(t *testing.T) {
	var mu sync.Mutex
	var bodies []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		n := len(bodies)
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		if n == 1 {
			fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"read\",\"arguments\":\"{\\\"path\\\":\\\"a.txt\\\"}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]\n\n")
			return
		}
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"done\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	say := func(text string) plugin.HookHandler {
		return func(context.Context, *plugin.HookPayload) (*plugin.HookResult, error) {
			return &plugin.HookResult{Data: map[string]any{plugin.DataAdditionalContext: text}}, nil
		}
	}
	e := newEnv(t, apptest.Project{Files: map[string]string{"a.txt": "hi"}, User: map[string]any{"model": "local/m", "provider": map[string]any{"local": map[string]any{
		"options": map[string]any{"baseURL": srv.URL, "maxRetries": 0}, "models": map[string]any{"m": map[string]any{}}}}}},
		func(d *plugin.Dispatcher) error {
			return errors.Join(
				d.Register(plugin.HookSessionStart, say("the project is podcode")),
				d.Register(plugin.HookUserPromptSubmit, say("the branch is main")),
				d.Register(plugin.HookUserPromptSubmit, say("tests are green")),
				d.Register(plugin.HookPostToolUse, say("a.txt is generated")))
		})
	res, err := e.turn(t, "what does a.txt say?")
	if err != nil {
		t.Fatal(err)
	}
	stored, err := e.st.Messages(context.Background(), res.Session.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range stored {
		text := m.Text
		if m.Result != nil {
			text = m.Result.Output
		}
		got = append(got, m.Role+": "+strings.ReplaceAll(text, "\n", " "))
	}
	want := []string{
		"context: the project is podcode",
		"user: what does a.txt say?",
		"context: the branch is main  tests are green",
		"assistant: ",
		"tool:      1\thi   (from a PostToolUse hook: a.txt is generated)",
		"assistant: done",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("stored:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// What the model read on its second call.
	var req struct {
		Messages []struct {
			Role    string  `json:"role"`
			Content *string `json:"content"`
		} `json:"messages"`
	}
	mu.Lock()
	defer mu.Unlock()
	if len(bodies) != 2 {
		t.Fatalf("%d model calls", len(bodies))
	}
	if err := json.Unmarshal([]byte(bodies[1]), &req); err != nil {
		t.Fatal(err)
	}
	var sent []string
	for _, m := range req.Messages {
		if m.Role == "user" && m.Content != nil {
			sent = append(sent, *m.Content)
		}
	}
	if strings.Join(sent, "|") != "the project is podcode|what does a.txt say?|the branch is main\n\ntests are green" {
		t.Errorf("user input the model read: %q", sent)
	}
}

// A Claude Code UserPromptSubmit script that prints plain text adds it to
// the model's context, unchanged, as in Claude Code.
//
// covers L1
func TestClaudeHookContextReachesTheModel(t *testing.T) {
	script, err := os.ReadFile("../claudehooks/testdata/hooks/prompt-guard.sh")
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, apptest.Project{Files: map[string]string{
		".claude/settings.json": `{"hooks": {"UserPromptSubmit": [{"hooks": [
			{"type": "command", "command": "sh \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/prompt-guard.sh"}]}]}}`,
		".claude/hooks/prompt-guard.sh": string(script),
	}})
	res, err := e.turn(t, "deploy the app")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Messages) != 3 || res.Messages[1].Role != chat.RoleContext || res.Messages[1].Text != "The deployment target is staging." {
		t.Errorf("messages %+v", res.Messages)
	}
	if _, err := e.turn(t, "my password is hunter2"); err == nil || !strings.Contains(err.Error(), "contains a password") {
		t.Errorf("a blocked prompt: %v", err)
	}
}

// A Stop hook's continuation is a new prompt: the loop guard starts afresh,
// so the same command may run again (a hook that loops until the tests
// pass runs the tests each time).
func TestStopContinuationResetsLoopGuard(t *testing.T) {
	stops := 0
	e := newEnv(t, apptest.Project{
		Files: map[string]string{"turn.jsonl": `{"toolCalls": [{"tool": "bash", "args": {"command": "echo testing"}}]}` + "\n" +
			`{"text": "done"}` + "\n" +
			`{"toolCalls": [{"tool": "bash", "args": {"command": "echo testing"}}]}` + "\n" +
			`{"text": "done again"}` + "\n"},
		Config: map[string]any{"provider": map[string]any{"offline": map[string]any{"options": map[string]any{"replay": "turn.jsonl"}}}},
		User:   map[string]any{"agent": map[string]any{"loop_guard": 2}},
	}, func(d *plugin.Dispatcher) error {
		return d.Register(plugin.HookAgentStop, func(context.Context, *plugin.HookPayload) (*plugin.HookResult, error) {
			if stops++; stops == 1 {
				return &plugin.HookResult{Decision: plugin.DecisionDeny, Message: "run the tests again"}, nil
			}
			return nil, nil
		})
	})
	res, err := e.turn(t, "test it")
	if err != nil {
		t.Fatal(err)
	}
	var outputs []string
	for _, m := range res.Messages {
		if m.Result != nil {
			outputs = append(outputs, m.Result.Output)
		}
	}
	if len(outputs) != 2 || !strings.Contains(outputs[1], "testing") {
		t.Fatalf("the command after the continuation: %q", outputs)
	}
}

// Each lifecycle handler's run is stored with its layer and its reason,
// and a secret in a reason or an error is redacted like everything stored
// (a guard may quote the command it refused; a Stop hook may quote what
// it read).
func TestHookRunsKeepLayerAndReasonRedacted(t *testing.T) {
	t.Setenv("ACME_API_KEY", "sk-acme-0123456789")
	e := newEnv(t, apptest.Project{}, func(d *plugin.Dispatcher) error {
		if err := d.Register(plugin.HookPreToolUse, func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
			return &plugin.HookResult{Decision: plugin.DecisionDeny, Message: "refused: " + p.ToolInput}, nil
		}, plugin.WithSource("quoting-guard")); err != nil {
			return err
		}
		return d.Register(plugin.HookAgentStop, func(context.Context, *plugin.HookPayload) (*plugin.HookResult, error) {
			return nil, errors.New("stop hook saw sk-acme-0123456789")
		}, plugin.WithSource("leaky-stop"))
	})
	res, err := e.turn(t, "/tool bash {\"command\": \"echo sk-acme-0123456789\"}")
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := e.st.Messages(context.Background(), res.Session.ID)
	var guard, stop *chat.HookRun
	for _, m := range msgs {
		b, _ := json.Marshal(m)
		if strings.Contains(string(b), "sk-acme-0123456789") {
			t.Fatalf("a secret was stored: %s", b)
		}
		for i, h := range m.Hooks {
			switch h.Source {
			case "quoting-guard":
				guard = &m.Hooks[i]
			case "leaky-stop":
				stop = &m.Hooks[i]
			}
		}
	}
	if guard == nil || guard.Layer == "" || !strings.Contains(guard.Message, "refused: ") || !strings.Contains(guard.Message, "[redacted]") {
		t.Errorf("the guard's run: %+v", guard)
	}
	if stop == nil || !strings.Contains(stop.Error, "[redacted]") {
		t.Errorf("the Stop hook's run: %+v", stop)
	}
}

// The model's text is redacted as it streams, for every reader of the
// turn's progress (an editor over ACP, the CLI, /events), not only when
// stored, and so is the answer the turn returns.
func TestStreamedTextIsRedacted(t *testing.T) {
	const secret = "sk-acme-stream-0123456789"
	t.Setenv("ACME_API_KEY", secret)
	// A model that says a secret it was never shown (it knows it, or
	// guessed it).
	e := newEnv(t, onOpenAI(openaitest.New(t, openaitest.Answer{Text: "the key is " + secret}), nil))
	sess, err := e.ag.NewSession(context.Background(), agent.SessionRequest{Channel: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var streamed, published strings.Builder
	unsubscribe := e.ag.App.Bus.Subscribe(agent.EventTextDelta, "test", func(ev bus.Event) {
		mu.Lock()
		defer mu.Unlock()
		published.WriteString(fmt.Sprint(ev.Properties["text"]))
	})
	defer unsubscribe()
	res, err := e.ag.Run(context.Background(), agent.TurnRequest{SessionID: sess.ID, Prompt: "what is the key?", Channel: "cli",
		OnEvent: func(ev agent.Event) {
			mu.Lock()
			defer mu.Unlock()
			streamed.WriteString(ev.Text)
		}})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	// The turn's answer too (POST /sessions/{id}/messages gives it back).
	for what, text := range map[string]string{"OnEvent": streamed.String(), "the bus": published.String(), "the turn's answer": res.Text} {
		if !strings.Contains(text, "[redacted]") || strings.Contains(text, "0123456789") {
			t.Errorf("%s streamed %q", what, text)
		}
	}
}

// Inject stores a message at once in an idle session; in a turn, before
// its next model call, or, when the turn made its last one, as it ends:
// for the next turn, never lost.
func TestInjectIsNeverLost(t *testing.T) {
	var ag *agent.Agent
	var injectErr error
	e := newEnv(t, apptest.Project{}, func(d *plugin.Dispatcher) error {
		return d.Register(plugin.HookAgentStop, func(ctx context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
			_, injectErr = ag.Inject(ctx, "", p.SessionID, "too late for this turn")
			return nil, nil
		})
	})
	ag = e.ag
	ctx := context.Background()
	sess, err := e.ag.NewSession(ctx, agent.SessionRequest{Channel: "api"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := e.ag.Inject(ctx, "", sess.ID, "before any turn")
	if err != nil || m.ID == "" || m.Role != "user" {
		t.Fatalf("inject: %+v %v", m, err)
	}
	if _, err := e.ag.Run(ctx, agent.TurnRequest{SessionID: sess.ID, Prompt: "hello", Channel: "api"}); err != nil {
		t.Fatal(err)
	}
	if injectErr != nil {
		t.Fatal(injectErr)
	}
	msgs, err := e.st.Messages(ctx, sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range msgs {
		texts = append(texts, m.Role+":"+m.Text)
	}
	want := "user:before any turn|user:hello|assistant:You said: hello|user:too late for this turn"
	if strings.Join(texts, "|") != want {
		t.Errorf("messages\n%q\nwant\n%q", strings.Join(texts, "|"), want)
	}
	if _, err := e.ag.Inject(ctx, "", "ses_none", "x"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("inject into no session: %v", err)
	}
}
