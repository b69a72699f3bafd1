package server

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/plugin"
)

// A secret of the environment reaches no answer of the API: not in the
// error of a refused prompt (a hook's reason), nor in /healthz's MCP
// errors (a command expanded from {env:...}), nor in a turn's error.
func TestAnswersAreRedacted(t *testing.T) {
	const secret = "sk-acme-0123456789abcdef"
	t.Setenv("ACME_API_KEY", secret)
	p := apptest.Project{
		User: map[string]any{"mcp": map[string]any{"leaky": map[string]any{"type": "local", "command": []string{"/nonexistent/{env:ACME_API_KEY}"}}}},
		Hooks: func(d *plugin.Dispatcher) error {
			return d.Register(plugin.HookUserPromptSubmit, plugin.DenyHook("refused; key "+secret))
		},
	}
	srv := newServer(t, "", p).URL
	get := func(method, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(context.Background(), method, srv+path, strings.NewReader(body))
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
	for _, c := range []struct{ method, path, body, want string }{
		{"POST", "/sessions/" + id + "/messages", `{"text": "hello"}`, "refused; key"},
		{"GET", "/healthz", "", "leaky"},
	} {
		code, body := get(c.method, c.path, c.body)
		if strings.Contains(body, secret) || !strings.Contains(body, c.want) {
			t.Errorf("%s %s: %d %s: want %q in it, and not the secret", c.method, c.path, code, body, c.want)
		}
	}
}
