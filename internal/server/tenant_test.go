package server

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/plugin"
)

// stream reads an /events stream into lines until the test ends.
type stream struct {
	mu    sync.Mutex
	lines []string
}

func openStream(t *testing.T, srv *httptest.Server, token string) *stream {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/events", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("events: %v %v", res, err)
	}
	s := &stream{}
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		for sc.Scan() {
			s.mu.Lock()
			s.lines = append(s.lines, sc.Text())
			s.mu.Unlock()
		}
	}()
	return s
}

func (s *stream) text() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.lines, "\n")
}

// waitFor waits until the stream has shown want.
func (s *stream) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !strings.Contains(s.text(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("the stream never showed %q:\n%s", want, s.text())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Tokens act for tenants: each sees and changes only its own sessions,
// hears only its own events, and its turns' payloads carry its tenant and
// user; the server's own listeners hear everyone, each event with its
// tenant.
//
// covers L3
func TestTenants(t *testing.T) {
	var mu sync.Mutex
	var payloads []plugin.HookPayload
	ag := newAgent(t, apptest.Project{Hooks: func(d *plugin.Dispatcher) error {
		return d.Register(plugin.HookPreToolUse, func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
			mu.Lock()
			payloads = append(payloads, *p) // Extra is not read after the handler returns
			mu.Unlock()
			return nil, nil
		})
	}})
	var tenants []string
	ag.App.Bus.Subscribe(agent.EventTurnFinished, "test", func(ev bus.Event) {
		mu.Lock()
		tenants = append(tenants, ev.Tenant)
		mu.Unlock()
	})
	tokens := []config.TenantToken{{Token: "ann-token", TenantID: 1, UserID: "ann"}, {Token: "{env:BOB_TOKEN}", TenantID: 2, UserID: "bob"}}
	if _, err := ExpandTokens("", tokens); err == nil || !strings.Contains(err.Error(), `server.tokens[1] (tenant 2, user "bob"): the environment variable BOB_TOKEN it names is unset`) {
		t.Errorf("a token whose variable is unset: %v", err)
	}
	// Part of a token is no token: "bob-" is anyone's guess.
	partial := []config.TenantToken{{Token: "bob-{env:BOB_TOKEN}", TenantID: 2, UserID: "bob"}}
	if _, err := ExpandTokens("", partial); err == nil || !strings.Contains(err.Error(), "BOB_TOKEN it names is unset") {
		t.Errorf("a token with an unset variable in it: %v", err)
	}
	// A variable's value is taken as it is, never expanded again.
	t.Setenv("BOB_TOKEN", "bob-token{env:HOME}")
	if got, err := ExpandTokens("", tokens); err != nil || got[1].Token != "bob-token{env:HOME}" || tokens[1].Token != "{env:BOB_TOKEN}" {
		t.Errorf("expanded %+v, %v", got, err)
	}
	// A token that is the server's, or another tenant's, would act for
	// whichever is checked first.
	t.Setenv("BOB_TOKEN", "admin")
	if _, err := ExpandTokens("admin", tokens); err == nil || !strings.Contains(err.Error(), `server.tokens[1] (tenant 2, user "bob"): the token is the server's own`) {
		t.Errorf("a tenant's token that is the server's: %v", err)
	}
	t.Setenv("BOB_TOKEN", "ann-token")
	if _, err := ExpandTokens("admin", tokens); err == nil || !strings.Contains(err.Error(), `server.tokens[1] (tenant 2, user "bob") has the token of server.tokens[0] (tenant 1, user "ann")`) {
		t.Errorf("two tenants with one token: %v", err)
	}
	t.Setenv("BOB_TOKEN", "bob-token")
	tokens, err := ExpandTokens("admin", tokens)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(New(ag, "admin", tokens...).Handler())
	t.Cleanup(srv.Close)
	if code, _ := call(t, srv, "GET", "/sessions", "", ""); code != 401 {
		t.Fatalf("no token: %d", code)
	}

	annEvents, bobEvents := openStream(t, srv, "ann-token"), openStream(t, srv, "bob-token")
	code, sess := call(t, srv, "POST", "/sessions", "ann-token", `{"title": "ann's"}`)
	if code != 201 {
		t.Fatalf("create: %d %v", code, sess)
	}
	ann := sess["id"].(string)
	if code, out := call(t, srv, "POST", "/sessions/"+ann+"/messages", "ann-token", `{"text": "/tool glob {\"pattern\": \"*.json\"}"}`); code != 200 {
		t.Fatalf("ann's turn: %d %v", code, out)
	}
	mu.Lock()
	if len(payloads) != 1 || payloads[0].TenantID != 1 || payloads[0].UserID != "ann" || payloads[0].Channel != "api" || payloads[0].SessionID != ann {
		t.Errorf("payloads %+v", payloads)
	}
	mu.Unlock()

	for _, who := range []string{"bob-token", "admin"} {
		for _, c := range []struct{ method, path, body string }{
			{"GET", "/sessions/" + ann, ""},
			{"GET", "/sessions/" + ann + "/messages", ""},
			{"POST", "/sessions/" + ann + "/messages", `{"text": "hi"}`},
			{"POST", "/sessions/" + ann + "/cancel", ""},
			{"DELETE", "/sessions/" + ann, ""},
		} {
			if code, _ := call(t, srv, c.method, c.path, who, c.body); code != 404 {
				t.Errorf("%s %s %s: %d, want 404", who, c.method, c.path, code)
			}
		}
		var list []map[string]any
		req, _ := http.NewRequest("GET", srv.URL+"/sessions", nil)
		req.Header.Set("Authorization", "Bearer "+who)
		res, _ := http.DefaultClient.Do(req)
		decodeJSON(res, &list)
		res.Body.Close()
		if len(list) != 0 {
			t.Errorf("%s lists %v", who, list)
		}
	}

	_, sess = call(t, srv, "POST", "/sessions", "bob-token", `{}`)
	bob := sess["id"].(string)
	call(t, srv, "POST", "/sessions/"+bob+"/messages", "bob-token", `{"text": "hello"}`)
	bobEvents.waitFor(t, bob)
	annEvents.waitFor(t, ann)
	time.Sleep(50 * time.Millisecond) // anything misrouted has had time to arrive
	if strings.Contains(bobEvents.text(), ann) || strings.Contains(annEvents.text(), bob) {
		t.Errorf("events crossed tenants:\nann's stream:\n%s\nbob's stream:\n%s", annEvents.text(), bobEvents.text())
	}
	if !strings.Contains(bobEvents.text(), `"tenant":"2"`) {
		t.Errorf("bob's events do not carry his tenant:\n%s", bobEvents.text())
	}
	mu.Lock()
	if strings.Join(tenants, ",") != "1,2" {
		t.Errorf("the bus's own listener heard tenants %v", tenants)
	}
	mu.Unlock()

	if code, _ := call(t, srv, "DELETE", "/sessions/"+ann, "ann-token", ""); code != 204 {
		t.Errorf("ann deleting her own session: %d", code)
	}
}

// A tenant picks among the models the user's file defines (and the
// default), never one only the embedded catalog knows: that model would be
// called with whatever keys and cloud credentials the server's environment
// holds. The server's own token may pick any.
func TestTenantPicksOnlyTheUsersModels(t *testing.T) {
	ag := newAgent(t, apptest.Project{User: map[string]any{"provider": map[string]any{"local": map[string]any{
		"options": map[string]any{"baseURL": "http://127.0.0.1:1/v1"}, "models": map[string]any{"m": map[string]any{}}}}},
		Env: map[string]string{"ANTHROPIC_API_KEY": "sk-ant-servers-own"}})
	srv := httptest.NewServer(New(ag, "admin", config.TenantToken{Token: "ann-token", TenantID: 1, UserID: "ann"}).Handler())
	t.Cleanup(srv.Close)
	if code, out := call(t, srv, "POST", "/sessions", "ann-token", `{"model": "anthropic/claude-opus-4-1"}`); code != 400 ||
		!strings.Contains(out["error"].(string), "not one this server offers") || !strings.Contains(out["error"].(string), "local/m") {
		t.Errorf("a catalog model: %d %v", code, out)
	}
	if code, out := call(t, srv, "POST", "/sessions", "ann-token", `{"model": "local/m"}`); code != 201 {
		t.Errorf("the user's model: %d %v", code, out)
	}
	if code, out := call(t, srv, "POST", "/sessions", "admin", `{"model": "anthropic/claude-opus-4-1"}`); code != 201 {
		t.Errorf("the server's own token: %d %v", code, out)
	}
}
