package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
)

// A page of another site reaches a loopback server through the user's
// browser: by a cross-origin write, or, without a token, by DNS rebinding
// (its own name pointed at 127.0.0.1). Both are refused; clients that are
// not browsers, the page of the server itself and webhooks are not.
func TestPagesOfOtherSitesAreRefused(t *testing.T) {
	open := newServer(t, "", apptest.Project{})
	locked := newServer(t, "s3cret-token", apptest.Project{})
	port := open.URL[strings.LastIndex(open.URL, ":")+1:]
	send := func(srv string, method, path, host, token string, headers ...string) int {
		t.Helper()
		req, _ := http.NewRequest(method, srv+path, strings.NewReader(`{}`))
		if host != "" {
			req.Host = host
		}
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, c := range []struct {
		name         string
		srv          string
		method, path string
		host, token  string
		headers      []string
		want         int
	}{
		{"rebinding read", open.URL, "GET", "/sessions", "attacker.example:" + port, "", nil, 403},
		{"rebinding write", open.URL, "POST", "/sessions", "attacker.example:" + port, "", []string{"Origin", "http://attacker.example:" + port, "Sec-Fetch-Site", "same-origin"}, 403},
		{"rebinding to the page", open.URL, "GET", "/", "attacker.example:" + port, "", nil, 403},
		{"cross-site write", open.URL, "POST", "/sessions", "", "", []string{"Sec-Fetch-Site", "cross-site", "Origin", "https://evil.example", "Content-Type", "text/plain"}, 403},
		{"same-site page on another port", open.URL, "POST", "/sessions", "", "", []string{"Sec-Fetch-Site", "same-site", "Origin", "http://127.0.0.1:1"}, 403},
		{"old browser, foreign Origin", open.URL, "POST", "/sessions", "", "", []string{"Origin", "https://evil.example"}, 403},
		{"the server's own page", open.URL, "POST", "/sessions", "", "", []string{"Sec-Fetch-Site", "same-origin", "Origin", open.URL}, 201},
		{"not a browser", open.URL, "POST", "/sessions", "", "", nil, 201},
		{"localhost", open.URL, "GET", "/sessions", "localhost:" + port, "", nil, 200},
		{"a name under .localhost", open.URL, "GET", "/sessions", "podcode.localhost:" + port, "", nil, 200},
		{"IPv6 loopback", open.URL, "GET", "/sessions", "[::1]:" + port, "", nil, 200},
		{"a webhook through a tunnel", open.URL, "POST", "/webhooks/deploy", "hooks.tunnel.example", "", []string{"Sec-Fetch-Site", "cross-site"}, 404},
		{"with a token, any name", locked.URL, "GET", "/sessions", "podcode.internal:4096", "s3cret-token", nil, 200},
		{"with a token, a cross-site write", locked.URL, "POST", "/sessions", "", "s3cret-token", []string{"Sec-Fetch-Site", "cross-site"}, 403},
	} {
		if got := send(c.srv, c.method, c.path, c.host, c.token, c.headers...); got != c.want {
			t.Errorf("%s: %s %s (Host %q): %d, want %d", c.name, c.method, c.path, c.host, got, c.want)
		}
	}
}

func TestLocalHost(t *testing.T) {
	for host, want := range map[string]bool{
		"localhost": true, "LOCALHOST:4096": true, "localhost.:1": true, "app.localhost:3000": true,
		"127.0.0.1:4096": true, "[::1]:4096": true, "::1": true, "10.0.0.7": true,
		"attacker.example:4096": false, "localhost.attacker.example": false, "127.0.0.1.nip.io:80": false, "": false,
	} {
		if got := localHost(host); got != want {
			t.Errorf("localHost(%q) = %v, want %v", host, got, want)
		}
	}
}
