package mcpclient

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/logtest"
	"github.com/podcode/podcode/internal/mcpclient/oauthtest"
	"github.com/podcode/podcode/internal/tool"
)

func sameScopes(a, b string) bool {
	x, y := strings.Fields(a), strings.Fields(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

// oauthEnv gives the test a data folder of its own and no $BROWSER.
func oauthEnv(t *testing.T) string {
	t.Helper()
	data := t.TempDir()
	t.Setenv("XDG_DATA_HOME", data)
	t.Setenv("BROWSER", "")
	return data
}

var authURLInLog = regexp.MustCompile(`url=(\S+)`)

// browse plays the user's browser until the test ends: each
// authorization URL Podcode logs for the user to open is followed (the
// authorization server redirects to Podcode's loopback callback).
func browse(t *testing.T, logs *logtest.Logs) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		followed := 0
		for ctx.Err() == nil {
			lines := []string{}
			for _, l := range logs.Lines() {
				if strings.Contains(l, "open this URL in a browser") {
					lines = append(lines, l)
				}
			}
			for ; followed < len(lines); followed++ {
				m := authURLInLog.FindStringSubmatch(lines[followed])
				if m == nil {
					continue
				}
				if res, err := http.Get(m[1]); err == nil {
					res.Body.Close()
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
}

// startOAuth starts a Set of one remote server at u, with the user's
// oauth entry o (nil for none), in project dir cwd; follow: the test
// plays the browser (browse).
func startOAuth(t *testing.T, u string, o *config.MCPOAuth, cwd string, follow bool) (*Set, *tool.Registry, *logtest.Logs) {
	t.Helper()
	logs := &logtest.Logs{}
	if follow {
		browse(t, logs)
	}
	reg := tool.NewRegistry(logs.Logger())
	set := Start(context.Background(), []Spec{{Name: "prot", Transport: HTTP, URL: u, OAuth: o, Timeout: 20 * time.Second}},
		Options{Cwd: cwd, Log: logs.Logger(), Tools: reg, StartTimeout: 20 * time.Second})
	t.Cleanup(set.Close)
	return set, reg, logs
}

func ready(t *testing.T, set *Set) {
	t.Helper()
	eventually(t, "the server ready", func() bool { return set.Servers()[0].Status().State == StateReady })
}

// A server that answers 401 is signed in to with the authorization code
// and PKCE, the URL opened with $BROWSER; the token is kept in the user's
// data folder (0600, never in the project), and another run of Podcode
// uses it without asking the user again.
func TestOAuthSignsInAndKeepsTheToken(t *testing.T) {
	data := oauthEnv(t)
	// The test binary is the browser: it follows the URL it is given.
	oauthtest.UseTestBrowser(t)
	as := oauthtest.NewAuthServer(t)
	ps := oauthtest.NewServer(t, as)
	project := t.TempDir()
	set, reg, logs := startOAuth(t, ps.URL, nil, project, false)
	ready(t, set)
	if res, err := call(t, reg, "prot_read", map[string]any{}); err != nil || res.Output != "read done" {
		t.Fatalf("the call: %v %+v", err, res)
	}
	logs.Require(t, "opened the authorization page with $BROWSER")
	q := as.Authorizes()[0]
	if q.Get("resource") != ps.URL || q.Get("scope") != "read" || !strings.HasPrefix(q.Get("redirect_uri"), "http://127.0.0.1:") || q.Get("client_id") != "registered-1" {
		t.Errorf("the authorization request: %v", q)
	}

	path, err := TokenFile(Spec{URL: ps.URL}, project)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(path, filepath.Join(data, "podcode", AuthDir)+string(filepath.Separator)) {
		t.Errorf("token file %s is not in the user's data folder", path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
	}
	if di, _ := os.Stat(filepath.Dir(path)); di.Mode().Perm() != 0o700 {
		t.Errorf("token folder mode %v, want 0700", di.Mode().Perm())
	}
	if entries, _ := os.ReadDir(project); len(entries) != 0 {
		t.Errorf("the project holds %v", entries)
	}
	set.Close()

	// Another run: the stored token, no login.
	set2, reg2, logs2 := startOAuth(t, ps.URL, nil, project, false)
	ready(t, set2)
	if _, err := call(t, reg2, "prot_read", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	if n := len(as.Authorizes()); n != 1 {
		t.Errorf("%d authorization requests, want the first run's only", n)
	}
	if logs2.Count("signing in") != 0 {
		t.Errorf("the second run signed in: %q", logs2.Lines())
	}
}

// TestHelperBrowser is the browser TestOAuthSignsInAndKeepsTheToken's
// $BROWSER runs (oauthtest.UseTestBrowser).
func TestHelperBrowser(t *testing.T) { oauthtest.ActAsBrowser(t) }

// An expired token is refreshed (and the new one stored); a refresh the
// token endpoint refuses drops the token, and the next request signs in
// again. A token the server refuses is refreshed once, without the
// browser; when the server refuses the refreshed one too, it signs in.
func TestOAuthRefreshesAndSignsInAgainWhenRefused(t *testing.T) {
	oauthEnv(t)
	as := oauthtest.NewAuthServer(t)
	as.ExpiresIn = 1 // within oauth2's early expiry: refreshed at its first use
	ps := oauthtest.NewServer(t, as)
	project := t.TempDir()
	set, reg, logs := startOAuth(t, ps.URL, nil, project, true)
	ready(t, set)
	refreshes := func() int {
		n := 0
		for _, f := range as.TokenRequests() {
			if f.Get("grant_type") == "refresh_token" {
				n++
			}
		}
		return n
	}
	callOK := func(what string, wantLogins int) {
		t.Helper()
		if res, err := call(t, reg, "prot_read", map[string]any{}); err != nil || res.Output != "read done" {
			t.Fatalf("%s: %v %+v", what, err, res)
		}
		if n := len(as.Authorizes()); n != wantLogins {
			t.Errorf("%s: %d authorization requests, want %d", what, n, wantLogins)
		}
	}

	callOK("the expired token", 1)
	if refreshes() == 0 {
		t.Fatal("the expired token was not refreshed")
	}
	path, _ := TokenFile(Spec{URL: ps.URL}, project)
	rec, err := readTokenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := as.ScopesOf(rec.Token.AccessToken); !ok {
		t.Errorf("the stored token %q is not the refreshed one", rec.Token.AccessToken)
	}

	as.Set(func(as *oauthtest.AuthServer) { as.RefuseRefresh, as.ExpiresIn = true, 3600 })
	callOK("after the refused refresh", 2)
	logs.Require(t, "the token endpoint refused to refresh it")

	as.Set(func(as *oauthtest.AuthServer) { as.RefuseRefresh = false })
	before := refreshes()
	as.RevokeAccessTokens()
	callOK("a token the server refuses, refreshed", 2)
	if refreshes() != before+1 {
		t.Errorf("%d refreshes, want one more", refreshes()-before)
	}
	as.RevokeAccessTokens()
	callOK("the refreshed token refused too", 3)
}

// A token refused for a scope it lacks (403 insufficient_scope) signs in
// again asking for the scopes granted and the new ones; a server that
// refuses a token for scopes it was granted is not signed in to again.
func TestOAuthStepUp(t *testing.T) {
	oauthEnv(t)
	as := oauthtest.NewAuthServer(t)
	ps := oauthtest.NewServer(t, as)
	set, reg, _ := startOAuth(t, ps.URL, nil, t.TempDir(), true)
	ready(t, set)
	if res, err := call(t, reg, "prot_write", map[string]any{}); err != nil || res.Output != "write done" {
		t.Fatalf("the call: %v %+v", err, res)
	}
	if a := as.Authorizes(); len(a) != 2 || !sameScopes(a[1].Get("scope"), "read write") {
		t.Errorf("authorization requests %v, want a second for read and write", a)
	}

	ps.Set(func(ps *oauthtest.Server) { ps.AlwaysForbid = true })
	_, err := call(t, reg, "prot_read", map[string]any{})
	if err == nil || !strings.Contains(err.Error(), "refuses the token for scopes it was granted") {
		t.Fatalf("the call: %v", err)
	}
	if n := len(as.Authorizes()); n != 2 {
		t.Errorf("%d authorization requests: the refusal of granted scopes signed in again", n)
	}

	// A 403 that is not about scopes is the answer: the call is not sent
	// again (a tool that files an issue would file two).
	ps.Set(func(ps *oauthtest.Server) { ps.AlwaysForbid, ps.PlainForbid = false, true })
	if _, err := call(t, reg, "prot_read", map[string]any{}); err == nil || !strings.Contains(err.Error(), "403 Forbidden") {
		t.Fatalf("a call answered a plain 403: %v", err)
	}
	ps.Set(func(ps *oauthtest.Server) {
		if ps.Forbidden != 1 {
			t.Errorf("the call answered 403 was sent %d times", ps.Forbidden)
		}
	})
}

// The redirect URI answers only the redirect with the login's state: a
// request with another state (a page the user visits can make the
// browser send one) is answered 400 and the login goes on.
func TestOAuthCallbackRefusesAnotherState(t *testing.T) {
	oauthEnv(t)
	as := oauthtest.NewAuthServer(t)
	ps := oauthtest.NewServer(t, as)
	// Start's wait ends before anyone answers: the login goes on.
	logs := &logtest.Logs{}
	reg := tool.NewRegistry(logs.Logger())
	set := Start(context.Background(), []Spec{{Name: "prot", Transport: HTTP, URL: ps.URL, Timeout: time.Second}},
		Options{Cwd: t.TempDir(), Log: logs.Logger(), Tools: reg, StartTimeout: time.Second})
	t.Cleanup(set.Close)
	line := logs.Await(t, "open this URL in a browser")
	authURL, _ := url.Parse(authURLInLog.FindStringSubmatch(line)[1])
	redirect := authURL.Query().Get("redirect_uri")
	for _, forged := range []struct {
		url  string
		want int
	}{
		{redirect + "?code=stolen&state=guess", http.StatusBadRequest},
		{redirect + "?code=stolen", http.StatusBadRequest},
		{strings.TrimSuffix(redirect, callbackPath) + "/other?state=" + authURL.Query().Get("state"), http.StatusNotFound},
	} {
		res, err := http.Get(forged.url)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != forged.want {
			t.Errorf("GET %s: %d, want %d", forged.url, res.StatusCode, forged.want)
		}
	}
	if set.Servers()[0].Status().State == StateReady {
		t.Fatal("ready before the real redirect")
	}
	res, err := http.Get(authURL.String())
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !strings.Contains(string(body), "Podcode is authorized to use prot") {
		t.Errorf("the page after the redirect: %s", body)
	}
	ready(t, set)
	if _, err := call(t, reg, "prot_read", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	logs.Require(t, "another state was refused")
}

// A login nobody answers ends after its bound; the server then says it
// needs authorization and how, and starting it again does not start
// another login (no tab at every restart) until `podcode mcp auth`
// (Server.Login) does.
func TestOAuthUnansweredLoginStopsAsking(t *testing.T) {
	oauthEnv(t)
	old := loginTimeout
	loginTimeout = time.Second
	t.Cleanup(func() { loginTimeout = old })
	as := oauthtest.NewAuthServer(t)
	ps := oauthtest.NewServer(t, as)
	logs := &logtest.Logs{}
	set := Start(context.Background(), []Spec{{Name: "prot", Transport: HTTP, URL: ps.URL, Timeout: 2 * time.Second}},
		Options{Cwd: t.TempDir(), Log: logs.Logger(), Tools: tool.NewRegistry(logs.Logger()), StartTimeout: 2 * time.Second})
	t.Cleanup(set.Close)
	s := set.Servers()[0]
	eventually(t, "the server says it needs authorization", func() bool {
		return strings.Contains(s.Status().Error, `needs authorization: the last request to authorize Podcode was not answered within 1s; run "podcode mcp auth prot"`)
	})
	time.Sleep(time.Second) // a few restarts
	if n := logs.Count("signing in"); n != 1 {
		t.Errorf("%d logins started, want 1", n)
	}

	shown := make(chan string, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- s.Login(ctx, func(u string) { shown <- u }) }()
	if res, err := http.Get(<-shown); err == nil {
		res.Body.Close()
	}
	if err := <-errc; err != nil {
		t.Fatalf("Login: %v", err)
	}
	eventually(t, "the server ready", func() bool { return s.Status().State == StateReady })
}

// What the server and its metadata say is bounded and checked: metadata
// past the SDK's 1 MiB is refused, an authorization server on plain http
// off loopback is refused at once (not waited on), and a client the user
// registered with one authorization server (its secret) is refused for
// another: no authorization or token request reaches it.
func TestOAuthRefusesWhatTheServerMustNotDecide(t *testing.T) {
	cases := []struct {
		name  string
		setup func(as *oauthtest.AuthServer, ps *oauthtest.Server) *config.MCPOAuth
		want  string
	}{
		{"huge metadata", func(as *oauthtest.AuthServer, _ *oauthtest.Server) *config.MCPOAuth {
			as.HugeMetadata = true
			return nil
		}, "authorization server metadata"},
		{"http authorization server off loopback", func(_ *oauthtest.AuthServer, ps *oauthtest.Server) *config.MCPOAuth {
			ps.PRM = map[string]any{"resource": ps.URL, "authorization_servers": []string{"http://192.0.2.1:9"}}
			return nil
		}, "signing in"},
		{"another issuer for the user's client", func(as *oauthtest.AuthServer, _ *oauthtest.Server) *config.MCPOAuth {
			as.Secrets["mine"] = "s3cret"
			return &config.MCPOAuth{ClientID: "mine", ClientSecret: "s3cret", Issuer: "https://login.example.com"}
		}, "does not match pre-registered credentials issuer"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			oauthEnv(t)
			as := oauthtest.NewAuthServer(t)
			ps := oauthtest.NewServer(t, as)
			o := c.setup(as, ps)
			began := time.Now()
			set, _, logs := startOAuth(t, ps.URL, o, t.TempDir(), false)
			logs.Await(t, "signing in failed")
			if took := time.Since(began); took > 10*time.Second {
				t.Errorf("took %s", took)
			}
			if !strings.Contains(set.Servers()[0].Status().Error+strings.Join(logs.Lines(), "\n"), c.want) {
				t.Errorf("no %q in the state or the log:\n%s", c.want, strings.Join(logs.Lines(), "\n"))
			}
			if authorizes, tokens := len(as.Authorizes()), len(as.TokenRequests()); authorizes != 0 || tokens != 0 {
				t.Errorf("%d authorization and %d token requests reached the authorization server", authorizes, tokens)
			}
		})
	}
}

// The user's client and secret sign in where the issuer is the one the
// user named; the secret is sent to the token endpoint and never copied
// to the token file.
func TestOAuthPreRegisteredClient(t *testing.T) {
	oauthEnv(t)
	as := oauthtest.NewAuthServer(t)
	as.Secrets["mine"] = "s3cret"
	ps := oauthtest.NewServer(t, as)
	project := t.TempDir()
	set, reg, _ := startOAuth(t, ps.URL, &config.MCPOAuth{ClientID: "mine", ClientSecret: "s3cret", Issuer: as.URL, Scope: "extra"}, project, true)
	ready(t, set)
	if _, err := call(t, reg, "prot_read", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	q, regs := as.Authorizes()[0], as.Registrations()
	if q.Get("client_id") != "mine" || !sameScopes(q.Get("scope"), "extra read") || regs != 0 {
		t.Errorf("authorization request %v after %d registrations; want the user's client, its scope and the server's, none registered", q, regs)
	}
	path, _ := TokenFile(Spec{URL: ps.URL}, project)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("s3cret")) {
		t.Errorf("the token file holds the user's secret:\n%s", data)
	}
}

// OAuth is off with "oauth": false and with an Authorization header: a
// 401 is the server's error, and nobody is asked to sign in.
func TestOAuthOff(t *testing.T) {
	for name, spec := range map[string]Spec{
		"oauth false":          {OAuth: &config.MCPOAuth{Disabled: true}},
		"authorization header": {Headers: map[string]string{"authorization": "Bearer mine"}},
	} {
		t.Run(name, func(t *testing.T) {
			oauthEnv(t)
			as := oauthtest.NewAuthServer(t)
			ps := oauthtest.NewServer(t, as)
			spec.Name, spec.Transport, spec.URL = "prot", HTTP, ps.URL
			logs := &logtest.Logs{}
			set := Start(context.Background(), []Spec{spec}, Options{Cwd: t.TempDir(), Log: logs.Logger(), Tools: tool.NewRegistry(logs.Logger()), StartTimeout: 5 * time.Second})
			t.Cleanup(set.Close)
			eventually(t, "the server down", func() bool { return set.Servers()[0].Status().State == StateRetrying })
			if st := set.Servers()[0].Status(); !strings.Contains(st.Error, "Unauthorized") {
				t.Errorf("state %+v", st)
			}
			if logs.Count("signing in") != 0 {
				t.Error("signed in")
			}
		})
	}
}

// A project's server has a token file of its own, even for the URL of a
// server of the user's: what the user signed in to goes with the user's
// declaration only.
func TestTokenFilePerDeclaration(t *testing.T) {
	data := oauthEnv(t)
	u := "https://mcp.example.com/mcp"
	user, err1 := TokenFile(Spec{URL: u}, "/p")
	proj, err2 := TokenFile(Spec{URL: u, Project: true}, "/p")
	other, err3 := TokenFile(Spec{URL: u, Project: true}, "/q")
	if err := errors.Join(err1, err2, err3); err != nil {
		t.Fatal(err)
	}
	if user == proj || proj == other {
		t.Errorf("files %s %s %s, want three", user, proj, other)
	}
	for _, p := range []string{user, proj, other} {
		if filepath.Dir(p) != filepath.Join(data, "podcode", AuthDir) {
			t.Errorf("%s is not in the user's data folder", p)
		}
	}
	if again, _ := TokenFile(Spec{URL: u, Name: "other-name"}, "/elsewhere"); again != user {
		t.Errorf("the user's server's file depends on more than its URL: %s, %s", again, user)
	}
	// A project opened through a link is the same project.
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	viaReal, _ := TokenFile(Spec{URL: u, Project: true}, real)
	viaLink, _ := TokenFile(Spec{URL: u, Project: true}, link)
	if viaReal != viaLink {
		t.Errorf("a project through a link has another token file: %s, %s", viaLink, viaReal)
	}
}

// A token file that is not one, or whose token endpoint is plain http
// off loopback, is not used.
func TestParseTokenRecord(t *testing.T) {
	good := `{"server":"https://x/mcp","client_id":"c","token_url":"https://as/token","token":{"access_token":"a"}}`
	if _, err := parseTokenRecord([]byte(good)); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{``, `[]`, `{"client_id":"c","token_url":"https://as/token"}`,
		`{"client_id":"c","token_url":"http://as.example.com/token","token":{"access_token":"a"}}`,
		`{"client_id":"c","token_url":"javascript:alert(1)","token":{"access_token":"a"}}`} {
		if _, err := parseTokenRecord([]byte(bad)); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
}

func FuzzParseTokenRecord(f *testing.F) {
	f.Add([]byte(`{"server":"https://x/mcp","client_id":"c","token_url":"https://as/token","token":{"access_token":"a","expiry":"2030-01-01T00:00:00Z"}}`))
	f.Add([]byte(`{"token":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		rec, err := parseTokenRecord(data)
		if err == nil && (rec.Token == nil || rec.Token.AccessToken == "") {
			t.Fatalf("accepted a record without a token: %s", data)
		}
	})
}

// A server's WWW-Authenticate is untrusted: any header gives an error
// code and scopes, or none, without panicking.
func FuzzChallenge(f *testing.F) {
	f.Add(`Bearer error="insufficient_scope", scope="a b", resource_metadata="https://x/.well-known/oauth-protected-resource"`)
	f.Add(`Basic realm="x", Bearer scope=a`)
	f.Add(`Bearer scope="unterminated`)
	f.Fuzz(func(t *testing.T, header string) {
		cs, err := oauthex.ParseWWWAuthenticate([]string{header})
		if err != nil {
			return
		}
		code, scopes := challengeOf(cs)
		_ = code
		for _, s := range scopes {
			if strings.TrimSpace(s) != s || s == "" {
				t.Fatalf("scope %q", s)
			}
		}
	})
}
