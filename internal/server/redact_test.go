package server

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/webhook"
	"github.com/podcode/podcode/plugin"
)

// A secret of the environment reaches no answer of the API: not in the
// error of a refused prompt (a hook's reason), nor in /healthz's MCP
// errors (a command expanded from {env:...}), nor in the answer to a
// webhook's sender (which senders keep in their delivery logs).
func TestAnswersAreRedacted(t *testing.T) {
	const secret = "sk-acme-0123456789abcdef"
	t.Setenv("ACME_API_KEY", secret)
	p := apptest.Project{
		User: map[string]any{"mcp": map[string]any{"leaky": map[string]any{"type": "local", "command": []string{"/nonexistent/{env:ACME_API_KEY}"}}}},
		Hooks: func(d *plugin.Dispatcher) error {
			if err := d.Register(plugin.HookWebhookReceived, plugin.DenyHook("not with key "+secret)); err != nil {
				return err
			}
			return d.Register(plugin.HookUserPromptSubmit, plugin.DenyHook("refused; key "+secret))
		},
	}
	s := New(newAgent(t, p), "")
	if err := s.EnableWebhooks(map[string]config.Webhook{"ci": {Secret: "whsec", Prompt: "p"}}, webhook.Options{}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	srv := ts.URL
	get := func(method, path, body string, headers ...string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(context.Background(), method, srv+path, strings.NewReader(body))
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(b)
	}
	code, body := get("POST", "/sessions", `{}`)
	if code != 201 {
		t.Fatalf("POST /sessions: %d %s", code, body)
	}
	id := body[strings.Index(body, `"id":"`)+6:]
	id = id[:strings.Index(id, `"`)]
	stamp, sig := webhook.Sign([]byte("whsec"), time.Now(), []byte(`{}`))
	for _, c := range []struct {
		method, path, body, want string
		headers                  []string
	}{
		{"POST", "/sessions/" + id + "/messages", `{"text": "hello"}`, "refused; key", nil},
		{"GET", "/healthz", "", "leaky", nil},
		{"POST", "/webhooks/ci", `{}`, "not with key", []string{webhook.HeaderTimestamp, stamp, webhook.HeaderSignature, sig}},
	} {
		code, body := get(c.method, c.path, c.body, c.headers...)
		if strings.Contains(body, secret) || !strings.Contains(body, c.want) {
			t.Errorf("%s %s: %d %s: want %q in it, and not the secret", c.method, c.path, code, body, c.want)
		}
	}
}

// A tenant is not told where the user keeps their files: /healthz gives
// it the MCP servers without the config file they come from, their process
// ids or their errors (which quote commands), /plugins the plugins without
// their paths or the load warnings (which quote them), and both the
// skipped project code without the sentence naming the project's folder;
// the user sees all of it.
func TestTenantsSeeNoPathsOfTheUser(t *testing.T) {
	for _, untrusted := range []bool{false, true} {
		p := apptest.Project{
			User: map[string]any{"mcp": map[string]any{"leaky": map[string]any{"type": "local", "command": []string{"/nonexistent/server"}}}},
			Files: map[string]string{
				"plugins/p.js":                 `export default {id: "p", server: async () => ({})}`,
				"plugins/bad.js":               `throw new Error("no")`,
				"guards/g/podcode-plugin.json": `{"id": "g", "contributes": {"hooks": [{"event": "PostToolUse", "handler": {"command": "true"}}]}}`,
			},
			Plugins:   []string{"./plugins/p.js", "./plugins/bad.js", "./guards/g"},
			Untrusted: untrusted,
		}
		ts := httptest.NewServer(New(newAgent(t, p), "admin", config.TenantToken{Token: "ann-token", TenantID: 1, UserID: "ann"}).Handler())
		t.Cleanup(ts.Close)
		get := func(path, token string) string {
			t.Helper()
			req, _ := http.NewRequest("GET", ts.URL+path, nil)
			req.Header.Set("Authorization", "Bearer "+token)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Body.Close()
			b, _ := io.ReadAll(res.Body)
			return string(b)
		}
		for _, path := range []string{"/healthz", "/plugins"} {
			if body := get(path, "admin"); !strings.Contains(body, os.TempDir()) && !strings.Contains(body, "/nonexistent") {
				t.Errorf("untrusted %v, %s for the user: %s, want the paths", untrusted, path, body)
			}
			if body := get(path, "ann-token"); strings.Contains(body, os.TempDir()) || strings.Contains(body, "/nonexistent") {
				t.Errorf("untrusted %v, %s for a tenant: %s, want no path of the user's", untrusted, path, body)
			}
		}
	}
}

// A turn posted with async that never starts (a hook refused the prompt)
// says so on /events, as turn.refused (not turn.finished: a turn may be
// running in the session): the client was answered 202 and waits there.
func TestAsyncTurnRefusedIsAnnounced(t *testing.T) {
	p := apptest.Project{Hooks: func(d *plugin.Dispatcher) error {
		return d.Register(plugin.HookUserPromptSubmit, plugin.DenyHook("not today"))
	}}
	s := New(newAgent(t, p), "")
	finished := make(chan bus.Event, 4)
	s.Agent.App.Bus.Subscribe(agent.EventTurnRefused, "test", func(ev bus.Event) { finished <- ev })
	ts := httptest.NewServer(s.Handler())
	t.Cleanup(ts.Close)
	code, body := call(t, &httptest.Server{URL: ts.URL}, "POST", "/sessions", "", `{}`)
	if code != 201 {
		t.Fatalf("POST /sessions: %d %v", code, body)
	}
	id, _ := body["id"].(string)
	if code, body := call(t, &httptest.Server{URL: ts.URL}, "POST", "/sessions/"+id+"/messages", "", `{"text": "hi", "async": true}`); code != 202 {
		t.Fatalf("async post: %d %v", code, body)
	}
	select {
	case ev := <-finished:
		if ev.Properties["sessionID"] != id || !strings.Contains(fmt.Sprint(ev.Properties["error"]), "not today") {
			t.Errorf("turn.refused %+v", ev.Properties)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("nothing said the refused turn ended")
	}
}
