// Package oauthtest is an OAuth 2.1 authorization server and an MCP server
// it protects, on loopback ports, for the tests of Podcode's MCP client
// (package mcpclient) and of the commands that sign in (package cli).
package oauthtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// AuthServer is an authorization server as strict as a real one where the
// client's part is concerned: PKCE S256 (the verifier checked against the
// challenge), the redirect URI, the client and the resource of the
// authorization request again at the token endpoint, the client's secret
// when it has one. It registers any client, authorizes at once
// (redirecting to the redirect URI with a code) and grants the scopes
// asked for.
type AuthServer struct {
	URL string
	srv *httptest.Server

	mu sync.Mutex
	// Settings: change them with Set.
	Issuer        string            // what the metadata says; "" for URL
	Secrets       map[string]string // client → its secret
	ExpiresIn     int               // the tokens' lifetime, seconds
	RefuseRefresh bool              // refresh requests get invalid_grant
	HugeMetadata  bool              // the metadata document is 2 MiB
	codes         map[string]url.Values
	tokens        map[string][]string // access token → scopes
	refresh       map[string][]string // refresh token → scopes
	n             int
	authorizes    []url.Values
	tokenRequests []url.Values
	registrations int
}

// NewAuthServer starts one until the test ends.
func NewAuthServer(t testing.TB) *AuthServer {
	a := &AuthServer{Secrets: map[string]string{}, ExpiresIn: 3600, codes: map[string]url.Values{},
		tokens: map[string][]string{}, refresh: map[string][]string{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", a.metadata)
	mux.HandleFunc("POST /register", a.register)
	mux.HandleFunc("GET /authorize", a.authorize)
	mux.HandleFunc("POST /token", a.token)
	a.srv = httptest.NewServer(mux)
	a.URL = a.srv.URL
	t.Cleanup(a.srv.Close)
	return a
}

// Set changes the settings.
func (a *AuthServer) Set(f func(a *AuthServer)) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f(a)
}

// Authorizes are the authorization requests' parameters, in order.
func (a *AuthServer) Authorizes() []url.Values {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.authorizes)
}

// TokenRequests are the token requests' forms, in order.
func (a *AuthServer) TokenRequests() []url.Values {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.tokenRequests)
}

// Registrations counts the clients registered.
func (a *AuthServer) Registrations() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.registrations
}

// RevokeAccessTokens makes every access token given so far invalid; the
// refresh tokens stay valid.
func (a *AuthServer) RevokeAccessTokens() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tokens = map[string][]string{}
}

// ScopesOf is the scopes of a valid access token.
func (a *AuthServer) ScopesOf(token string) ([]string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.tokens[token]
	return s, ok
}

func (a *AuthServer) metadata(w http.ResponseWriter, _ *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	issuer := a.Issuer
	if issuer == "" {
		issuer = a.URL
	}
	meta := map[string]any{"issuer": issuer, "authorization_endpoint": a.URL + "/authorize", "token_endpoint": a.URL + "/token",
		"registration_endpoint": a.URL + "/register", "response_types_supported": []string{"code"},
		"grant_types_supported": []string{"authorization_code", "refresh_token"}, "code_challenge_methods_supported": []string{"S256"},
		"token_endpoint_auth_methods_supported": []string{"none", "client_secret_basic"}}
	if a.HugeMetadata {
		meta["padding"] = strings.Repeat("x", 2<<20)
	}
	writeJSON(w, 200, meta)
}

func (a *AuthServer) register(w http.ResponseWriter, r *http.Request) {
	var meta map[string]any
	if err := json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&meta); err != nil {
		writeJSON(w, 400, map[string]string{"error": "invalid_client_metadata"})
		return
	}
	a.mu.Lock()
	a.registrations++
	meta["client_id"] = fmt.Sprintf("registered-%d", a.registrations)
	a.mu.Unlock()
	writeJSON(w, 201, meta)
}

func (a *AuthServer) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	a.mu.Lock()
	a.authorizes = append(a.authorizes, q)
	a.n++
	code := fmt.Sprintf("code-%d", a.n)
	a.codes[code] = q
	a.mu.Unlock()
	back, err := url.Parse(q.Get("redirect_uri"))
	if q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("state") == "" || err != nil {
		http.Error(w, "PKCE S256, a state and a redirect URI are required", 400)
		return
	}
	bq := back.Query()
	bq.Set("code", code)
	bq.Set("state", q.Get("state"))
	back.RawQuery = bq.Encode()
	http.Redirect(w, r, back.String(), http.StatusFound)
}

func (a *AuthServer) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	f := r.PostForm
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tokenRequests = append(a.tokenRequests, f)
	client := f.Get("client_id")
	if id, secret, ok := r.BasicAuth(); ok {
		client = id
		if a.Secrets[id] != secret {
			writeJSON(w, 401, map[string]string{"error": "invalid_client"})
			return
		}
	} else if a.Secrets[client] != "" {
		writeJSON(w, 401, map[string]string{"error": "invalid_client"})
		return
	}
	var scopes []string
	switch f.Get("grant_type") {
	case "authorization_code":
		q, ok := a.codes[f.Get("code")]
		delete(a.codes, f.Get("code"))
		sum := sha256.Sum256([]byte(f.Get("code_verifier")))
		switch {
		case !ok:
			writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
			return
		case base64.RawURLEncoding.EncodeToString(sum[:]) != q.Get("code_challenge"):
			writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "PKCE verifier"})
			return
		case f.Get("redirect_uri") != q.Get("redirect_uri") || f.Get("resource") != q.Get("resource") || client != q.Get("client_id"):
			writeJSON(w, 400, map[string]string{"error": "invalid_grant", "error_description": "not the authorization request's"})
			return
		}
		scopes = strings.Fields(q.Get("scope"))
	case "refresh_token":
		s, ok := a.refresh[f.Get("refresh_token")]
		if !ok || a.RefuseRefresh {
			writeJSON(w, 400, map[string]string{"error": "invalid_grant"})
			return
		}
		delete(a.refresh, f.Get("refresh_token"))
		scopes = s
	default:
		writeJSON(w, 400, map[string]string{"error": "unsupported_grant_type"})
		return
	}
	a.n++
	access, refresh := fmt.Sprintf("access-%d", a.n), fmt.Sprintf("refresh-%d", a.n)
	a.tokens[access], a.refresh[refresh] = scopes, scopes
	writeJSON(w, 200, map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": a.ExpiresIn,
		"refresh_token": refresh, "scope": strings.Join(scopes, " ")})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// Server is an MCP server (the Go SDK's, over streamable HTTP) at URL
// that takes the tokens of its authorization server. Without one: 401,
// with a challenge that names its protected-resource metadata and the
// scope "read". Its tools read and write answer "read done" and "write
// done"; write needs the scope "write" too (403 insufficient_scope: the
// step-up).
type Server struct {
	URL string // the MCP endpoint, <origin>/mcp
	as  *AuthServer
	srv *httptest.Server

	mu sync.Mutex
	// Settings: change them with Set.
	PRM          map[string]any // the protected-resource metadata; nil for the default
	AlwaysForbid bool           // a call with a token: 403 insufficient_scope for "read", which the token has
	PlainForbid  bool           // a call with a token: 403 with no challenge (a policy's, a firewall's)
	Forbidden    int            // the calls answered 403
}

// NewServer starts one, protected by as, until the test ends.
func NewServer(t testing.TB, as *AuthServer) *Server {
	p := &Server{as: as}
	server := sdk.NewServer(&sdk.Implementation{Name: "protected", Version: "1"}, nil)
	for _, name := range []string{"read", "write"} {
		sdk.AddTool(server, &sdk.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *sdk.CallToolRequest, any) (*sdk.CallToolResult, any, error) {
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name + " done"}}}, nil, nil
			})
	}
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		prm := p.PRM
		p.mu.Unlock()
		if prm == nil {
			prm = map[string]any{"resource": p.URL, "authorization_servers": []string{as.URL}, "scopes_supported": []string{"read"}}
		}
		writeJSON(w, 200, prm)
	})
	mux.Handle("/mcp", p.guard(handler))
	p.srv = httptest.NewServer(mux)
	p.URL = p.srv.URL + "/mcp"
	t.Cleanup(p.srv.Close)
	return p
}

// Set changes the settings.
func (p *Server) Set(f func(p *Server)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f(p)
}

func (p *Server) guard(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		r.Body = io.NopCloser(bytes.NewReader(body))
		var msg struct {
			Method string `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		json.Unmarshal(body, &msg)
		p.mu.Lock()
		forbid, plain := p.AlwaysForbid, p.PlainForbid
		p.mu.Unlock()
		prm := p.srv.URL + "/.well-known/oauth-protected-resource/mcp"
		scopes, ok := p.as.ScopesOf(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "))
		if !ok {
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata=%q, scope="read"`, prm))
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		if msg.Method == "tools/call" && plain {
			p.mu.Lock()
			p.Forbidden++
			p.mu.Unlock()
			http.Error(w, "forbidden by policy", http.StatusForbidden)
			return
		}
		if msg.Method == "tools/call" && (forbid || msg.Params.Name == "write" && !slices.Contains(scopes, "write")) {
			need := "read write"
			if forbid {
				need = "read"
			}
			w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer error="insufficient_scope", scope=%q, resource_metadata=%q`, need, prm))
			http.Error(w, "forbidden", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}
