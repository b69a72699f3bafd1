package mcpclient

// OAuth 2.1 for remote servers, with the SDK's client (package auth): a
// server that answers 401 (or 403 insufficient_scope) starts a login.
//
// A login, one at a time per server (oauthClient.login), runs apart from
// the request that started it, for at most loginTimeout:
//
//  1. Podcode listens on a loopback redirect URI of its own
//     (http://127.0.0.1:<random port>/callback);
//  2. the SDK discovers the server's protected-resource metadata and its
//     authorization server's metadata, registers a client (the user's
//     Client ID Metadata Document, the user's client, else dynamic
//     registration) and makes the authorization URL (PKCE S256, a random
//     state, the resource, the scopes: WWW-Authenticate's, else the
//     metadata's, with the user's and those granted before);
//  3. the URL is opened with $BROWSER, else logged at warn for the user to
//     open; the redirect's state must be the URL's (any other request to
//     the redirect URI is answered 400 and ignored);
//  4. the code is exchanged for a token, stored in the user's data folder
//     (TokenFile: one file per server URL, mode 0600) and refreshed when
//     it expires, or once when the server refuses it; a token endpoint
//     that refuses a refresh drops the token, and the next request's 401
//     starts a login again.
//
// The request that started the login (and any other that needs one
// meanwhile) waits for it as long as its own context lets it, within the
// server's start bound; past that it fails with ErrNeedsAuthorization,
// which names the URL, and the login goes on: the server's next start
// finds the token. Logins a server's answers start are bounded
// (maxAutoLogins in autoLoginWindow, none after one that nobody answered);
// `podcode mcp auth` (Server.Login) starts one anyway.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"golang.org/x/oauth2"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/safetext"
	"github.com/podcode/podcode/internal/version"
)

// loginTimeout bounds a login: the user's time to authorize in the
// browser, and the requests around it. A variable for the tests.
var loginTimeout = 5 * time.Minute

// Bounds of OAuth.
const (
	// maxAutoLogins bounds the logins a server's 401 and 403 answers start
	// within autoLoginWindow: a server that keeps refusing its tokens does
	// not open a browser tab at every restart.
	maxAutoLogins   = 3
	autoLoginWindow = 10 * time.Minute
	// oauthHTTPTimeout bounds each request to the authorization server
	// (metadata, registration, token); the SDK bounds what it reads of
	// each (1 MiB of metadata).
	oauthHTTPTimeout = 30 * time.Second
	maxTokenFile     = 64 << 10
	callbackPath     = "/callback"
	// AuthDir is where the tokens are, under the user's data folder
	// (config.UserDataDir).
	AuthDir = "mcp-auth"
)

// ErrNeedsAuthorization is the error of a request to a server that needs
// the user to authorize Podcode in a browser: its text says where.
var ErrNeedsAuthorization = errors.New("needs authorization")

// errOAuth marks every error of a login, so that a server that answered
// 401 is not tried again over SSE.
var errOAuth = errors.New("OAuth")

// authFailed reports whether err is a login's (or the lack of one).
func authFailed(err error) bool {
	return errors.Is(err, errOAuth) || errors.Is(err, ErrNeedsAuthorization)
}

// streamable is the server's streamable-HTTP transport, with its OAuth
// client unless OAuth is off for it (oauthFor). life is the Set's: a
// login ends with it.
func (s *Server) streamable(life context.Context) *sdk.StreamableClientTransport {
	t := &sdk.StreamableClientTransport{Endpoint: s.spec.URL, HTTPClient: s.httpClient(), MaxRetries: resumeRetries}
	if c := s.oauthFor(); c != nil {
		c.mu.Lock()
		c.life = life
		c.mu.Unlock()
		t.OAuthHandler = &connAuth{oauthClient: c, began: time.Now()}
	}
	return t
}

// connAuth is the server's OAuth client as one connection's handler: a
// request of its start waits for a login at most four fifths of the
// start bound (from the connection's start), so that the start, bounded,
// ends with the error that says what to do rather than with the bound's
// cancellation (which says only that it was cancelled). A later request
// (a call's step-up) waits as long as its context lets it.
type connAuth struct {
	*oauthClient
	began time.Time
}

func (a *connAuth) Authorize(ctx context.Context, req *http.Request, resp *http.Response) error {
	bound := a.s.startTimeout()
	var deadline time.Time
	if time.Since(a.began) < bound {
		deadline = a.began.Add(bound * 4 / 5)
	}
	return a.authorize(ctx, req, resp, deadline)
}

// oauthFor is the server's OAuth client, made on first use; nil when
// OAuth is off: "oauth": false, or an Authorization header the user (or
// the project) wrote, which would replace the token anyway.
func (s *Server) oauthFor() *oauthClient {
	if o := s.spec.OAuth; o != nil && o.Disabled {
		return nil
	}
	for k := range s.spec.Headers {
		if strings.EqualFold(k, "Authorization") {
			return nil
		}
	}
	s.mu.Lock()
	if s.oauth == nil {
		s.oauth = &oauthClient{s: s, httpc: &http.Client{Timeout: oauthHTTPTimeout}, timeout: loginTimeout}
	}
	c := s.oauth
	s.mu.Unlock()
	return c
}

// oauthClient is a server's auth.OAuthHandler: the token the transport
// sends, and the logins that get one.
type oauthClient struct {
	s *Server
	// httpc reaches the authorization server: not the transport's client,
	// whose headers are the MCP server's. Its Transport stays nil, so that
	// the SDK's discovery refuses private and reserved addresses.
	httpc   *http.Client
	timeout time.Duration // loginTimeout

	mu      sync.Mutex
	life    context.Context // the Set's
	ts      *savingSource   // the current token; nil when there is none
	granted []string        // the scopes the current (or last) token was granted
	stamp   fileStamp       // the token file as last read
	login   *login          // the login under way
	starts  []time.Time     // when the logins the server's answers started did
	stalled bool            // a login nobody answered: no more until one succeeds
	// challenge is the WWW-Authenticate of the last 401 or 403, for a
	// login `podcode mcp auth` starts.
	challenge []string
}

// login is one login under way.
type login struct {
	done   chan struct{} // closed when it ended; then err is set
	err    error
	urlSet chan struct{} // closed when url is set
	url    string        // the authorization URL
}

// TokenSource is the current token's source, nil when there is none:
// the transport then sends no Authorization header, and the server's 401
// starts a login. A token another process stored since (`podcode mcp
// auth`) is read here.
func (c *oauthClient) TokenSource(context.Context) (oauth2.TokenSource, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ts == nil {
		c.loadLocked()
	}
	if c.ts == nil {
		return nil, nil // a typed nil would be a source
	}
	return c.ts, nil
}

// authorize is the transport's Authorize, for a request the server
// answered 401 or 403 (step 1 of the lifecycle above). It returns nil once
// a token may be sent (the transport sends the request again), or why
// not; a login is waited for until ctx ends or deadline (if not zero).
func (c *oauthClient) authorize(ctx context.Context, req *http.Request, resp *http.Response, deadline time.Time) error {
	challenges, _ := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	code, scopes := challengeOf(challenges)
	if resp.StatusCode == http.StatusForbidden && code != "insufficient_scope" {
		// Not about the token's scopes: the server's answer stands. (nil
		// would have the transport send the request again: a tools/call
		// twice.)
		discard(resp)
		return fmt.Errorf("the server answered %s", resp.Status)
	}
	c.mu.Lock()
	c.challenge = slices.Clone(resp.Header.Values("WWW-Authenticate"))
	if c.changedLocked() {
		// Another process stored a token since: try it first.
		c.loadLocked()
		if c.ts != nil {
			c.mu.Unlock()
			discard(resp)
			return nil
		}
	}
	if resp.StatusCode == http.StatusForbidden && len(scopes) > 0 && c.ts != nil && subset(scopes, c.granted) {
		granted := strings.Join(c.granted, " ")
		c.mu.Unlock()
		discard(resp)
		return fmt.Errorf("%w: the server refuses the token for scopes it was granted (%s): not signing in again", errOAuth, safetext.Line(chat.Shorten(granted, 200)))
	}
	if resp.StatusCode == http.StatusUnauthorized && c.ts != nil {
		// The token was refused: a refresh may do without the browser.
		ts := c.ts
		c.mu.Unlock()
		if ts.refresh(ctx) == nil {
			discard(resp)
			return nil
		}
		c.mu.Lock()
	}
	l := c.login
	if l == nil {
		if err := c.mayStartLocked(); err != nil {
			c.mu.Unlock()
			discard(resp)
			return err
		}
		var err error
		if l, err = c.startLocked(req, resp); err != nil {
			c.mu.Unlock()
			return err
		}
	} else {
		discard(resp)
	}
	c.mu.Unlock()
	return c.wait(ctx, l, deadline)
}

// Login signs Podcode in to the server now (`podcode mcp auth`): it joins
// the login under way, else starts one, whatever the bounds on the logins
// the server's answers start. show is told the authorization URL once it
// is known. It returns once the token is stored, the login failed, or ctx
// ended.
func (s *Server) Login(ctx context.Context, show func(url string)) error {
	if s.spec.Transport == Stdio || s.spec.Transport == SSE {
		return fmt.Errorf("MCP server %q: OAuth is for a streamable-HTTP server (type remote or http)", s.spec.Name)
	}
	if st := s.Status(); st.State == StateUntrusted {
		return fmt.Errorf("MCP server %q is not trusted (%s): podcode trust first", s.spec.Name, st.Error)
	}
	c := s.oauthFor()
	if c == nil {
		return fmt.Errorf("MCP server %q: OAuth is off for it (\"oauth\": false, or an Authorization header)", s.spec.Name)
	}
	c.mu.Lock()
	l := c.login
	if l == nil {
		// The transport's request is not at hand: the last challenge the
		// server sent stands in for its answer.
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.spec.URL, nil)
		if err != nil {
			c.mu.Unlock()
			return fmt.Errorf("MCP server %q: %w", s.spec.Name, err)
		}
		resp := &http.Response{StatusCode: http.StatusUnauthorized, Header: http.Header{}, Body: http.NoBody, Request: req}
		for _, v := range c.challenge {
			resp.Header.Add("WWW-Authenticate", v)
		}
		if l, err = c.startLocked(req, resp); err != nil {
			c.mu.Unlock()
			return err
		}
	}
	c.mu.Unlock()
	go func() {
		select {
		case <-l.urlSet:
			show(l.url)
		case <-l.done:
		case <-ctx.Done():
		}
	}()
	select {
	case <-l.done:
		return l.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// mayStartLocked says whether the server's answer may start a login.
func (c *oauthClient) mayStartLocked() error {
	name := c.s.spec.Name
	if c.stalled {
		return fmt.Errorf("%w: the last request to authorize Podcode was not answered within %s; run \"podcode mcp auth %s\"", ErrNeedsAuthorization, c.timeout, name)
	}
	now := time.Now()
	c.starts = slices.DeleteFunc(c.starts, func(t time.Time) bool { return now.Sub(t) > autoLoginWindow })
	if len(c.starts) >= maxAutoLogins {
		return fmt.Errorf("%w: signed in %d times within %s and still refused; run \"podcode mcp auth %s\" to sign in again", ErrNeedsAuthorization, len(c.starts), autoLoginWindow, name)
	}
	c.starts = append(c.starts, now)
	return nil
}

// wait waits for login l until ctx ends or deadline (if not zero).
func (c *oauthClient) wait(ctx context.Context, l *login, deadline time.Time) error {
	var timeout <-chan time.Time
	if !deadline.IsZero() {
		timer := time.NewTimer(time.Until(deadline))
		defer timer.Stop()
		timeout = timer.C
	}
	select {
	case <-l.done:
		return l.err
	case <-ctx.Done():
	case <-timeout:
	}
	select {
	case <-l.urlSet:
		return fmt.Errorf("%w: open %s in a browser to authorize Podcode, or run \"podcode mcp auth %s\"", ErrNeedsAuthorization, l.url, c.s.spec.Name)
	default:
		return fmt.Errorf("%w: a login is under way; run \"podcode mcp auth %s\" to follow it", ErrNeedsAuthorization, c.s.spec.Name)
	}
}

// startLocked starts a login (steps 1 to 4 above) in a goroutine of its
// own; it takes resp over.
func (c *oauthClient) startLocked(req *http.Request, resp *http.Response) (*login, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		discard(resp)
		return nil, fmt.Errorf("%w: listening for the authorization's redirect: %v", errOAuth, err)
	}
	redirect := fmt.Sprintf("http://%s%s", ln.Addr(), callbackPath)
	l := &login{done: make(chan struct{}), urlSet: make(chan struct{})}
	h, err := auth.NewAuthorizationCodeHandler(c.handlerConfig(redirect, ln, l))
	if err != nil {
		ln.Close()
		discard(resp)
		return nil, fmt.Errorf("%w: %v", errOAuth, err)
	}
	life := c.life
	if life == nil {
		life = context.Background()
	}
	ctx, cancel := context.WithTimeout(life, c.timeout)
	c.login = l
	log := c.s.log
	log.Info("mcp: the server asks for authorization; signing in", "redirect", redirect)
	go func() {
		defer cancel()
		defer ln.Close()
		err := h.Authorize(ctx, req, resp)
		c.mu.Lock()
		defer c.mu.Unlock()
		c.login = nil
		switch {
		case err == nil:
			c.stalled = false
			log.Info("mcp: signed in; the token is stored", "scopes", strings.Join(c.granted, " "))
		case life.Err() != nil:
			err = fmt.Errorf("%w: Podcode stopped before the login ended", errOAuth)
			log.Debug("mcp: the login ends with Podcode")
		case errors.Is(ctx.Err(), context.DeadlineExceeded):
			c.stalled = true
			err = fmt.Errorf("%w: nobody authorized Podcode within %s; run \"podcode mcp auth %s\"", ErrNeedsAuthorization, c.timeout, c.s.spec.Name)
			log.Warn("mcp: nobody answered the request to authorize Podcode", "error", err.Error())
		default:
			err = fmt.Errorf("%w: signing in to the server's authorization server: %v", errOAuth, err)
			log.Warn("mcp: signing in failed", "error", err.Error())
		}
		l.err = err
		close(l.done)
	}()
	return l, nil
}

// handlerConfig is the SDK's configuration of one login.
func (c *oauthClient) handlerConfig(redirect string, ln net.Listener, l *login) *auth.AuthorizationCodeHandlerConfig {
	o := c.s.spec.OAuth
	if o == nil {
		o = &config.MCPOAuth{}
	}
	cfg := &auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		AuthorizationCodeFetcher: func(ctx context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			return c.fetch(ctx, ln, l, args.URL)
		},
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			RedirectURIs: []string{redirect}, ClientName: "Podcode", GrantTypes: []string{"authorization_code", "refresh_token"},
			ResponseTypes: []string{"code"}, TokenEndpointAuthMethod: "none", SoftwareID: "podcode", SoftwareVersion: version.App(),
		}},
		ScopeFilter: func(discovered []string) []string {
			c.mu.Lock()
			defer c.mu.Unlock()
			// What was granted before stays asked for: a step-up adds to it.
			return union(c.granted, strings.Fields(o.Scope), discovered)
		},
		RequestRefreshToken: true,
		// A matching iss is the authorization server's own, advertised
		// or not; a wrong one is still refused.
		AcceptUnadvertisedIss: true,
		Client:                c.httpc,
		NewTokenSource:        c.newTokenSource,
	}
	switch {
	case o.ClientID == "":
	case isURL(o.ClientID):
		cfg.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: o.ClientID}
	default:
		// The user's client, and no other: the SDK refuses an issuer
		// other than the one the user named.
		cfg.PreregisteredClient = &oauthex.ClientCredentials{ClientID: o.ClientID, Issuer: o.Issuer}
		if o.ClientSecret != "" {
			cfg.PreregisteredClient.ClientSecretAuth = &oauthex.ClientSecretAuth{ClientSecret: o.ClientSecret}
		}
		cfg.DynamicClientRegistrationConfig = nil
	}
	return cfg
}

// fetch is the user agent's part (step 3): it opens the authorization
// URL and waits on the redirect URI for the redirect with the URL's state.
func (c *oauthClient) fetch(ctx context.Context, ln net.Listener, l *login, authURL string) (*auth.AuthorizationResult, error) {
	u, err := secureURL("the authorization endpoint", authURL)
	if err != nil {
		return nil, err
	}
	state := u.Query().Get("state")
	if state == "" {
		return nil, errors.New("the authorization URL has no state")
	}
	c.mu.Lock()
	l.url = authURL
	close(l.urlSet)
	c.mu.Unlock()

	got := make(chan callback, 1)
	srv := &http.Server{Handler: &callbackHandler{server: c.s.spec.Name, state: state, got: got, log: c.s.log},
		ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 10 * time.Second, WriteTimeout: 10 * time.Second, MaxHeaderBytes: 16 << 10}
	go srv.Serve(ln)
	defer func() {
		// The redirect's page is written before its handler returns.
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			srv.Close()
		}
	}()
	c.open(authURL)
	select {
	case r := <-got:
		return r.result, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting for the browser: %w", ctx.Err())
	}
}

// open opens the authorization URL with the command $BROWSER names (the
// convention: commands separated by the path list separator, the URL in
// place of %s or as the last argument), else logs it for the user to
// open.
func (c *oauthClient) open(authURL string) {
	for _, line := range filepath.SplitList(os.Getenv("BROWSER")) {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		args, placed := f[1:], false
		for i, a := range args {
			if strings.Contains(a, "%s") {
				args[i], placed = strings.ReplaceAll(a, "%s", authURL), true
			}
		}
		if !placed {
			args = append(args, authURL)
		}
		cmd := exec.Command(f[0], args...) // no shell: the URL is one argument
		if err := cmd.Start(); err != nil {
			c.s.log.Info("mcp: $BROWSER did not start", "browser", f[0], "error", err.Error())
			continue
		}
		go cmd.Wait()
		c.s.log.Info("mcp: opened the authorization page with $BROWSER", "browser", f[0], "url", authURL)
		return
	}
	c.s.log.Warn("mcp: the server needs authorization: open this URL in a browser to authorize Podcode (set BROWSER to have it opened)", "url", authURL)
}

// callback is what the redirect brought.
type callback struct {
	result *auth.AuthorizationResult
	err    error
}

// callbackHandler answers the redirect URI: the redirect with the login's
// state ends the wait; anything else is answered 400 and ignored (a page
// the user visits can make the browser request any loopback URL, but not
// guess the state).
type callbackHandler struct {
	server  string
	state   string
	got     chan<- callback
	log     *slog.Logger
	once    sync.Once
	mu      sync.Mutex
	refused int
}

// maxRefusedLogged bounds the warnings about wrong redirects.
const maxRefusedLogged = 3

func (h *callbackHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if r.URL.Path != callbackPath || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	if subtle.ConstantTimeCompare([]byte(q.Get("state")), []byte(h.state)) != 1 {
		h.mu.Lock()
		h.refused++
		n := h.refused
		h.mu.Unlock()
		if n <= maxRefusedLogged {
			h.log.Warn("mcp: a redirect to the authorization's callback with another state was refused", "refused", n)
		}
		page(w, http.StatusBadRequest, "This is not the answer to Podcode's request to authorize "+h.server+" (its state does not match): ignored.")
		return
	}
	var cb callback
	switch e := q.Get("error"); {
	case e != "":
		cb.err = fmt.Errorf("the authorization server refused: %s", safetext.Line(chat.Shorten(strings.TrimSpace(e+" "+q.Get("error_description")), 300)))
		page(w, http.StatusOK, "Podcode was not authorized to use "+h.server+": "+chat.Shorten(e, 100)+". You can close this tab.")
	case q.Get("code") == "":
		cb.err = errors.New("the authorization server's redirect has no code")
		page(w, http.StatusBadRequest, "The redirect has no authorization code.")
	default:
		cb.result = &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}
		page(w, http.StatusOK, "Podcode is authorized to use "+h.server+". You can close this tab.")
	}
	h.once.Do(func() { h.got <- cb })
}

func page(w http.ResponseWriter, status int, text string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	fmt.Fprintf(w, "<!doctype html><meta charset=utf-8><title>Podcode</title><p>%s</p>\n", html.EscapeString(text))
}

// newTokenSource is the SDK's NewTokenSource: the token the code was
// exchanged for, stored and refreshed (step 4).
func (c *oauthClient) newTokenSource(ctx context.Context, cfg *oauth2.Config, tok *oauth2.Token) (oauth2.TokenSource, error) {
	rec := &tokenRecord{ClientID: cfg.ClientID, TokenURL: cfg.Endpoint.TokenURL, AuthStyle: int(cfg.Endpoint.AuthStyle),
		Scopes: grantedScopes(tok, cfg.Scopes), Token: tok}
	if o := c.s.spec.OAuth; o == nil || cfg.ClientSecret != o.ClientSecret {
		rec.ClientSecret = cfg.ClientSecret // a registered client's: the user's own secret stays in the user's config
	}
	ts := &savingSource{c: c, cfg: cfg, rec: rec, base: cfg.TokenSource(ctx, tok)}
	if err := c.save(rec); err != nil {
		c.s.log.Warn("mcp: the token could not be stored: it serves until Podcode stops", "error", err.Error())
	}
	c.mu.Lock()
	c.ts, c.granted = ts, rec.Scopes
	c.mu.Unlock()
	return ts, nil
}

// savingSource is the current token: refreshed when it expires, each new
// token stored; a refresh the token endpoint refuses drops it.
type savingSource struct {
	c    *oauthClient
	cfg  *oauth2.Config
	mu   sync.Mutex
	rec  *tokenRecord // the token as last stored
	base oauth2.TokenSource
	// forced: the token is one refresh got because the server refused
	// the one before: a server that refuses it too gets a login, not
	// another refresh.
	forced bool
}

// Token is the token to send. A token that cannot be refreshed (none to
// refresh it with, or the token endpoint refused) is dropped, and the
// error is an invalid_grant: the transport then sends the request without
// a token, and the server's 401 starts a login. Another error is one the
// token endpoint did not answer (a refusal is an answer).
func (p *savingSource) Token() (*oauth2.Token, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.rec.Token.Valid() && p.rec.Token.RefreshToken == "" {
		return nil, p.c.drop(p, "it expired and there is no refresh token")
	}
	t, err := p.base.Token()
	var refused *oauth2.RetrieveError
	switch {
	case errors.As(err, &refused) && refused.Response != nil && refused.Response.StatusCode < 500:
		return nil, p.c.drop(p, "the token endpoint refused to refresh it: "+safetext.Line(chat.Shorten(refused.Error(), 200)))
	case err != nil:
		return nil, err
	}
	p.keepLocked(t)
	return t, nil
}

// refresh refreshes the token now (one the server refused before it
// expired), or says why not.
func (p *savingSource) refresh(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.rec.Token.RefreshToken == "":
		return errors.New("no refresh token")
	case p.forced:
		return errors.New("the server refused a token refreshed for it")
	}
	old := *p.rec.Token
	old.Expiry = time.Unix(1, 0) // expired: the source refreshes
	t, err := p.cfg.TokenSource(context.WithValue(ctx, oauth2.HTTPClient, p.c.httpc), &old).Token()
	if err != nil {
		return err
	}
	p.base = p.cfg.TokenSource(context.WithValue(context.Background(), oauth2.HTTPClient, p.c.httpc), t)
	p.keepLocked(t)
	p.forced = true
	return nil
}

// keepLocked stores t if it is new.
func (p *savingSource) keepLocked(t *oauth2.Token) {
	if t.AccessToken == p.rec.Token.AccessToken {
		return
	}
	p.forced = false
	rec, kept := *p.rec, *t
	if kept.RefreshToken == "" {
		kept.RefreshToken = rec.Token.RefreshToken // a refresh may keep the refresh token
	}
	rec.Token = &kept
	if s := grantedScopes(t, nil); len(s) > 0 {
		rec.Scopes = s
	}
	p.rec = &rec
	if err := p.c.save(&rec); err != nil {
		p.c.s.log.Warn("mcp: the refreshed token could not be stored", "error", err.Error())
	}
}

// drop forgets token source p, if it is still the current one, and its
// file. Its error is what Token returns: an invalid_grant, which the
// transport takes for "no token" (the SDK's convention).
func (c *oauthClient) drop(p *savingSource, why string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	err := &oauth2.RetrieveError{ErrorCode: "invalid_grant", ErrorDescription: "the stored token is dropped: " + why}
	if c.ts != p {
		return err
	}
	c.ts = nil
	c.s.log.Info("mcp: the stored token is dropped; the next request signs in again", "why", why)
	if path, ferr := TokenFile(c.s.spec, c.s.set.opts.Cwd); ferr == nil {
		os.Remove(path)
	}
	c.stamp = fileStamp{}
	return err
}

// tokenRecord is a token file.
type tokenRecord struct {
	Server  string `json:"server"`            // the MCP server's URL, the token's resource
	Project string `json:"project,omitempty"` // a project's server: the project's directory
	// ClientID and ClientSecret: the client the token was issued to, to
	// refresh it. A secret the user configured is not copied here.
	ClientID     string        `json:"client_id"`
	ClientSecret string        `json:"client_secret,omitempty"`
	TokenURL     string        `json:"token_url"`
	AuthStyle    int           `json:"auth_style"`
	Scopes       []string      `json:"scopes,omitempty"`
	Token        *oauth2.Token `json:"token"`
}

// TokenFile is where the OAuth token of the server spec declares is kept:
// in the user's data folder (AuthDir), never the project's, one file per
// server URL. A project's server (cwd is the project) has its own even
// for a URL the user's server has too: a token the user got for their
// server never goes with a project's declaration, whose tools the user's
// permission rules do not name.
func TokenFile(spec Spec, cwd string) (string, error) {
	dir, err := config.UserDataDir()
	if err != nil {
		return "", fmt.Errorf("%w: where to keep the token: %v", errOAuth, err)
	}
	key := spec.URL
	if spec.Project {
		// The project by its real path, as its data directory is named: a
		// project opened through a link keeps one token.
		if real, err := filepath.EvalSymlinks(cwd); err == nil {
			cwd = real
		}
		key = "project\x00" + cwd + "\x00" + spec.URL
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(dir, AuthDir, hex.EncodeToString(sum[:16])+".json"), nil
}

// save writes rec to the server's token file: mode 0600 in a directory of
// mode 0700, whole or not at all.
func (c *oauthClient) save(rec *tokenRecord) error {
	path, err := TokenFile(c.s.spec, c.s.set.opts.Cwd)
	if err != nil {
		return err
	}
	rec.Server = c.s.spec.URL
	if c.s.spec.Project {
		rec.Project = c.s.set.opts.Cwd
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".token-*") // mode 0600
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		return err
	}
	c.mu.Lock()
	c.stamp = stampOf(path)
	c.mu.Unlock()
	return nil
}

// fileStamp tells a token file's versions apart.
type fileStamp struct {
	mod  time.Time
	size int64
}

func stampOf(path string) fileStamp {
	fi, err := os.Stat(path)
	if err != nil {
		return fileStamp{}
	}
	return fileStamp{fi.ModTime(), fi.Size()}
}

// changedLocked reports whether the token file changed since it was last
// read or written here.
func (c *oauthClient) changedLocked() bool {
	path, err := TokenFile(c.s.spec, c.s.set.opts.Cwd)
	return err == nil && stampOf(path) != c.stamp
}

// loadLocked reads the server's token file, if it changed since it was
// last read: a token it holds becomes the current one.
func (c *oauthClient) loadLocked() {
	path, err := TokenFile(c.s.spec, c.s.set.opts.Cwd)
	if err != nil {
		return
	}
	st := stampOf(path)
	if st == c.stamp {
		return
	}
	c.stamp = st
	if st == (fileStamp{}) {
		return // no file
	}
	rec, err := readTokenFile(path)
	if err == nil && (rec.Server != c.s.spec.URL || c.s.spec.Project && rec.Project != c.s.set.opts.Cwd) {
		err = errors.New("it is another server's")
	}
	if err != nil {
		c.s.log.Warn("mcp: the stored token is not used", "file", path, "error", err.Error())
		return
	}
	cfg := &oauth2.Config{ClientID: rec.ClientID, ClientSecret: rec.ClientSecret, Scopes: rec.Scopes,
		Endpoint: oauth2.Endpoint{TokenURL: rec.TokenURL, AuthStyle: oauth2.AuthStyle(rec.AuthStyle)}}
	if o := c.s.spec.OAuth; o != nil && cfg.ClientSecret == "" && o.ClientID == rec.ClientID {
		cfg.ClientSecret = o.ClientSecret
	}
	refreshCtx := context.WithValue(context.Background(), oauth2.HTTPClient, c.httpc)
	c.ts = &savingSource{c: c, cfg: cfg, rec: rec, base: cfg.TokenSource(refreshCtx, rec.Token)}
	c.granted = rec.Scopes
}

// readTokenFile reads and checks a token file.
func readTokenFile(path string) (*tokenRecord, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxTokenFile {
		return nil, fmt.Errorf("larger than %d bytes", maxTokenFile)
	}
	return parseTokenRecord(data)
}

// parseTokenRecord decodes a token file and checks what it must hold.
func parseTokenRecord(data []byte) (*tokenRecord, error) {
	var rec tokenRecord
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&rec); err != nil {
		return nil, fmt.Errorf("not a token file: %w", err)
	}
	if rec.Token == nil || rec.Token.AccessToken == "" || rec.ClientID == "" {
		return nil, errors.New("it holds no token")
	}
	if _, err := secureURL("its token endpoint", rec.TokenURL); err != nil {
		return nil, err
	}
	return &rec, nil
}

// secureURL parses raw, the URL of what (an endpoint a token or a code
// goes to), and refuses it unless it is https, or http on loopback.
func secureURL(what, raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || !(u.Scheme == "https" || u.Scheme == "http" && isLoopback(u.Hostname())) {
		return nil, fmt.Errorf("%s %q is not https (or http on a loopback address)", what, safetext.Line(chat.Shorten(raw, 200)))
	}
	return u, nil
}

// challengeOf is a WWW-Authenticate's Bearer error and scopes.
func challengeOf(cs []oauthex.Challenge) (code string, scopes []string) {
	for _, c := range cs {
		if c.Scheme != "bearer" {
			continue
		}
		if code == "" {
			code = c.Params["error"]
		}
		if scopes == nil && c.Params["scope"] != "" {
			scopes = strings.Fields(c.Params["scope"])
		}
	}
	return code, scopes
}

// grantedScopes are the scopes a token response says it granted, else
// asked.
func grantedScopes(t *oauth2.Token, asked []string) []string {
	if s, ok := t.Extra("scope").(string); ok && strings.TrimSpace(s) != "" {
		return strings.Fields(s)
	}
	return slices.Clone(asked)
}

func union(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

func subset(a, b []string) bool {
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}

func isURL(s string) bool {
	s = strings.ToLower(s)
	return strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "http://")
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// discard closes an answer the SDK will not read.
func discard(resp *http.Response) {
	if resp != nil && resp.Body != nil {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
	}
}
