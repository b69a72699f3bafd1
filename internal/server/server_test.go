package server

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/store"
)

// newAgent boots p and returns an agent over the project's session
// database (in its data directory), which is closed when the test ends.
func newAgent(t testing.TB, p apptest.Project) *agent.Agent {
	t.Helper()
	a, _ := apptest.Boot(t, p)
	st, err := store.Open(context.Background(), filepath.Join(a.DataDir, store.File))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return agent.New(a, st)
}

// newServer serves the API of a new agent for p with the server's token.
func newServer(t testing.TB, token string, p apptest.Project) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(New(newAgent(t, p), token).Handler())
	t.Cleanup(srv.Close)
	return srv
}

func call(t testing.TB, srv *httptest.Server, method, path, token, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var out map[string]any
	decodeJSON(res, &out)
	return res.StatusCode, out
}

func decodeJSON(res *http.Response, v any) { json.NewDecoder(res.Body).Decode(v) }

func TestTokenOnEveryRequest(t *testing.T) {
	srv := newServer(t, "s3cret-token", apptest.Project{})
	for _, path := range []string{"/healthz", "/sessions", "/tools", "/openapi.json"} {
		if code, _ := call(t, srv, "GET", path, "", ""); code != 401 {
			t.Errorf("%s without a token: %d", path, code)
		}
		if code, _ := call(t, srv, "GET", path, "wrong", ""); code != 401 {
			t.Errorf("%s with a wrong token: %d", path, code)
		}
	}
	if code, _ := call(t, srv, "GET", "/healthz", "s3cret-token", ""); code != 200 {
		t.Errorf("with the token: %d", code)
	}
	if err := CheckAddr("0.0.0.0:4096", false); err == nil {
		t.Error("a public address without a token was accepted")
	}
	if CheckAddr("127.0.0.1:4096", false) != nil || CheckAddr("[::1]:1", false) != nil || CheckAddr("localhost:1", false) != nil || CheckAddr("0.0.0.0:1", true) != nil {
		t.Error("loopback, or a token, must be accepted")
	}
}

func TestBodiesAndStatuses(t *testing.T) {
	srv := newServer(t, "", apptest.Project{})
	cases := []struct {
		method, path, body string
		status             int
		err                string
	}{
		{"POST", "/sessions", `{"title": 5}`, 400, `field "title"`},
		{"POST", "/sessions", `{"tittle": "x"}`, 400, `unknown field "tittle"`},
		{"POST", "/sessions", `{"model": "gpt"}`, 400, "provider/model"},
		{"POST", "/sessions", `{} {}`, 400, "more than one"},
		{"POST", "/sessions", `{"title": "a"`, 400, "not valid JSON"},
		{"POST", "/sessions", `{"title": "a" x}`, 400, "not valid JSON at byte"},
		{"POST", "/sessions", `{"model": "nope/model"}`, 400, "unknown model"},
		{"POST", "/sessions/ses_x/messages", `{"text": "hi"}`, 404, "not found"},
		{"POST", "/permissions/perm_x", `{"allow": true}`, 404, "no pending"},
		{"POST", "/sessions", strings.Repeat(" ", MaxBody+10) + "{}", 400, "larger than"},
	}
	for _, c := range cases {
		code, out := call(t, srv, c.method, c.path, "", c.body)
		if code != c.status || !strings.Contains(out["error"].(string), c.err) {
			t.Errorf("%s %s %.40q: %d %v", c.method, c.path, c.body, code, out)
		}
	}
	code, sess := call(t, srv, "POST", "/sessions", "", "")
	if code != 201 {
		t.Fatalf("empty body: %d %v", code, sess)
	}
	id := sess["id"].(string)
	if code, out := call(t, srv, "POST", "/sessions/"+id+"/messages", "", `{"text": "  "}`); code != 400 || !strings.Contains(out["error"].(string), "text") {
		t.Errorf("empty text: %d %v", code, out)
	}
	if code, out := call(t, srv, "POST", "/sessions/"+id+"/messages", "", `{"text": "hi", "params": {"temp": 1}}`); code != 400 || !strings.Contains(out["error"].(string), "temp") {
		t.Errorf("unknown param: %d %v", code, out)
	}
	code, out := call(t, srv, "POST", "/sessions/"+id+"/messages", "", `{"text": "hi", "params": {"temperature": 0}}`)
	if code != 200 || out["text"] != "You said: hi" {
		t.Errorf("turn: %d %v", code, out)
	}
	if code, _ := call(t, srv, "DELETE", "/sessions/"+id, "", ""); code != 204 {
		t.Errorf("delete: %d", code)
	}
}

func FuzzDecodeBody(f *testing.F) {
	f.Add([]byte(`{"text": "hi", "async": true, "params": {"temperature": 0.2}}`))
	f.Add([]byte(`{"title": "t", "model": "a/b"}`))
	f.Add([]byte(`{"allow": true}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`{"text": 1e999}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, v := range []validator{&PostMessage{}, &CreateSession{}, &PermissionReply{}} {
			if err := DecodeBody(bytes.NewReader(data), v); err != nil && err.Error() == "" {
				t.Fatal("an error without a message")
			}
		}
	})
}

// server.token's {env:NAME} is expanded; unset or empty, it is an error.
func TestExpandToken(t *testing.T) {
	t.Setenv("PODCODE_TEST_TOKEN", "tok-123")
	t.Setenv("PODCODE_TEST_EMPTY", "")
	for written, want := range map[string]string{"": "", "plain": "plain", "{env:PODCODE_TEST_TOKEN}": "tok-123"} {
		if got, err := ExpandToken(written); err != nil || got != want {
			t.Errorf("%q: %q %v, want %q", written, got, err, want)
		}
	}
	for written, why := range map[string]string{"{env:PODCODE_TEST_UNSET}": "PODCODE_TEST_UNSET it names is unset", "tok-{env:PODCODE_TEST_UNSET}": "is unset", "{env:PODCODE_TEST_EMPTY}": "is empty"} {
		if _, err := ExpandToken(written); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("%q: %v, want %q", written, err, why)
		}
	}
}
