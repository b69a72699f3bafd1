package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/logtest"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/plugin"
)

const testSecret = "whsec-test"

// githubPrompt uses .JSON fields (nested, in an array, a large number, a
// null and a missing member) and .Headers.
const githubPrompt = `{{.JSON.action}} #{{.JSON.issue.number}} ({{.JSON.issue.id}}): {{.JSON.issue.title}}` +
	` [{{range $i, $l := .JSON.issue.labels}}{{if $i}},{{end}}{{$l.name}}{{end}}]` +
	` event={{index .Headers "X-Github-Event"}} assignee={{.JSON.issue.assignee.login}} missing={{.JSON.nope.deeper}}.`

const githubRendered = `opened #42 (2310000000000000001): Crash on start [bug,p1] event=issues assignee= missing=.`

// started is one call of Start.
type started struct {
	name, prompt string
	payload      *plugin.HookPayload
}

// fixture is a Receiver behind a real HTTP server on a loopback port, with
// a real Dispatcher and a Start that records its calls.
type fixture struct {
	t        *testing.T
	url      string
	rc       *Receiver
	hooks    *plugin.Dispatcher
	now      time.Time
	startErr atomic.Pointer[error]
	log      logtest.Buffer

	mu       sync.Mutex
	starts   []started
	received []*plugin.HookPayload // what WebhookReceived handlers saw
}

func newFixture(t *testing.T, maxBody int64, hooks map[string]config.Webhook, opts ...func(*Options)) *fixture {
	t.Helper()
	f := &fixture{t: t, now: time.Unix(1_800_000_000, 0)}
	logger := slog.New(slog.NewTextHandler(&f.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f.hooks = plugin.NewDispatcher(plugin.WithLogger(logger))
	if hooks == nil {
		hooks = map[string]config.Webhook{
			"github": {Secret: testSecret, Prompt: githubPrompt},
			"plain":  {Secret: "other-secret", Prompt: "said: {{.Body}}"},
		}
	}
	// The recording handler, in the managed layer so it runs even when a
	// plugin-layer handler denies.
	err := f.hooks.Register(plugin.HookWebhookReceived, func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
		cp := *p
		cp.Extra = make(map[string]any, len(p.Extra))
		for k, v := range p.Extra {
			cp.Extra[k] = v
		}
		f.mu.Lock()
		f.received = append(f.received, &cp)
		f.mu.Unlock()
		return nil, nil
	}, plugin.WithLayer(plugin.LayerManaged), plugin.WithSource("recorder"))
	if err != nil {
		t.Fatal(err)
	}
	o := Options{
		Hooks: f.hooks,
		Start: func(ctx context.Context, name, prompt string, p *plugin.HookPayload) (string, error) {
			if e := f.startErr.Load(); e != nil {
				return "", *e
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			f.starts = append(f.starts, started{name, prompt, p})
			return "ses_" + name, nil
		},
		Now:     func() time.Time { return f.now },
		MaxBody: maxBody,
		Log:     logger,
	}
	for _, opt := range opts {
		opt(&o)
	}
	rc, err := New(hooks, o)
	if err != nil {
		t.Fatal(err)
	}
	f.rc = rc
	mux := http.NewServeMux()
	mux.Handle("POST /webhooks/{name}", rc)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	f.url = srv.URL
	return f
}

// post sends body to /webhooks/name with the given headers (nil values are
// left out).
func (f *fixture) post(name string, body []byte, headers map[string]string) (int, map[string]any, string) {
	f.t.Helper()
	req, err := http.NewRequest("POST", f.url+"/webhooks/"+name, bytes.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		f.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		f.t.Fatalf("answer is not JSON (%d): %q", resp.StatusCode, raw)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		f.t.Errorf("Content-Type = %q", ct)
	}
	return resp.StatusCode, out, string(raw)
}

// signed returns headers signing body with secret at the fixture's clock.
func (f *fixture) signed(secret string, body []byte) map[string]string {
	ts, sig := Sign([]byte(secret), f.now, body)
	return map[string]string{HeaderTimestamp: ts, HeaderSignature: sig}
}

func (f *fixture) counts() (starts, received int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.starts), len(f.received)
}

// noTurnStarted fails the test if Start was called.
func (f *fixture) noTurnStarted() {
	f.t.Helper()
	if s, _ := f.counts(); s != 0 {
		f.t.Fatal("a turn started")
	}
}

// serve delivers body, with headers h, to the webhook github straight
// through the Receiver, in a request whose context is ctx.
func (f *fixture) serve(ctx context.Context, body []byte, h map[string]string) *httptest.ResponseRecorder {
	req := httptest.NewRequestWithContext(ctx, "POST", "/webhooks/github", bytes.NewReader(body))
	req.SetPathValue("name", "github")
	for k, v := range h {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	f.rc.ServeHTTP(rec, req)
	return rec
}

func (f *fixture) nothingRan() {
	f.t.Helper()
	if s, r := f.counts(); s != 0 || r != 0 {
		f.t.Fatalf("something ran: %d turns started, %d WebhookReceived dispatched", s, r)
	}
}

func readIssue(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/issue.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// covers L1: WebhookReceived fires when a webhook arrives, with the body,
// the parsed JSON and the non-secret headers in extra, before the turn
// starts on channel webhook with the rendered prompt.
func TestGoodSignatureFiresWebhookReceivedAndStartsTurn(t *testing.T) {
	f := newFixture(t, 0, nil)
	body := readIssue(t)
	h := f.signed(testSecret, body)
	h["Content-Type"] = "application/json"
	h["X-GitHub-Event"] = "issues"
	h["X-GitHub-Delivery"] = "d-1"
	// Secret-bearing headers, none of which may reach a hook or the prompt.
	h["Authorization"] = "Bearer api-token-value"
	h["Proxy-Authorization"] = "Basic cHJveHk="
	h["Cookie"] = "sid=cookie-value"
	h["X-Api-Key"] = "key-value"
	h["X-Auth-Token"] = "token-value"
	h["X-Hub-Signature-256"] = "sha256=hub-signature-value"
	h["X-Webhook-Secret"] = "secret-value"

	status, out, raw := f.post("github", body, h)
	if status != http.StatusAccepted || out["sessionID"] != "ses_github" {
		t.Fatalf("answer %d %s, want 202 with sessionID ses_github", status, raw)
	}

	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.received) != 1 || len(f.starts) != 1 {
		t.Fatalf("%d WebhookReceived, %d turns; want 1 and 1", len(f.received), len(f.starts))
	}
	got := f.received[0]
	if got.Event != plugin.HookWebhookReceived || got.Channel != "webhook" {
		t.Errorf("payload event %q channel %q", got.Event, got.Channel)
	}
	if got.Extra[ExtraWebhook] != "github" || got.Extra[ExtraBody] != string(body) {
		t.Errorf("extra webhook %v, body %v", got.Extra[ExtraWebhook], got.Extra[ExtraBody])
	}
	js, ok := got.Extra[ExtraJSON].(map[string]any)
	if !ok || js["action"] != "opened" {
		t.Errorf("extra json = %#v", got.Extra[ExtraJSON])
	}
	if issue, _ := js["issue"].(map[string]any); issue == nil || issue["id"] != json.Number("2310000000000000001") {
		t.Errorf("large id not kept exactly: %#v", js["issue"])
	} else if v, present := issue["assignee"]; !present || v != nil {
		t.Errorf("extra json must be the body as sent, null included: assignee %v %v", v, present)
	}
	headers, ok := got.Extra[ExtraHeaders].(map[string]any)
	if !ok {
		t.Fatalf("extra headers = %#v", got.Extra[ExtraHeaders])
	}
	for _, k := range []string{"X-Github-Event", "X-Github-Delivery", "Content-Type", "User-Agent", HeaderTimestamp} {
		if _, ok := headers[k]; !ok {
			t.Errorf("header %s missing from extra: %v", k, headers)
		}
	}
	for _, k := range []string{HeaderSignature, "Authorization", "Proxy-Authorization", "Cookie", "X-Api-Key", "X-Auth-Token", "X-Hub-Signature-256", "X-Webhook-Secret"} {
		if _, ok := headers[k]; ok {
			t.Errorf("secret header %s in extra", k)
		}
	}
	all, _ := json.Marshal(got.Extra)
	for _, v := range []string{"api-token-value", "cHJveHk=", "cookie-value", "key-value", "token-value", "hub-signature-value", "secret-value", h[HeaderSignature]} {
		if strings.Contains(string(all), v) {
			t.Errorf("secret %q reached extra: %s", v, all)
		}
	}

	for _, v := range []string{"api-token-value", "cookie-value", "hub-signature-value", strings.TrimPrefix(h[HeaderSignature], "sha256=")} {
		if strings.Contains(f.log.String(), v) {
			t.Errorf("secret %q logged:\n%s", v, f.log.String())
		}
	}

	s := f.starts[0]
	if s.name != "github" || s.prompt != githubRendered {
		t.Errorf("Start(%q, %q)\nwant prompt %q", s.name, s.prompt, githubRendered)
	}
	if s.payload.Channel != "webhook" || s.payload.Event != plugin.HookWebhookReceived || s.payload.Extra[ExtraWebhook] != "github" {
		t.Errorf("Start's payload = %+v", s.payload)
	}
}

func TestRefusedSignatures(t *testing.T) {
	body := []byte(`{"action":"opened"}`)
	for _, tc := range []struct {
		name    string
		headers func(f *fixture) map[string]string
		want    string // in the error message
	}{
		{"bad signature", func(f *fixture) map[string]string { return f.signed("not-the-secret", body) }, "wrong signature"},
		{"other webhook's secret", func(f *fixture) map[string]string { return f.signed("other-secret", body) }, "wrong signature"},
		{"missing signature", func(f *fixture) map[string]string {
			h := f.signed(testSecret, body)
			delete(h, HeaderSignature)
			return h
		}, "missing X-Podcode-Signature"},
		{"malformed signature", func(f *fixture) map[string]string {
			h := f.signed(testSecret, body)
			h[HeaderSignature] = "sha256=xyz"
			return h
		}, "malformed X-Podcode-Signature"},
		{"missing timestamp", func(f *fixture) map[string]string {
			h := f.signed(testSecret, body)
			delete(h, HeaderTimestamp)
			return h
		}, "missing X-Podcode-Timestamp"},
		{"malformed timestamp", func(f *fixture) map[string]string {
			h := f.signed(testSecret, body)
			h[HeaderTimestamp] = f.now.Format(time.RFC1123)
			return h
		}, "malformed X-Podcode-Timestamp"},
		{"stale timestamp", func(f *fixture) map[string]string {
			ts, sig := Sign([]byte(testSecret), f.now.Add(-Tolerance-time.Second), body)
			return map[string]string{HeaderTimestamp: ts, HeaderSignature: sig}
		}, "stale"},
		{"timestamp from the future", func(f *fixture) map[string]string {
			ts, sig := Sign([]byte(testSecret), f.now.Add(Tolerance+time.Minute), body)
			return map[string]string{HeaderTimestamp: ts, HeaderSignature: sig}
		}, "stale"},
		{"nothing", func(*fixture) map[string]string { return nil }, "missing X-Podcode-Timestamp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, 0, nil)
			h := tc.headers(f)
			status, out, raw := f.post("github", body, h)
			if status != http.StatusUnauthorized {
				t.Fatalf("answer %d %s, want 401", status, raw)
			}
			msg, _ := out["error"].(string)
			if !strings.Contains(msg, tc.want) {
				t.Errorf("error %q does not say %q", msg, tc.want)
			}
			// The expected signature is never revealed.
			_, want := Sign([]byte(testSecret), f.now, body)
			if strings.Contains(raw, strings.TrimPrefix(want, "sha256=")) {
				t.Errorf("the answer reveals the expected signature: %s", raw)
			}
			if strings.Contains(f.log.String(), strings.TrimPrefix(want, "sha256=")) {
				t.Errorf("the log reveals the expected signature: %s", f.log.String())
			}
			f.nothingRan()
		})
	}
}

func TestReplayedSignatureRefused(t *testing.T) {
	f := newFixture(t, 0, nil)
	body := []byte(`{"action":"opened"}`)
	h := f.signed(testSecret, body)
	if status, _, raw := f.post("github", body, h); status != http.StatusAccepted {
		t.Fatalf("first delivery: %d %s", status, raw)
	}
	f.now = f.now.Add(time.Minute) // still within the window
	status, out, raw := f.post("github", body, h)
	if status != http.StatusUnauthorized || !strings.Contains(out["error"].(string), "replayed") {
		t.Fatalf("replay: %d %s, want 401 replayed", status, raw)
	}
	// The same digest in upper-case hex is the same signature.
	h[HeaderSignature] = "sha256=" + strings.ToUpper(strings.TrimPrefix(h[HeaderSignature], "sha256="))
	if status, _, raw := f.post("github", body, h); status != http.StatusUnauthorized {
		t.Fatalf("upper-case replay: %d %s, want 401", status, raw)
	}
	// Once the window has passed, the timestamp check refuses it.
	f.now = f.now.Add(Tolerance)
	if status, out, raw := f.post("github", body, h); status != http.StatusUnauthorized || !strings.Contains(out["error"].(string), "stale") {
		t.Fatalf("late replay: %d %s, want 401 stale", status, raw)
	}
	if s, r := f.counts(); s != 1 || r != 1 {
		t.Fatalf("%d turns, %d WebhookReceived; want exactly the first delivery's", s, r)
	}
	// A new timestamp is a new signature.
	if status, _, raw := f.post("github", body, f.signed(testSecret, body)); status != http.StatusAccepted {
		t.Fatalf("re-signed delivery: %d %s", status, raw)
	}
}

// With the server's database as the ledger, a restarted receiver still
// refuses a replay; a delivery that failed before its turn started may be
// retried after a restart; a signature that cannot be recorded runs
// nothing.
//
// covers L1
func TestReplayRefusedAfterRestart(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "podcode.db"))
	if err != nil {
		t.Fatal(err)
	}
	withDB := func(o *Options) { o.Ledger = st }
	f := newFixture(t, 0, nil, withDB)
	body := []byte(`{"action":"opened"}`)
	h := f.signed(testSecret, body)
	if status, _, raw := f.post("github", body, h); status != http.StatusAccepted {
		t.Fatalf("first delivery: %d %s", status, raw)
	}

	restarted := newFixture(t, 0, nil, withDB)
	restarted.now = f.now.Add(time.Minute)
	if status, out, raw := restarted.post("github", body, h); status != http.StatusUnauthorized || !strings.Contains(out["error"].(string), "replayed") {
		t.Fatalf("replay after a restart: %d %s, want 401 replayed", status, raw)
	}
	restarted.nothingRan()

	// Start fails: the signature is released, in the database too.
	failing := errors.New("the database is locked")
	restarted.startErr.Store(&failing)
	body2 := []byte(`{"action":"closed"}`)
	h2 := restarted.signed(testSecret, body2)
	if status, _, raw := restarted.post("github", body2, h2); status < 500 {
		t.Fatalf("failed start: %d %s", status, raw)
	}
	again := newFixture(t, 0, nil, withDB)
	again.now = restarted.now
	if status, _, raw := again.post("github", body2, h2); status != http.StatusAccepted {
		t.Fatalf("retry after a restart: %d %s", status, raw)
	}

	// The database fails: nothing runs, and the sender may retry.
	st.Close()
	h3 := again.signed(testSecret, []byte(`{"action":"reopened"}`))
	if status, out, raw := again.post("github", []byte(`{"action":"reopened"}`), h3); status != http.StatusInternalServerError || !strings.Contains(out["error"].(string), "recording the signature") {
		t.Fatalf("unrecordable signature: %d %s", status, raw)
	}
	if s, r := again.counts(); s != 1 || r != 1 {
		t.Fatalf("%d turns, %d WebhookReceived; want only the retried delivery's", s, r)
	}
}

// Of many identical deliveries at once, exactly one runs.
func TestConcurrentReplaysOneRuns(t *testing.T) {
	f := newFixture(t, 0, nil)
	body := []byte(`{"action":"opened"}`)
	h := f.signed(testSecret, body)
	var wg sync.WaitGroup
	var accepted, refused atomic.Int32
	for range 16 {
		wg.Go(func() {
			req, _ := http.NewRequest("POST", f.url+"/webhooks/github", bytes.NewReader(body))
			for k, v := range h {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			switch resp.StatusCode {
			case http.StatusAccepted:
				accepted.Add(1)
			case http.StatusUnauthorized:
				refused.Add(1)
			}
		})
	}
	wg.Wait()
	if accepted.Load() != 1 || refused.Load() != 15 {
		t.Fatalf("%d accepted, %d refused; want 1 and 15", accepted.Load(), refused.Load())
	}
	if s, r := f.counts(); s != 1 || r != 1 {
		t.Fatalf("%d turns, %d WebhookReceived", s, r)
	}
}

func TestOversizedBody(t *testing.T) {
	f := newFixture(t, 64, nil)
	fits := bytes.Repeat([]byte("a"), 64)
	if status, _, raw := f.post("plain", fits, f.signed("other-secret", fits)); status != http.StatusAccepted {
		t.Fatalf("a body of exactly MaxBody: %d %s", status, raw)
	}
	f.mu.Lock()
	f.starts, f.received = nil, nil
	f.mu.Unlock()
	big := bytes.Repeat([]byte("a"), 65)
	status, _, raw := f.post("plain", big, f.signed("other-secret", big))
	if status != http.StatusRequestEntityTooLarge {
		t.Fatalf("answer %d %s, want 413", status, raw)
	}
	f.nothingRan()
}

func TestUnknownName(t *testing.T) {
	f := newFixture(t, 0, nil)
	body := []byte(`{}`)
	status, out, raw := f.post("nope", body, f.signed(testSecret, body))
	if status != http.StatusNotFound || !strings.Contains(out["error"].(string), `"nope"`) {
		t.Fatalf("answer %d %s, want 404 naming it", status, raw)
	}
	f.nothingRan()
}

func TestDeniedByWebhookReceived(t *testing.T) {
	f := newFixture(t, 0, nil)
	if err := f.hooks.Register(plugin.HookWebhookReceived, plugin.DenyHook("not from this repository")); err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"action":"opened"}`)
	status, out, raw := f.post("github", body, f.signed(testSecret, body))
	if status != http.StatusForbidden || out["error"] != "not from this repository" {
		t.Fatalf("answer %d %s, want 403 with the hook's message", status, raw)
	}
	if s, r := f.counts(); s != 0 || r != 1 {
		t.Fatalf("%d turns, %d WebhookReceived; want 0 and 1", s, r)
	}
}

// Nobody can answer a question for a webhook: ask refuses, like deny.
func TestAskedByWebhookReceived(t *testing.T) {
	f := newFixture(t, 0, nil)
	f.hooks.Register(plugin.HookWebhookReceived, func(context.Context, *plugin.HookPayload) (*plugin.HookResult, error) {
		return &plugin.HookResult{Decision: plugin.DecisionAsk, Message: "really?"}, nil
	})
	body := []byte(`{}`)
	status, out, raw := f.post("github", body, f.signed(testSecret, body))
	if status != http.StatusForbidden || !strings.Contains(out["error"].(string), "really?") {
		t.Fatalf("answer %d %s, want 403", status, raw)
	}
	f.noTurnStarted()
}

// A failing handler is isolated by the dispatcher: its vote is dropped and
// the webhook goes on.
func TestFailingHandlerDoesNotStopWebhook(t *testing.T) {
	f := newFixture(t, 0, nil)
	f.hooks.Register(plugin.HookWebhookReceived, func(context.Context, *plugin.HookPayload) (*plugin.HookResult, error) {
		return nil, errors.New("boom")
	})
	f.hooks.Register(plugin.HookWebhookReceived, func(context.Context, *plugin.HookPayload) (*plugin.HookResult, error) {
		panic("boom")
	})
	body := []byte(`{}`)
	if status, _, raw := f.post("plain", body, f.signed("other-secret", body)); status != http.StatusAccepted {
		t.Fatalf("answer %d %s, want 202", status, raw)
	}
}

// When Start fails nothing ran, so the sender may retry the same request.
func TestStartErrorReleasesSignature(t *testing.T) {
	f := newFixture(t, 0, nil)
	e := errors.New("store is closed")
	f.startErr.Store(&e)
	body := []byte(`{"action":"opened"}`)
	h := f.signed(testSecret, body)
	status, out, raw := f.post("github", body, h)
	if status != http.StatusInternalServerError || !strings.Contains(out["error"].(string), "store is closed") {
		t.Fatalf("answer %d %s, want 500 with the error", status, raw)
	}
	f.startErr.Store(nil)
	if status, _, raw := f.post("github", body, h); status != http.StatusAccepted {
		t.Fatalf("retry: %d %s, want 202", status, raw)
	}
	if status, _, _ := f.post("github", body, h); status != http.StatusUnauthorized {
		t.Fatalf("replay after the retry: %d, want 401", status)
	}
}

// A template that cannot be executed over this body is the sender's
// problem (422); nothing starts.
func TestTemplateErrorIs422(t *testing.T) {
	f := newFixture(t, 0, map[string]config.Webhook{
		"w": {Secret: testSecret, Prompt: "{{range .JSON.items}}{{.}}{{end}}"},
	})
	body := []byte(`{"items": 5}`)
	status, out, raw := f.post("w", body, f.signed(testSecret, body))
	if status != http.StatusUnprocessableEntity || !strings.HasPrefix(out["error"].(string), "webhooks.w.prompt: template: w:") {
		t.Fatalf("answer %d %s, want 422 naming the webhook", status, raw)
	}
	f.noTurnStarted()
}

func TestNonJSONBody(t *testing.T) {
	f := newFixture(t, 0, nil)
	body := []byte("plain text, not JSON")
	if status, _, raw := f.post("plain", body, f.signed("other-secret", body)); status != http.StatusAccepted {
		t.Fatalf("answer %d %s", status, raw)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.received[0].Extra[ExtraJSON]; ok {
		t.Error("extra json set for a body that is not JSON")
	}
	if f.starts[0].prompt != "said: plain text, not JSON" {
		t.Errorf("prompt %q", f.starts[0].prompt)
	}
}

func TestMethodNotAllowed(t *testing.T) {
	f := newFixture(t, 0, nil)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("GET", "/webhooks/github", nil)
	req.SetPathValue("name", "github")
	f.rc.ServeHTTP(rec, req)
	if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "POST" {
		t.Fatalf("GET: %d", rec.Code)
	}
}

func TestNew(t *testing.T) {
	start := func(context.Context, string, string, *plugin.HookPayload) (string, error) { return "s", nil }
	t.Setenv("PODCODE_TEST_WEBHOOK_SECRET", "from-env")
	t.Setenv("PODCODE_TEST_WEBHOOK_EMPTY", "")

	rc, err := New(map[string]config.Webhook{
		"b": {Secret: "{env:PODCODE_TEST_WEBHOOK_SECRET}", Prompt: "x"},
		"a": {Secret: "literal", Prompt: "y"},
	}, Options{Start: start})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(rc.hooks["b"].secret); got != "from-env" {
		t.Errorf("secret not expanded: %q", got)
	}
	if n := rc.Names(); len(n) != 2 || n[0] != "a" || n[1] != "b" {
		t.Errorf("Names = %v", n)
	}

	for _, tc := range []struct {
		name  string
		hooks map[string]config.Webhook
		o     Options
		want  []string
	}{
		{"no Start", nil, Options{}, []string{"Options.Start"}},
		{"bad template", map[string]config.Webhook{"gh": {Secret: "s", Prompt: "{{.JSON.x"}}, Options{Start: start},
			[]string{"webhooks.gh.prompt: template: gh:1:"}},
		{"unknown function", map[string]config.Webhook{"gh": {Secret: "s", Prompt: "{{nope .Body}}"}}, Options{Start: start},
			[]string{"webhooks.gh.prompt: template: gh:1:", "nope"}},
		{"the internal function is not offered", map[string]config.Webhook{"gh": {Secret: "s", Prompt: "{{podcodeOrEmpty .Body}}"}}, Options{Start: start},
			[]string{"webhooks.gh.prompt: template:"}},
		{"empty env secret", map[string]config.Webhook{"gh": {Secret: "{env:PODCODE_TEST_WEBHOOK_EMPTY}", Prompt: "p"}}, Options{Start: start},
			[]string{"webhooks.gh.secret", "PODCODE_TEST_WEBHOOK_EMPTY"}},
		{"unset env secret", map[string]config.Webhook{"gh": {Secret: "{env:PODCODE_TEST_WEBHOOK_UNSET_X}", Prompt: "p"}}, Options{Start: start},
			[]string{"webhooks.gh.secret", "PODCODE_TEST_WEBHOOK_UNSET_X"}},
		// Part of a secret is no secret: "whsec_" is anyone's guess.
		{"unset env in a secret", map[string]config.Webhook{"gh": {Secret: "whsec_{env:PODCODE_TEST_WEBHOOK_UNSET_Y}", Prompt: "p"}}, Options{Start: start},
			[]string{"webhooks.gh.secret: the environment variable PODCODE_TEST_WEBHOOK_UNSET_Y it names is unset"}},
		{"no secret", map[string]config.Webhook{"gh": {Prompt: "p"}}, Options{Start: start},
			[]string{"webhooks.gh.secret: missing"}},
		{"no prompt", map[string]config.Webhook{"gh": {Secret: "s"}}, Options{Start: start},
			[]string{"webhooks.gh.prompt: missing"}},
		{"every error, in name order", map[string]config.Webhook{"z": {Prompt: "p"}, "a": {Secret: "s", Prompt: "{{"}}, Options{Start: start},
			[]string{"webhooks.a.prompt", "\nwebhooks.z.secret"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.hooks, tc.o)
			if err == nil {
				t.Fatal("New succeeded")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
		})
	}
}

func TestReplayCachePrunes(t *testing.T) {
	var c replayCache
	now := time.Unix(1_800_000_000, 0)
	for i := range 1000 {
		sig := []byte{byte(i), byte(i >> 8)}
		// timestamps spread over the whole window, either side of now
		ts := now.Unix() - 300 + int64(i%601)
		if got := c.claim(sig, ts, now); got != claimed {
			t.Fatalf("claim %d = %v", i, got)
		}
	}
	if c.len() != 1000 {
		t.Fatalf("len = %d", c.len())
	}
	if got := c.claim([]byte{5, 0}, now.Unix(), now); got != replayed {
		t.Fatalf("second claim = %v, want replayed", got)
	}
	// Half the window later, the oldest half (timestamps more than five
	// minutes before the new now) is gone.
	later := now.Add(Tolerance / 2)
	c.claim([]byte("x"), later.Unix(), later)
	for i := range 1000 {
		ts := now.Unix() - 300 + int64(i%601)
		_, ok := c.seen[string([]byte{byte(i), byte(i >> 8)})]
		if stale := later.Unix()-ts > int64(Tolerance/time.Second); ok == stale {
			t.Fatalf("entry %d (ts %d): kept %v at %d", i, ts, ok, later.Unix())
		}
	}
	// Ten minutes on, every entry has expired.
	end := now.Add(2*Tolerance + time.Second)
	c.claim([]byte("y"), end.Unix(), end)
	if c.len() != 1 || len(c.order) != 1 {
		t.Fatalf("after the window: %d entries, %d in the heap; want 1", c.len(), len(c.order))
	}
}

func TestReplayCacheRelease(t *testing.T) {
	var c replayCache
	now := time.Unix(1_800_000_000, 0)
	c.claim([]byte("a"), now.Unix(), now)
	c.release([]byte("a"))
	if got := c.claim([]byte("a"), now.Unix(), now); got != claimed {
		t.Fatalf("claim after release = %v", got)
	}
	end := now.Add(Tolerance + time.Second)
	c.prune(end.Unix())
	if c.len() != 0 || len(c.order) != 0 {
		t.Fatalf("%d entries, %d in the heap after expiry", c.len(), len(c.order))
	}
}

func TestReplayCacheFull(t *testing.T) {
	var c replayCache
	now := time.Unix(1_800_000_000, 0)
	for i := range maxSeen {
		c.claim([]byte{byte(i), byte(i >> 8), byte(i >> 16)}, now.Unix(), now)
	}
	if got := c.claim([]byte("one more"), now.Unix(), now); got != full {
		t.Fatalf("claim beyond maxSeen = %v, want full", got)
	}
	later := now.Add(Tolerance + time.Second)
	if got := c.claim([]byte("one more"), later.Unix(), later); got != claimed {
		t.Fatalf("claim once expired = %v, want claimed", got)
	}
}

// A sender that hangs up while WebhookReceived runs: nothing runs, and the
// same request may be sent again.
func TestSenderHangsUpDuringDispatch(t *testing.T) {
	f := newFixture(t, 0, nil)
	var calls atomic.Int32
	entered, released := make(chan struct{}), make(chan struct{})
	defer close(released)
	// The first call holds its worker until the test ends, ignoring its
	// context: the dispatch returns when the request's context ends.
	f.hooks.Register(plugin.HookWebhookReceived, func(context.Context, *plugin.HookPayload) (*plugin.HookResult, error) {
		if calls.Add(1) == 1 {
			close(entered)
			<-released
		}
		return nil, nil
	})
	body := []byte(`{}`)
	h := f.signed(testSecret, body)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-entered; cancel() }()
	if rec := f.serve(ctx, body, h); rec.Code != 499 {
		t.Fatalf("hung up: %d %s, want 499", rec.Code, rec.Body)
	}
	f.noTurnStarted()
	if rec := f.serve(context.Background(), body, h); rec.Code != http.StatusAccepted {
		t.Fatalf("retry: %d %s, want 202", rec.Code, rec.Body)
	}
}

// A sender that hangs up after the hooks finished but before the turn
// starts: nothing starts either.
func TestSenderHangsUpBeforeStart(t *testing.T) {
	f := newFixture(t, 0, nil)
	body := []byte(`{}`)
	h := f.signed(testSecret, body)
	var cancelFirst atomic.Pointer[context.CancelFunc]
	f.hooks.Register(plugin.HookWebhookReceived, func(context.Context, *plugin.HookPayload) (*plugin.HookResult, error) {
		if c := cancelFirst.Swap(nil); c != nil {
			(*c)()
		}
		return nil, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cancelFirst.Store(&cancel)
	if rec := f.serve(ctx, body, h); rec.Code != 499 {
		t.Fatalf("hung up: %d %s, want 499", rec.Code, rec.Body)
	}
	f.noTurnStarted()
	if rec := f.serve(context.Background(), body, h); rec.Code != http.StatusAccepted {
		t.Fatalf("retry: %d %s, want 202", rec.Code, rec.Body)
	}
}

// gatedLedger holds ForgetSignature until released.
type gatedLedger struct {
	*store.Store
	entered, release chan struct{}
}

func (g *gatedLedger) ForgetSignature(ctx context.Context, webhook string, sig []byte) error {
	close(g.entered)
	<-g.release
	return g.Store.ForgetSignature(ctx, webhook, sig)
}

// A delivery that failed is forgotten in the database before it is
// released in memory: a retry cannot run and then lose its record to the
// failed delivery's forgetting, which would let a replay through after a
// restart.
//
// covers L1
func TestFailedDeliveryForgottenBeforeRetry(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "podcode.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	g := &gatedLedger{Store: st, entered: make(chan struct{}), release: make(chan struct{})}
	f := newFixture(t, 0, nil, func(o *Options) { o.Ledger = g })
	body := []byte(`{"action":"opened"}`)
	h := f.signed(testSecret, body)
	failing := errors.New("the database is locked")
	f.startErr.Store(&failing)
	done := make(chan int)
	go func() { s, _, _ := f.post("github", body, h); done <- s }()
	<-g.entered // the failed delivery is being forgotten
	f.startErr.Store(nil)
	if s, _, raw := f.post("github", body, h); s != http.StatusUnauthorized {
		t.Fatalf("a retry before the failure was answered: %d %s, want 401", s, raw)
	}
	close(g.release)
	if s := <-done; s < 500 {
		t.Fatalf("failed delivery: %d", s)
	}
	if s, _, raw := f.post("github", body, h); s != http.StatusAccepted {
		t.Fatalf("retry after the failure: %d %s", s, raw)
	}
	restarted := newFixture(t, 0, nil, func(o *Options) { o.Ledger = st })
	restarted.now = f.now
	if s, _, raw := restarted.post("github", body, h); s != http.StatusUnauthorized {
		t.Errorf("replay after a restart of the delivery that ran: %d %s", s, raw)
	}
}
