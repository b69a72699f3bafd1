//lint:file-ignore SA1019 the test server uses sampling, roots and logging, deprecated from protocol 2026-07-28 (SEP-2577), not removed.
package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/logtest"
	"github.com/podcode/podcode/internal/tool"
)

// sep1034Schema is the form of the conformance suite's scenario
// elicitation-sep1034-client-defaults: every field optional, with a default.
// Read when a test runs, not at init: this test binary is also the
// benchmarks' MCP server, started in another directory.
func sep1034Schema() json.RawMessage { return mustRead("../guard/testdata/sep1034-schema.json") }

// questionServer is a Go SDK MCP server on loopback (streamable HTTP)
// whose tools ask Podcode: "ask" elicits schema (the tool's argument, else
// sep1034Schema) and returns the answer as JSON; "sample" has the client's
// model answer; "roots" lists the client's roots; "progress" reports three
// steps of progress, then works until release is closed (at most 10 s),
// as a long call does.
func questionServer(t *testing.T, release <-chan struct{}) string {
	t.Helper()
	srv := sdk.NewServer(&sdk.Implementation{Name: "questions", Version: "1"}, nil)
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	srv.AddTool(&sdk.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		schema := any(sep1034Schema())
		var args struct {
			Schema json.RawMessage `json:"schema"`
		}
		if json.Unmarshal(req.Params.Arguments, &args) == nil && len(args.Schema) > 0 {
			schema = args.Schema
		}
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Who are you?", RequestedSchema: schema})
		if err != nil {
			return nil, err
		}
		out, _ := json.Marshal(res)
		return text(string(out)), nil
	})
	srv.AddTool(&sdk.Tool{Name: "open", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var args struct{ URL string }
		json.Unmarshal(req.Params.Arguments, &args)
		res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Mode: "url", URL: args.URL, ElicitationID: "el-1", Message: "Sign in to Example."})
		if err != nil {
			return nil, err
		}
		if res.Action == "accept" { // the page was visited: the server says so
			req.Session.NotifyElicitationComplete(ctx, &sdk.ElicitationCompleteParams{ElicitationID: "el-1"})
		}
		out, _ := json.Marshal(res)
		return text(string(out)), nil
	})
	// guarded refuses the first call of each key until a page is opened
	// (-32042), saying the page is done before its refusal (early) or
	// 100 ms after it; it serves the next call of the key.
	var guardedMu sync.Mutex
	guarded := map[string]int{}
	srv.AddTool(&sdk.Tool{Name: "guarded", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		var args struct {
			Key          string
			Early        bool
			Always, NoID bool // refuses every call; names a page without an id
		}
		json.Unmarshal(req.Params.Arguments, &args)
		guardedMu.Lock()
		guarded[args.Key]++
		n := guarded[args.Key]
		guardedMu.Unlock()
		if n > 1 && !args.Always {
			return text(fmt.Sprintf("%s served on call %d", args.Key, n)), nil
		}
		id := "pg-" + args.Key
		if args.NoID {
			return nil, sdk.URLElicitationRequiredError([]*sdk.ElicitParams{{Mode: "url", URL: "https://pay.example.com/checkout", Message: "Pay first."}})
		}
		done := func() {
			req.Session.NotifyElicitationComplete(context.Background(), &sdk.ElicitationCompleteParams{ElicitationID: id})
		}
		if args.Early {
			done()
		} else {
			time.AfterFunc(100*time.Millisecond, done)
		}
		return nil, sdk.URLElicitationRequiredError([]*sdk.ElicitParams{{Mode: "url", URL: "https://pay.example.com/checkout", ElicitationID: id, Message: "Pay first."}})
	})
	srv.AddTool(&sdk.Tool{Name: "sample", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		res, err := req.Session.CreateMessage(ctx, &sdk.CreateMessageParams{MaxTokens: 1 << 20, SystemPrompt: "Be brief.",
			Messages: []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "Name a colour.\nJust one."}},
				{Role: "user", Content: &sdk.ImageContent{MIMEType: "image/png", Data: []byte("png")}}}})
		if err != nil {
			return text("sampling failed: " + err.Error()), nil
		}
		return text(fmt.Sprintf("%s said %q (%s)", res.Model, res.Content.(*sdk.TextContent).Text, res.StopReason)), nil
	})
	srv.AddTool(&sdk.Tool{Name: "roots", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		res, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return nil, err
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return text(strings.Join(uris, " ")), nil
	})
	srv.AddTool(&sdk.Tool{Name: "progress", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		token := req.Params.GetProgressToken()
		if token == nil {
			return text("no progress token"), nil
		}
		// A token that is not the call's is nobody's.
		req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: "someone-else", Progress: 99})
		for i := 1; i <= 3; i++ {
			req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(i), Total: 3, Message: fmt.Sprintf("step %d", i)})
		}
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		return text("done"), nil
	})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ts.URL
}

// startQuestions starts Podcode's client of a questionServer with o's
// Ask, Sample and Cwd, and sampling policy.
func startQuestions(t *testing.T, o Options, sampling string, release ...chan struct{}) (*tool.Registry, *logtest.Logs) {
	t.Helper()
	rec := &logtest.Logs{}
	reg := tool.NewRegistry(rec.Logger())
	o.Log, o.Tools, o.StartTimeout = rec.Logger(), reg, 20*time.Second
	if o.Cwd == "" {
		o.Cwd = t.TempDir()
	}
	var rel chan struct{}
	if len(release) > 0 {
		rel = release[0]
	}
	set := Start(context.Background(), []Spec{{Name: "probe", Transport: HTTP, URL: questionServer(t, rel) + "/mcp", Sampling: sampling}}, o)
	t.Cleanup(set.Close)
	if st := set.Servers()[0].Status(); st.State != StateReady {
		t.Fatalf("the server is not ready: %+v", st)
	}
	return reg, rec
}

// session is the context of a call made by a turn of session ses_q on
// channel api.
func session() context.Context {
	return chat.WithScope(context.Background(), chat.Scope{SessionID: "ses_q", Channel: "api", Model: "offline/echo"})
}

func run(t *testing.T, ctx context.Context, reg *tool.Registry, id string, args map[string]any) string {
	t.Helper()
	d, ok := reg.Get(id)
	if !ok {
		t.Fatalf("no tool %s; tools: %v", id, ids(reg))
	}
	res, err := d.Execute(ctx, tool.Call{SessionID: "ses_q"}, args)
	if err != nil {
		t.Fatalf("%s: %v", id, err)
	}
	return res.Output
}

// yesNo is an asker that shows only yes/no questions (as the terminal's
// and the TUI's), answering each with answer, and keeps what it was asked.
type yesNo struct {
	mu     sync.Mutex
	answer bool
	asked  []guard.Question
}

func (a *yesNo) Ask(_ context.Context, q guard.Question) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, q)
	return a.answer, nil
}

// formFiller is an asker that shows forms (as the web page through the
// API) and answers each with answer.
type formFiller struct {
	yesNo
	form  guard.Answer
	scope chat.Scope // of the last question's context
}

func (a *formFiller) AskForm(ctx context.Context, q guard.Question) (guard.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, q)
	a.scope = chat.ScopeFrom(ctx)
	return a.form, nil
}

func guardWith(a guard.Asker) *guard.Guard {
	g := &guard.Guard{}
	g.SetAsker(a)
	return g
}

// SEP-1034 as the conformance suite checks it: a user who changes
// nothing accepts the defaults, and every field reaches the server with
// its default. The question goes to the asker of the session whose call
// is in flight; a yes/no asker is asked whether to send the defaults.
func TestElicitationDefaultsSEP1034(t *testing.T) {
	asker := &yesNo{answer: true}
	reg, _ := startQuestions(t, Options{Ask: guardWith(asker).AskForm}, "")
	out := run(t, session(), reg, "probe_ask", nil)
	var got sdk.ElicitResult
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	want := map[string]any{"name": "John Doe", "age": 30.0, "score": 95.5, "status": "active", "verified": true}
	if got.Action != "accept" || fmt.Sprint(got.Content) != fmt.Sprint(want) {
		t.Fatalf("the server got %+v, want accept with %v", got, want)
	}
	if len(asker.asked) != 1 {
		t.Fatalf("asked %d questions", len(asker.asked))
	}
	q := asker.asked[0]
	if q.SessionID != "ses_q" || q.Tool != "probe_ask" || q.Form == nil || len(q.Form.Fields) != 5 ||
		fmt.Sprint(q.Args) != fmt.Sprint(want) || !strings.Contains(q.Reason, "the MCP server probe asks: Who are you?") {
		t.Fatalf("the question: %+v", q)
	}

	// No is a decline.
	asker.answer = false
	out = run(t, session(), reg, "probe_ask", nil)
	if !strings.Contains(out, `"action":"decline"`) || strings.Contains(out, "content") {
		t.Fatalf("a no reached the server as %s", out)
	}
}

// An asker that shows forms answers with values: they are completed with
// the defaults and checked against the schema; values that do not fit it
// are a decline, never sent. A required field without a default cannot be
// answered by a yes/no asker: declined without asking.
func TestElicitationFormValues(t *testing.T) {
	asker := &formFiller{}
	reg, logs := startQuestions(t, Options{Ask: guardWith(asker).AskForm}, "")
	asker.form = guard.Answer{Action: guard.Accept, Content: map[string]any{"name": "Ann", "age": 41.0, "status": "pending"}}
	out := run(t, session(), reg, "probe_ask", nil)
	if !strings.Contains(out, `"name":"Ann"`) || !strings.Contains(out, `"age":41`) || !strings.Contains(out, `"score":95.5`) || !strings.Contains(out, `"verified":true`) {
		t.Fatalf("the server got %s", out)
	}
	if asker.scope.SessionID != "ses_q" || asker.scope.Channel != "api" {
		t.Fatalf("the question was asked in scope %+v, not the call's", asker.scope)
	}

	asker.form = guard.Answer{Action: guard.Accept, Content: map[string]any{"status": "gone"}}
	if out := run(t, session(), reg, "probe_ask", nil); !strings.Contains(out, `"action":"decline"`) {
		t.Fatalf("values that do not fit reached the server: %s", out)
	}
	logs.Require(t, "the answer does not fit the server's form", "mcp_server=probe", "not one of the choices")

	asker.form = guard.Answer{Action: guard.Cancel}
	if out := run(t, session(), reg, "probe_ask", nil); !strings.Contains(out, `"action":"cancel"`) {
		t.Fatalf("a dismissed form reached the server as %s", out)
	}

	yn := &yesNo{answer: true}
	reg2, _ := startQuestions(t, Options{Ask: guardWith(yn).AskForm}, "")
	schema := `{"type":"object","properties":{"email":{"type":"string","format":"email"},` +
		`"colours":{"type":"array","items":{"type":"string","enum":["red","green"]},"default":["red"]}},"required":["email"]}`
	out = run(t, session(), reg2, "probe_ask", map[string]any{"schema": json.RawMessage(schema)})
	if !strings.Contains(out, `"action":"decline"`) || len(yn.asked) != 0 {
		t.Fatalf("a form with a required field without default, to a yes/no asker: %s, asked %d", out, len(yn.asked))
	}
}

// With nobody to ask, or no call of the server's in flight, a form is
// declined; so is a URL-mode request and a schema Podcode cannot show.
func TestElicitationDeclinedWithoutSomeoneToAsk(t *testing.T) {
	reg, logs := startQuestions(t, Options{Ask: (&guard.Guard{}).AskForm}, "") // no asker set
	if out := run(t, session(), reg, "probe_ask", nil); !strings.Contains(out, `"action":"decline"`) {
		t.Fatalf("with nobody to ask: %s", out)
	}
	logs.Require(t, "got no answer: declined", "nobody can answer")

	rec := &logtest.Logs{}
	s := fakeServer("quiet", tool.NewRegistry(nil), rec)
	s.set.opts.Ask = guardWith(&yesNo{answer: true}).AskForm
	for _, c := range []struct {
		params *sdk.ElicitParams
		log    string
	}{
		{&sdk.ElicitParams{Message: "hi", RequestedSchema: sep1034Schema()}, "no call of its in flight"},
		{&sdk.ElicitParams{Mode: "url", URL: "https://example.com/login", ElicitationID: "e1", Message: "log in"}, "open a page with no call of its in flight"},
		{&sdk.ElicitParams{Message: "hi", RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
			"nested": map[string]any{"type": "object"}}}}, "a form Podcode cannot show"},
	} {
		res, err := s.elicit(context.Background(), &sdk.ElicitRequest{Params: c.params})
		if err != nil || res.Action != "decline" {
			t.Errorf("%+v: %+v %v", c.params, res, err)
		}
		rec.Require(t, c.log, "mcp_server=quiet")
	}
}

// An elicitation in URL mode is a yes/no question to the session's person
// naming the server, the page's host and the whole URL (Podcode opens
// nothing): yes accepts, no declines. A page that is not https (or http on
// loopback), carries a password or is too long is declined unasked.
func TestElicitationURLMode(t *testing.T) {
	asker := &yesNo{answer: true}
	reg, logs := startQuestions(t, Options{Ask: guardWith(asker).AskForm}, "")
	const page = "https://login.example.com/authorize?state=abc"
	if out := run(t, session(), reg, "probe_open", map[string]any{"url": page}); out != `{"action":"accept"}` {
		t.Fatalf("after a yes the server got %s", out)
	}
	if len(asker.asked) != 1 {
		t.Fatalf("asked %d questions", len(asker.asked))
	}
	q := asker.asked[0]
	if q.SessionID != "ses_q" || q.Tool != "probe_open" || q.Form != nil || q.Args["url"] != page ||
		q.Reason != "the MCP server probe asks you to open "+page+", a page of login.example.com (yes: you open it yourself, Podcode does not; no declines); its message: \"Sign in to Example.\"" {
		t.Fatalf("the question: %+v", q)
	}
	logs.Require(t, "the user agreed to open the server's page", "host=login.example.com", "elicitation=el-1")
	// A notification, apart from the call's answer.
	logs.Await(t, "the server says the page the user opened is done", "elicitation=el-1")
	asker.answer = false
	if out := run(t, session(), reg, "probe_open", map[string]any{"url": page}); out != `{"action":"decline"}` {
		t.Fatalf("after a no the server got %s", out)
	}
	for _, bad := range []string{"http://login.example.com/", "https://me:secret@login.example.com/", "javascript:alert(1)",
		"file:///etc/passwd", "https://login.example.com/" + strings.Repeat("a", MaxElicitURL),
		"https://g\u043e\u043egle.com/login",         // Cyrillic o's: a host that looks like another
		"https://login.example.com/?x=\u202egnp.exe", // a bidi control reorders what is shown
		"https://login.example.com/a b"} {
		before := len(asker.asked)
		if out := run(t, session(), reg, "probe_open", map[string]any{"url": bad}); out != `{"action":"decline"}` {
			t.Errorf("%.60s: the server got %s", bad, out)
		}
		if len(asker.asked) != before {
			t.Errorf("%.60s: asked", bad)
		}
	}
	logs.Require(t, "a page Podcode will not show: declined", "carries a user name or password")
	// http on loopback is a page of this machine's: asked.
	before := len(asker.asked)
	run(t, session(), reg, "probe_open", map[string]any{"url": "http://127.0.0.1:8080/done"})
	if len(asker.asked) != before+1 {
		t.Error("a loopback page was not asked about")
	}
}

// A call the server refuses until a page is opened (-32042) has the page
// asked about as a URL elicitation is; once it is accepted and the server
// says it is done, the call is sent again, once. Declined, the call fails
// saying so, and is not sent again.
func TestCallRefusedUntilAPageIsOpened(t *testing.T) {
	asker := &yesNo{answer: true}
	reg, logs := startQuestions(t, Options{Ask: guardWith(asker).AskForm}, "")
	d, ok := reg.Get("probe_guarded")
	if !ok {
		t.Fatal("no probe_guarded")
	}
	call := func(args map[string]any) (string, error) {
		res, err := d.Execute(session(), tool.Call{SessionID: "ses_q"}, args)
		return res.Output, err
	}
	// The server's word comes after the refusal, and before it.
	for i, key := range []string{"late", "early"} {
		out, err := call(map[string]any{"key": key, "early": key == "early"})
		if err != nil || out != key+" served on call 2" {
			t.Fatalf("%s: %q %v", key, out, err)
		}
		if len(asker.asked) != i+1 || asker.asked[i].Args["url"] != "https://pay.example.com/checkout" ||
			!strings.Contains(asker.asked[i].Reason, `its message: "Pay first."`) {
			t.Fatalf("%s: asked %+v", key, asker.asked)
		}
	}
	logs.Require(t, "the pages the server asked to be opened are done: the call is sent again")

	// A server that refuses again gets the call twice, no more: its
	// second refusal is the call's error.
	if out, err := call(map[string]any{"key": "always", "always": true}); err == nil || !strings.Contains(err.Error(), "URL elicitation required") {
		t.Fatalf("refused twice: %q %v", out, err)
	}
	if n := logs.Count("the call is sent again"); n != 3 {
		t.Errorf("sent again %d times in all, want 3", n)
	}
	// A page without an id cannot be waited for: the call fails unasked.
	asked := len(asker.asked)
	if out, err := call(map[string]any{"key": "noid", "noid": true}); err == nil || !strings.Contains(err.Error(), "named one that is not a page with an id") {
		t.Fatalf("a page without an id: %q %v", out, err)
	}
	if len(asker.asked) != asked {
		t.Error("a page without an id was asked about")
	}

	asker.answer = false
	before := logs.Count("the call is sent again")
	if out, err := call(map[string]any{"key": "declined"}); err == nil || !strings.Contains(err.Error(), "wants https://pay.example.com/checkout opened before this call, and it was not (decline)") {
		t.Fatalf("declined: %q %v", out, err)
	}
	if logs.Count("the call is sent again") != before {
		t.Error("a declined page's call was sent again")
	}
}

// Sampling: the session's question first (consent), then the model of
// the call's session answers through Options.Sample, maxTokens bounded,
// images described. No is an error the server reads; the user's "deny"
// refuses without asking and "allow" answers without asking.
func TestSampling(t *testing.T) {
	var mu sync.Mutex
	var got []SampleRequest
	var scopes []chat.Scope
	sample := func(ctx context.Context, r SampleRequest) (SampleResult, error) {
		mu.Lock()
		defer mu.Unlock()
		got, scopes = append(got, r), append(scopes, chat.ScopeFrom(ctx))
		return SampleResult{Text: "teal", Model: "offline/echo", StopReason: "endTurn"}, nil
	}
	asker := &yesNo{answer: true}
	reg, _ := startQuestions(t, Options{Ask: guardWith(asker).AskForm, Sample: sample}, "")
	if out := run(t, session(), reg, "probe_sample", nil); out != `offline/echo said "teal" (endTurn)` {
		t.Fatalf("the server got %q", out)
	}
	if len(asker.asked) != 1 || asker.asked[0].SessionID != "ses_q" || asker.asked[0].Form != nil ||
		!strings.Contains(fmt.Sprint(asker.asked[0].Args["request"]), "Name a colour.") {
		t.Fatalf("the consent question: %+v", asker.asked)
	}
	r := got[0]
	if r.MaxTokens != MaxSamplingTokens || r.System != "Be brief." || len(r.Messages) != 2 || r.Messages[0].Text != "Name a colour.\nJust one." ||
		r.Messages[1].Text != "[image: image/png, 3 bytes, not shown]" || scopes[0].SessionID != "ses_q" {
		t.Fatalf("the model was asked %+v in %+v", r, scopes[0])
	}

	asker.answer = false
	if out := run(t, session(), reg, "probe_sample", nil); !strings.Contains(out, "sampling failed") || !strings.Contains(out, "the user said no") {
		t.Fatalf("after a no the server got %q", out)
	}

	denied := &yesNo{answer: true}
	reg, _ = startQuestions(t, Options{Ask: guardWith(denied).AskForm, Sample: sample}, SamplingDeny)
	if out := run(t, session(), reg, "probe_sample", nil); !strings.Contains(out, "mcp.probe.sampling") || len(denied.asked) != 0 {
		t.Fatalf("deny: %q, asked %d", out, len(denied.asked))
	}
	allowed := &yesNo{answer: false}
	reg, _ = startQuestions(t, Options{Ask: guardWith(allowed).AskForm, Sample: sample}, SamplingAllow)
	if out := run(t, session(), reg, "probe_sample", nil); !strings.Contains(out, "teal") || len(allowed.asked) != 0 {
		t.Fatalf("allow: %q, asked %d", out, len(allowed.asked))
	}

	// A server's requests run the model one at a time, even allowed.
	var running, most atomic.Int32
	slow := func(ctx context.Context, r SampleRequest) (SampleResult, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		time.Sleep(100 * time.Millisecond)
		return SampleResult{Text: "teal", Model: "offline/echo", StopReason: "endTurn"}, nil
	}
	reg, _ = startQuestions(t, Options{Sample: slow}, SamplingAllow)
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if out := run(t, session(), reg, "probe_sample", nil); !strings.Contains(out, "teal") {
				t.Errorf("allowed, at once: %q", out)
			}
		}()
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Errorf("%d of a server's sampling requests ran the model at once", most.Load())
	}
}

// roots/list answers the workspace of the call in flight: the project
// directory, or a tenant's workspace.
func TestRootsAreTheWorkspace(t *testing.T) {
	dir := t.TempDir()
	reg, _ := startQuestions(t, Options{Cwd: dir}, "")
	if out := run(t, session(), reg, "probe_roots", nil); out != "file://"+dir {
		t.Fatalf("roots %q, want file://%s", out, dir)
	}
	tenant := t.TempDir()
	ctx := tool.WithWorkspace(session(), tool.Workspace{Root: tenant})
	if out := run(t, ctx, reg, "probe_roots", nil); out != "file://"+tenant {
		t.Fatalf("a tenant's call: roots %q, want file://%s", out, tenant)
	}
}

// A call's progress notifications become the call's progress
// (tool.ReportProgress); a token that is not the call's is dropped.
func TestProgressReachesTheCall(t *testing.T) {
	release := make(chan struct{})
	reg, _ := startQuestions(t, Options{}, "", release)
	var mu sync.Mutex
	var got []tool.Progress
	ctx := tool.WithProgress(session(), func(p tool.Progress) {
		mu.Lock()
		got = append(got, p)
		if len(got) == 3 {
			close(release) // the call may end
		}
		mu.Unlock()
	})
	if out := run(t, ctx, reg, "probe_progress", nil); out != "done" {
		t.Fatal(out)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []tool.Progress{{Progress: 1, Total: 3, Message: "step 1"}, {Progress: 2, Total: 3, Message: "step 2"}, {Progress: 3, Total: 3, Message: "step 3"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("progress %+v, want %+v", got, want)
	}
}

// A server's notifications/message is logged at debug with its name.
func TestServerLogMessagesLogged(t *testing.T) {
	rec := &logtest.Logs{}
	s := fakeServer("chatty", tool.NewRegistry(nil), rec)
	s.logMessage(context.Background(), &sdk.LoggingMessageRequest{Params: &sdk.LoggingMessageParams{Level: "warning", Logger: "db",
		Data: map[string]any{"msg": "slow query"}}})
	rec.Require(t, "the server logs", "mcp_server=chatty", "level=warning", "logger=db", "slow query")
}

// mcp.<name>.sampling is the user's alone: a project's podcode.json that
// sets it is warned and ignored, and .mcp.json has no such key.
func TestSamplingPolicyIsTheUsersAlone(t *testing.T) {
	project, user := t.TempDir(), t.TempDir()
	for path, data := range map[string]string{
		filepath.Join(user, "podcode.json"):    `{"mcp": {"docs": {"type": "remote", "url": "https://docs.example.com/mcp", "sampling": "allow"}}}`,
		filepath.Join(project, "podcode.json"): `{"mcp": {"lint": {"type": "local", "command": ["node", "lint.js"], "sampling": "allow"}}}`,
		filepath.Join(project, ".mcp.json"):    `{"mcpServers": {"memory": {"command": "npx", "sampling": "allow"}}}`,
	} {
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := config.LoadFrom(project, user)
	if err != nil {
		t.Fatal(err)
	}
	specs, warnings, err := Specs(cfg, project)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range specs {
		got[s.Name] = s.Sampling
	}
	if fmt.Sprint(got) != "map[docs:allow lint: memory:]" {
		t.Fatalf("sampling policies %v", got)
	}
	if w := strings.Join(cfg.Warnings, "\n"); !strings.Contains(w, "mcp.lint.sampling") || !strings.Contains(w, "ignored in a project's file") {
		t.Errorf("config warnings: %q", cfg.Warnings)
	}
	if w := strings.Join(warnings, "\n"); !strings.Contains(w, "sampling") {
		t.Errorf(".mcp.json warnings: %q", warnings)
	}
	if _, err := config.LoadFrom(t.TempDir(), writeUser(t, `{"mcp": {"x": {"type": "local", "command": ["x"], "sampling": "sometimes"}}}`)); err == nil ||
		!strings.Contains(err.Error(), `sampling "sometimes"`) {
		t.Errorf("a bad policy: %v", err)
	}
}

func writeUser(t *testing.T, data string) string {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "podcode.json"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// While calls of two parties (tenants, users of one, sessions) are in
// flight, a server's question is put to neither (it cannot say whose call
// it is about): declined, and no root given. One session's calls alone: its
// latest call's session.
func TestQuestionsNeverCrossTenants(t *testing.T) {
	rec := &logtest.Logs{}
	s := fakeServer("shared", tool.NewRegistry(nil), rec)
	asker := &formFiller{form: guard.Answer{Action: guard.Accept}}
	s.set.opts.Ask = guardWith(asker).AskForm
	s.set.opts.Cwd = t.TempDir()
	scoped := func(tenant, user, session string) context.Context {
		return tool.WithWorkspace(chat.WithScope(context.Background(), chat.Scope{Tenant: tenant, UserID: user, SessionID: session}), tool.Workspace{Root: "/ws/" + tenant})
	}
	_, doneA := s.calls.add(scoped("t1", "ann", "ses_a"), "shared_x")
	_, doneB := s.calls.add(scoped("t1", "ann", "ses_a"), "shared_x")
	req := &sdk.ElicitRequest{Params: &sdk.ElicitParams{Message: "hi", RequestedSchema: sep1034Schema()}}
	if res, err := s.elicit(context.Background(), req); err != nil || res.Action != "accept" || asker.scope.SessionID != "ses_a" {
		t.Fatalf("one session's calls: %+v %v, asked in %+v", res, err, asker.scope)
	}
	roots, err := s.roots(nil)(context.Background(), "roots/list", nil)
	if err != nil || roots.(*sdk.ListRootsResult).Roots[0].URI != "file:///ws/t1" {
		t.Fatalf("roots of one tenant's calls %+v %v", roots, err)
	}
	for _, other := range []context.Context{scoped("t2", "bob", "ses_c"), scoped("t1", "bob", "ses_c"), scoped("t1", "ann", "ses_d")} {
		_, doneC := s.calls.add(other, "shared_x")
		asker.asked = nil
		if res, err := s.elicit(context.Background(), req); err != nil || res.Action != "decline" || len(asker.asked) != 0 {
			t.Fatalf("calls of two parties (%+v): %+v %v, asked %d", chat.ScopeFrom(other), res, err, len(asker.asked))
		}
		roots, err := s.roots(nil)(context.Background(), "roots/list", nil)
		if err != nil || len(roots.(*sdk.ListRootsResult).Roots) != 0 {
			t.Fatalf("roots while two parties' calls are in flight: %+v %v", roots, err)
		}
		doneC()
	}
	rec.Require(t, "calls of several tenants, users or sessions are in flight", "mcp_server=shared")
	doneA()
	doneB()
	roots, err = s.roots(nil)(context.Background(), "roots/list", nil)
	if err != nil || roots.(*sdk.ListRootsResult).Roots[0].URI != "file://"+s.set.opts.Cwd {
		t.Fatalf("roots with no call in flight %+v %v", roots, err)
	}
	if call, mixed := s.calls.latest(); call != nil || mixed {
		t.Fatalf("calls left in flight: %+v", call)
	}
}

func mustRead(path string) json.RawMessage {
	data, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	return data
}

func FuzzPageURL(f *testing.F) {
	for _, s := range []string{"https://login.example.com/a?b=c", "http://127.0.0.1:8/x", "http://[::1]/", "https://u:p@h/",
		"javascript:alert(1)", "HTTPS://H/", "https:///x", "http://localhost./", "https://xn--ggle-55da.com/", "https://g\u043e\u043egle.com/",
		"https://h/?q=%E2%80%AE", "https://h/" + strings.Repeat("a", MaxElicitURL)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := pageURL(raw)
		if err != nil {
			return
		}
		// What is shown is what the user opens: an https page of a host,
		// or http on loopback, with no credentials, within the bound, in
		// printable ASCII (a Unicode host could pass for another).
		shown := u.String()
		v, err := url.Parse(shown)
		if err != nil || v.Host != u.Host || u.User != nil || len(raw) > MaxElicitURL ||
			strings.IndexFunc(raw+shown, func(r rune) bool { return r <= ' ' || r >= 0x7f }) >= 0 ||
			!(u.Scheme == "https" || u.Scheme == "http" && isLoopback(u.Hostname())) || u.Host == "" {
			t.Errorf("%q accepted as %q (%v)", raw, shown, err)
		}
	})
}

// A server's word that a page is done, with nobody waiting for it yet, is
// kept for a call that listens within doneFor, and no more than
// maxDonePages such words are kept; every call waiting on an id hears it.
func TestOpenPagesKeepsWordsBounded(t *testing.T) {
	var p openPages
	for i := range maxDonePages + 10 {
		p.complete(fmt.Sprintf("pg-%d", i))
	}
	if len(p.done) != maxDonePages {
		t.Errorf("%d words kept, want %d", len(p.done), maxDonePages)
	}
	ch, stop := p.listen(fmt.Sprintf("pg-%d", maxDonePages+9))
	defer stop()
	select {
	case <-ch:
	default:
		t.Error("a word said before the call listened was lost")
	}
	a, stopA := p.listen("pg-shared")
	b, stopB := p.listen("pg-shared")
	stopA() // one call gives up: the other still hears
	p.complete("pg-shared")
	select {
	case <-b:
	default:
		t.Error("a call waiting on an id another stopped waiting on was not told")
	}
	stopB()
	select {
	case <-a:
		t.Error("a call that stopped listening was told")
	default:
	}
	p.done["pg-old"] = time.Now().Add(-doneFor)
	old, stopOld := p.listen("pg-old")
	defer stopOld()
	select {
	case <-old:
		t.Error("a word older than doneFor was taken")
	default:
	}
}
