package server

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"

	"github.com/podcode/podcode/internal/httpjson"
)

// fromBrowsers refuses what a page of another site can make a browser
// send the API, before anything else looks at the request:
//
//   - Cross-origin writes (http.CrossOriginProtection: Sec-Fetch-Site, or
//     an Origin that is not the request's Host): a page cannot post a
//     prompt, answer a permission or cancel a turn through the user's
//     browser, with or without a token. Reads need no check: without CORS
//     headers the browser keeps the answer from the page.
//   - Without any token (the loopback default), a Host that is not
//     localhost or an IP address: a page whose domain the attacker points
//     at 127.0.0.1 after it loaded (DNS rebinding) is same-origin with
//     what it calls, so only the name it used tells it apart.
//
// Webhooks are exempt from both: their senders are servers, they may come
// through a tunnel under another name, and their signatures are checked.
func (s *Server) fromBrowsers(next http.Handler) http.Handler {
	cop := http.NewCrossOriginProtection()
	cop.AddInsecureBypassPattern(webhookEndpoint.pattern())
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpjson.Error(w, http.StatusForbidden, errors.New("cross-origin request refused: a page of another site may not write to this API"))
	}))
	guarded := cop.Handler(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.Token == "" && len(s.tokens) == 0 && !localHost(r.Host) && !strings.HasPrefix(r.URL.Path, "/webhooks/") {
			httpjson.Error(w, http.StatusForbidden, fmt.Errorf("request addressed to %q refused: a server without an API token answers only requests addressed to localhost or an IP address (the Host header)", r.Host))
			return
		}
		guarded.ServeHTTP(w, r)
	})
}

// localHost reports whether host (a Host header, with or without a port)
// names no domain an attacker could point anywhere: localhost, a name
// under .localhost (browsers resolve it to loopback themselves), or an IP
// address.
func localHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	return net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")) != nil
}
