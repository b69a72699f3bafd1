package server

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/web"
)

// The web page and its files are served without a token (they carry no
// data; a browser cannot send a header on its first GET), under a strict
// Content-Security-Policy; everything else still wants the token.
func TestWebPageWithoutTokenAPIWithToken(t *testing.T) {
	srv := newServer(t, "s3cret-token", apptest.Project{})
	get := func(path string) (*http.Response, string) {
		t.Helper()
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res, string(body)
	}
	for path, typ := range map[string]string{"/": "text/html", "/ui/app.js": "text/javascript", "/ui/style.css": "text/css"} {
		res, body := get(path)
		if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), typ) || body == "" {
			t.Errorf("GET %s: %d %q, %d bytes", path, res.StatusCode, res.Header.Get("Content-Type"), len(body))
		}
		if res.Header.Get("Content-Security-Policy") != web.CSP || res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: headers %v", path, res.Header)
		}
	}
	for _, path := range []string{"/sessions", "/events", "/plugins", "/healthz", "/nope", "/index.html"} {
		if res, _ := get(path); res.StatusCode != 401 {
			t.Errorf("GET %s without a token: %d", path, res.StatusCode)
		}
	}
	if res, _ := get("/ui/nope.js"); res.StatusCode != 404 {
		t.Errorf("a file the page does not have: %d", res.StatusCode)
	}
	res, err := http.Post(srv.URL+"/", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Errorf("POST / without a token: %d", res.StatusCode)
	}
}

// The OpenAPI document lists the page's routes, without the token.
func TestWebPageInOpenAPI(t *testing.T) {
	var doc struct {
		Paths map[string]struct {
			Get *struct {
				OperationID string `json:"operationId"`
				Security    *[]any `json:"security"`
			} `json:"get"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(openAPIBytes(t), &doc); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/", "/ui/{file}"} {
		op := doc.Paths[path].Get
		if op == nil || op.OperationID == "" || op.Security == nil || len(*op.Security) != 0 {
			t.Errorf("%s in openapi.json: %+v", path, op)
		}
	}
}
