package opencodeapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/opencodeapi"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/tool"
)

// env is a booted project with an agent over a real store, whose plugins'
// client is answered by opencodeapi.
type env struct {
	a    *app.App
	ag   *agent.Agent
	logs *apptest.Logs
}

func boot(t testing.TB, p apptest.Project) *env {
	t.Helper()
	a, logs := apptest.Boot(t, p)
	return wrap(t, a, logs)
}

// wrap gives a booted app an agent over a real store, and the API.
func wrap(t testing.TB, a *app.App, logs *apptest.Logs) *env {
	t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "podcode.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	ag := agent.New(a, st)
	a.SetPluginAPI(opencodeapi.New(a, ag))
	return &env{a: a, ag: ag, logs: logs}
}

func (e *env) turn(t *testing.T, session, prompt string) *agent.TurnResult {
	t.Helper()
	res, err := e.ag.Run(context.Background(), agent.TurnRequest{SessionID: session, Prompt: prompt, Channel: "cli"})
	if err != nil {
		t.Fatalf("turn %q: %v", prompt, err)
	}
	return res
}

func (e *env) session(t *testing.T) string {
	t.Helper()
	s, err := e.ag.NewSession(context.Background(), agent.SessionRequest{Title: "a test", Channel: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	return s.ID
}

// client is an opencode plugin whose tool "client" calls its SDK client
// as published plugins do, and whose event hook keeps what it hears.
const client = `export const Client = async ({ client, directory }) => {
  const heard = []
  return {
    event: async ({ event }) => { heard.push(event.type + (event.properties.sessionID ? "@" + event.properties.sessionID : "")) },
    tool: {
      client: {
        description: "calls the client", args: {},
        async execute(args, ctx) {
          const out = {}
          const health = await (client.global._client ?? client._client).get({ url: "/global/health" })
          out.healthy = health.data.healthy
          const s = await client.session.get({ path: { id: ctx.sessionID }, query: { directory } })
          out.title = s.data.title
          out.projectID = s.data.projectID
          const missing = await client.session.get({ path: { id: "ses_nope" } })
          out.missing = missing.error.name + ": " + !!missing.error.data.message + " " + missing.response.status
          try { await client.session.get({ path: { id: "ses_nope" }, throwOnError: true }) } catch (e) { out.thrown = e.message }
          const msgs = await client.session.messages({ path: { id: ctx.sessionID } })
          out.roles = msgs.data.map((m) => m.info.role).join(",")
          out.firstText = msgs.data[0].parts[0].text
          const log = await client.app.log({ body: { service: "client-test", level: "warn", message: "logged through the client", extra: { n: 1 } } })
          out.logged = log.data
          await client.tui.showToast({ body: { message: "toasted", variant: "success" } })
          const injected = await client.session.prompt({ path: { id: ctx.sessionID }, body: { noReply: true, parts: [{ type: "text", text: "NOTE FROM A PLUGIN" }] } })
          out.injectedRole = injected.data.info.role
          const list = await client.session.list()
          out.sessions = list.data.length
          const cfg = await client.config.get()
          out.model = cfg.data.model
          const providers = await client.provider.list()
          out.providers = providers.data.all.map((p) => p.id).join(",")
          const nope = await client.pty.list()
          out.pty = nope.error.name
          try { client.session.get() } catch (e) { out.noOptions = e.constructor.name }
          return JSON.stringify(out)
        },
      },
      heard: { description: "", args: {}, execute: async () => heard.join(" ") },
    },
  }
}
`

// A plugin's client speaks to Podcode in process, as opencode's SDK speaks
// to opencode: health, sessions, messages, logs, toasts, a noReply prompt
// that the running turn reads before its next model call, errors as the
// SDK returns or throws them, and 404 naming what Podcode does not serve.
// Its event hook hears the turn as opencode's events.
func TestClientInProcess(t *testing.T) {
	e := boot(t, apptest.Project{Files: map[string]string{".opencode/plugin/client.js": client}})
	if len(e.a.Plugins.Plugins) != 1 {
		t.Fatalf("plugins %v; logs:\n%s", e.a.Plugins.Plugins, strings.Join(e.logs.Lines(), "\n"))
	}
	id := e.session(t)
	res := e.turn(t, id, `/tool client {}`)
	var out string
	for _, m := range res.Messages {
		if m.Role == chat.RoleTool {
			out = m.Result.Output
		}
	}
	for _, want := range []string{`"healthy":true`, `"title":"a test"`, `"projectID":"` + e.a.Cwd + `"`,
		`"missing":"NotFoundError: true 404"`, `"thrown":"session ses_nope: not found"`, `"roles":"user,assistant"`,
		`"firstText":"/tool client {}"`, `"logged":true`, `"injectedRole":"user"`, `"sessions":1`, `"model":"offline/echo"`,
		`"providers":"offline"`, `"pty":"NotFoundError"`, `"noOptions":"TypeError"`} {
		if !strings.Contains(out, want) {
			t.Errorf("the client's answers %s lack %s", out, want)
		}
	}
	e.logs.Require(t, "WARN logged through the client", "plugin=client", "service=client-test", `extra={"n":1}`)
	e.logs.Require(t, "plugin: toast: toasted", "plugin=client", "variant=success")
	// The noReply message went in after the tool's result, before the
	// model's next call: the model read it.
	msgs, err := e.ag.Store.Messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	for _, m := range msgs {
		roles = append(roles, m.Role)
		if m.Role == chat.RoleUser && m.Text == "NOTE FROM A PLUGIN" && roles[len(roles)-2] != chat.RoleTool {
			t.Errorf("the injected message follows a %s message", roles[len(roles)-2])
		}
	}
	if got := strings.Join(roles, ","); got != "user,assistant,tool,user,assistant" {
		t.Errorf("roles %s", got)
	}
	// The event hook heard the turn as opencode's events, session.idle last.
	var heard string
	for range 200 {
		r, _, err := e.a.Runner.CallTool(context.Background(), tool.Call{}, "heard", map[string]any{})
		if err != nil {
			t.Fatal(err)
		}
		if heard = r.Output; strings.HasSuffix(heard, "session.idle@"+id) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	for _, want := range []string{"session.status@" + id, "message.updated@" + id, "message.part.updated@" + id, "tui.toast.show", "session.idle@" + id} {
		if !strings.Contains(heard, want) {
			t.Errorf("the event hook heard %q, not %s", heard, want)
		}
	}
}

// While plugins start, before the server's sessions are open, the client
// answers the app's routes (health, log) and 503 for the sessions',
// without blocking the plugin; with no API at all (a command that set
// none), everything is 503.
func TestClientBeforeTheServerRuns(t *testing.T) {
	const early = `export const Early = async ({ client }) => {
  const r = await client.session.list()
  const h = await client.global.health()
  return { tool: { early: { description: "", args: {}, execute: async () => r.error.name + " " + r.response.status + " " + (h.data ? h.data.healthy : h.error.name) } } }
}`
	a, _ := apptest.Boot(t, apptest.Project{Files: map[string]string{".opencode/plugin/early.js": early},
		PluginAPI: func(a *app.App) http.Handler { return opencodeapi.New(a, nil) }})
	res, _, err := a.Runner.CallTool(context.Background(), tool.Call{}, "early", map[string]any{})
	if err != nil || res.Output != "UnavailableError 503 true" {
		t.Errorf("early: %+v %v", res, err)
	}
	a, _ = apptest.Boot(t, apptest.Project{Files: map[string]string{".opencode/plugin/early.js": early}})
	res, _, err = a.Runner.CallTool(context.Background(), tool.Call{}, "early", map[string]any{})
	if err != nil || res.Output != "UnavailableError 503 UnavailableError" {
		t.Errorf("early, no API: %+v %v", res, err)
	}
}

// What a plugin's client sends is the plugin's to choose: no method, path
// or body makes the API panic, and each answer is JSON.
func FuzzRequest(f *testing.F) {
	f.Add("POST", "/session/x/message", []byte(`{"parts":[{"type":"text","text":"hi"}],"noReply":true}`))
	f.Add("POST", "/log", []byte(`{"service":1,"level":{},"message":null,"extra":[1]}`))
	f.Add("POST", "/tui/show-toast", []byte(`{"duration":-5}`))
	f.Add("GET", "/session/%00/message?limit=-3", []byte{})
	f.Add("DELETE", "/session/../../etc", []byte(`[`))
	e := boot(f, apptest.Project{})
	f.Fuzz(func(t *testing.T, method, path string, body []byte) {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(method, " \t\r\n") || method == "" {
			return
		}
		req, err := http.NewRequest(method, "http://opencode.internal"+path, bytes.NewReader(body))
		if err != nil {
			return
		}
		if strings.HasSuffix(req.URL.Path, "/message") && method == http.MethodPost && !bytes.Contains(body, []byte("noReply")) {
			return // a turn: not what this target is about
		}
		rec := httptest.NewRecorder()
		opencodeapi.New(e.a, e.ag).ServeHTTP(rec, req)
		if rec.Code/100 == 3 {
			return // the mux's redirect to the cleaned path
		}
		if rec.Code != http.StatusNoContent && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s %s: %d %q is not JSON", method, path, rec.Code, rec.Body.String())
		}
	})
}

// A plugin's client acts for the tenant whose turn its hook serves: it
// lists, reads and aborts that tenant's sessions, never another's; outside
// a tenant's turn it acts for the server's own.
func TestClientActsForTheTenantOfTheCall(t *testing.T) {
	const probe = `export const Probe = async ({ client }) => ({ tool: { probe: {
  description: "", args: { other: { type: "string" } },
  async execute(args) {
    const list = await client.session.list()
    const other = await client.session.get({ path: { id: args.other } })
    const abort = await client.session.abort({ path: { id: args.other } })
    const made = await client.session.create({ body: { title: "made" } })
    return JSON.stringify({ list: list.data.map(s => s.id), other: other.error ? other.error.name : "read", abort: abort.error ? abort.error.name : "aborted", made: made.data.id })
  } } } })`
	e := boot(t, apptest.Project{Files: map[string]string{".opencode/plugin/probe.js": probe}})
	ctx := context.Background()
	own := e.session(t)
	theirs, err := e.ag.NewSession(ctx, agent.SessionRequest{Tenant: "7", TenantID: 7, Title: "tenant 7's", Channel: "api"})
	if err != nil {
		t.Fatal(err)
	}
	call := func(ctx context.Context, other string) (out struct {
		List  []string
		Other string
		Abort string
		Made  string
	}) {
		t.Helper()
		res, _, err := e.a.Runner.CallTool(ctx, tool.Call{}, "probe", map[string]any{"other": other})
		if err != nil {
			t.Fatalf("probe: %+v %v", res, err)
		}
		if err := json.Unmarshal([]byte(res.Output), &out); err != nil {
			t.Fatalf("probe: %q: %v", res.Output, err)
		}
		return out
	}
	tenant := chat.WithScope(ctx, chat.Scope{Tenant: "7", TenantID: 7})
	got := call(tenant, own)
	if len(got.List) != 1 || got.List[0] != theirs.ID || got.Other != "NotFoundError" || got.Abort != "NotFoundError" {
		t.Errorf("in tenant 7's call: %+v", got)
	}
	if s, err := e.ag.Store.Session(ctx, "7", got.Made); err != nil || s.Title != "made" {
		t.Errorf("the session made in tenant 7's call: %+v %v", s, err)
	}
	got = call(ctx, theirs.ID)
	if len(got.List) != 1 || got.List[0] != own || got.Other != "NotFoundError" || got.Abort != "NotFoundError" {
		t.Errorf("outside a tenant's call: %+v", got)
	}
	if _, err := e.ag.Store.Session(ctx, store.DefaultTenant, got.Made); err != nil {
		t.Errorf("the session made outside a tenant's call: %v", err)
	}
}

// A request made after an await while calls of two tenants are under way
// belongs to neither: it is refused, not guessed.
func TestClientRefusesARequestOfNoOneTenant(t *testing.T) {
	const twice = `export const Twice = async ({ client }) => ({ tool: {
  first: { description: "", args: {}, async execute() {
    await new Promise(resolve => { globalThis.release = resolve })
    const r = await client.session.list()
    return r.error ? r.error.name + ": " + r.error.data.message : "listed " + r.data.length
  } },
  second: { description: "", args: {}, async execute() {
    globalThis.release()
    await new Promise(resolve => setTimeout(resolve, 200))
    return "released"
  } } } })`
	e := boot(t, apptest.Project{Files: map[string]string{".opencode/plugin/twice.js": twice}})
	ctx := context.Background()
	e.session(t)
	first := make(chan string, 1)
	go func() {
		res, _, err := e.a.Runner.CallTool(chat.WithScope(ctx, chat.Scope{Tenant: "7", TenantID: 7}), tool.Call{}, "first", map[string]any{})
		if err != nil {
			first <- err.Error()
			return
		}
		first <- res.Output
	}()
	for range 500 { // until first awaits its release
		res, _, err := e.a.Runner.CallTool(ctx, tool.Call{}, "second", map[string]any{})
		if err == nil && res.Output == "released" {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	got := <-first
	if !strings.HasPrefix(got, "ForbiddenError: GET /session: the request was made after an await while the plugin served calls of several tenants") {
		t.Errorf("first: %q", got)
	}
}

// Code of no call (a timer a tool left behind) is the user's own on a
// server without tenants; on a server with tenants it may be a tenant's
// doing, and its requests reach no one's sessions.
func TestClientOfNoCallOnAServerWithTenants(t *testing.T) {
	const later = `export const Later = async ({ client }) => ({ tool: {
  later: { description: "", args: {}, async execute() {
    setTimeout(async () => {
      const r = await client.session.list()
      globalThis.got = r.error ? r.error.name + ": " + r.error.data.message : "listed " + r.data.length
    }, 10)
    return "set"
  } },
  got: { description: "", args: {}, async execute() { return String(globalThis.got) } } } })`
	for _, c := range []struct {
		name string
		user map[string]any
		want string
	}{
		{"no tenants", nil, "listed 1"},
		{"tenants", map[string]any{"server": map[string]any{"tokens": []any{map[string]any{"token": "t-seven", "tenant_id": 7, "user_id": "eve"}}}},
			"ForbiddenError: GET /session: the request was made by code that serves no call"},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := boot(t, apptest.Project{Files: map[string]string{".opencode/plugin/later.js": later}, User: c.user})
			e.session(t)
			ctx := context.Background()
			if _, _, err := e.a.Runner.CallTool(chat.WithScope(ctx, chat.Scope{Tenant: "7", TenantID: 7}), tool.Call{}, "later", map[string]any{}); err != nil {
				t.Fatal(err)
			}
			var got string
			for range 200 {
				res, _, err := e.a.Runner.CallTool(ctx, tool.Call{}, "got", map[string]any{})
				if err != nil {
					t.Fatal(err)
				}
				if got = res.Output; got != "undefined" {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			if !strings.HasPrefix(got, c.want) {
				t.Errorf("the timer's request: %q, want %q", got, c.want)
			}
		})
	}
}
