package server

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/podcode/podcode/internal/apptest"
)

// contract sends requests to a real server and checks each answer against
// the operation the document has for it: the status is one it lists, and
// the body matches that response's schema.
type contract struct {
	t      *testing.T
	srv    *httptest.Server
	router routers.Router
	token  string
}

func newContract(t *testing.T, srv *httptest.Server, token string) *contract {
	doc := loadOpenAPI(t)
	// The document's servers are where a default server listens; route the
	// test server's URLs instead.
	doc.Servers = openapi3.Servers{{URL: srv.URL}}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &contract{t: t, srv: srv, router: router, token: token}
}

// do sends the request and validates the answer; with the token unless
// noToken. A request expected to succeed is validated too, against the
// operation's parameters and request body. It returns the status and body.
func (c *contract) do(method, path, body string, noToken bool) (int, []byte) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.srv.URL+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if !noToken {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		c.t.Fatalf("%s %s: not in openapi.json: %v", method, path, err)
	}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	got, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	if res.StatusCode < 300 {
		// The request as sent (its body again, as it was consumed).
		in.Request.Body = io.NopCloser(strings.NewReader(body))
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			c.t.Errorf("%s %s: the request does not match openapi.json: %v", method, path, err)
		}
	}
	opts := *in.Options
	// Only JSON bodies have schemas worth checking (the page's HTML and
	// the event stream are strings); their status and type still are.
	opts.ExcludeResponseBody = res.Header.Get("Content-Type") != "application/json"
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: res.StatusCode, Header: res.Header, Options: &opts}
	out.SetBodyBytes(got)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		c.t.Errorf("%s %s: the %d answer does not match openapi.json: %v\nbody: %.300s", method, path, res.StatusCode, err, got)
	}
	return res.StatusCode, got
}

func (c *contract) want(status int, method, path, body string) map[string]any {
	c.t.Helper()
	code, got := c.do(method, path, body, false)
	if code != status {
		c.t.Fatalf("%s %s: %d, want %d: %s", method, path, code, status, got)
	}
	var v map[string]any
	json.Unmarshal(got, &v) // an array or no body leaves v nil
	return v
}

// Real answers of the main routes, successes and errors, match the
// document's schemas.
func TestOpenAPIResponses(t *testing.T) {
	const token = "contract-token"
	s := New(newAgent(t, apptest.Project{Config: map[string]any{"permission": map[string]any{"bash": "ask", "*": "allow"}}}), token)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	t.Cleanup(s.Wait) // before the server closes: the async turn ends first
	c := newContract(t, srv, token)

	c.want(200, "GET", "/healthz", "")
	c.want(200, "GET", "/openapi.json", "")
	c.want(200, "GET", "/plugins", "")
	c.want(200, "GET", "/tools", "")
	c.want(200, "GET", "/", "")

	sess := c.want(201, "POST", "/sessions", `{"title": "contract"}`)
	id, _ := sess["id"].(string)
	if id == "" {
		t.Fatalf("no session id: %v", sess)
	}
	c.want(200, "GET", "/sessions", "")
	c.want(200, "GET", "/sessions/"+id, "")
	turn := c.want(200, "POST", "/sessions/"+id+"/messages", `{"text": "hi"}`)
	if turn["text"] != "You said: hi" {
		t.Errorf("turn: %v", turn)
	}
	c.want(200, "GET", "/sessions/"+id+"/messages", "")
	msgs, _ := turn["messages"].([]any)
	if len(msgs) == 0 {
		t.Fatalf("the turn stored no messages: %v", turn)
	}
	mid, _ := msgs[0].(map[string]any)["id"].(string)
	c.want(200, "GET", "/sessions/"+id+"/messages/"+mid, "")

	// A tool call that asks: the question comes on /events, its answer
	// goes to /permissions/{id}.
	evReq, _ := http.NewRequest("GET", srv.URL+"/events", nil)
	evReq.Header.Set("Authorization", "Bearer "+token)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	evRes, err := http.DefaultClient.Do(evReq.WithContext(ctx))
	if err != nil {
		t.Fatal(err)
	}
	defer evRes.Body.Close()
	if evRes.StatusCode != 200 || evRes.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("/events: %d %s", evRes.StatusCode, evRes.Header.Get("Content-Type"))
	}
	c.want(202, "POST", "/sessions/"+id+"/messages", `{"text": "/tool bash {\"command\": \"echo contract\"}", "async": true}`)
	qid := askedQuestion(t, evRes.Body)
	c.want(409, "POST", "/sessions/"+id+"/messages", `{"text": "again"}`)
	c.want(200, "POST", "/permissions/"+qid, `{"allow": true}`)
	c.want(200, "POST", "/sessions/"+id+"/cancel", "")

	// Errors: each in httpjson's shape, with a status the operation lists.
	if code, _ := c.do("GET", "/sessions", "", true); code != 401 {
		t.Errorf("without the token: %d", code)
	}
	c.want(400, "POST", "/sessions", `{"tittle": "x"}`)
	c.want(404, "GET", "/sessions/ses_nope", "")
	c.want(404, "GET", "/sessions/"+id+"/messages/msg_nope", "")
	c.want(404, "POST", "/sessions/ses_nope/messages", `{"text": "hi"}`)
	c.want(400, "POST", "/sessions/"+id+"/messages", `{"text": " "}`)
	c.want(404, "POST", "/permissions/perm_nope", `{"allow": true}`)
	c.want(400, "GET", "/events?last_event_id=nope", "")
	c.want(404, "POST", "/webhooks/nope", `{}`)
	s.Wait()
	c.want(204, "DELETE", "/sessions/"+id, "")
}

// askedQuestion reads Server-Sent Events until permission.asked and
// returns its question's id.
func askedQuestion(t *testing.T, r io.Reader) string {
	t.Helper()
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		data, ok := bytes.CutPrefix(sc.Bytes(), []byte("data: "))
		if !ok {
			continue
		}
		var ev struct {
			Type       string `json:"type"`
			Properties struct {
				Question struct {
					ID string `json:"id"`
				} `json:"question"`
			} `json:"properties"`
		}
		if json.Unmarshal(data, &ev) == nil && ev.Type == EventPermissionAsked {
			return ev.Properties.Question.ID
		}
	}
	t.Fatalf("the event stream ended without %s: %v", EventPermissionAsked, sc.Err())
	return ""
}
