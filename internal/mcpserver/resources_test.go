package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/plugin"
)

// dial serves s on an in-memory transport and returns a client session
// made with opts, on protocol 2025-11-25 (the SDK's client speaks
// 2026-07-28 by default, where a subscription is a subscriptions/listen
// stream: TestSubscriptionsListen).
func dial(t testing.TB, s *Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	return dialProtocol(t, s, opts, "2025-11-25")
}

// dialProtocol is dial on protocol ("" for the SDK's default), the
// session closed and Serve's end checked when the test ends.
func dialProtocol(t testing.TB, s *Server, opts *mcp.ClientOptions, protocol string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	ct, st := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- s.Serve(ctx, st) }()
	var so *mcp.ClientSessionOptions
	if protocol != "" {
		so = &mcp.ClientSessionOptions{ProtocolVersion: protocol}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "1"}, opts).Connect(ctx, ct, so)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return cs
}

// pngBytes is a small real PNG image.
func pngBytes(t testing.TB) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// longText has 4500 lines, one of them 3000 bytes long, and no newline
// at its end: more than one read call shows, and a line read cuts.
func longText() string {
	var b strings.Builder
	for i := range 4500 {
		if i == 2500 {
			b.WriteString(strings.Repeat("x", 3000) + "\n")
			continue
		}
		fmt.Fprintf(&b, "line %d of the long file\n", i+1)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

const binaryData = "\x00\x01\x02binary\xff\xfe\x00 with a token-0123456789abcdef inside"

// filesProject boots a project of files, with no plugin (no
// tool.execute.after hook): the files are served as they are.
func filesProject(t testing.TB, hooks func(*plugin.Dispatcher) error, config map[string]any) *app.App {
	t.Helper()
	a, _ := apptest.Boot(t, apptest.Project{
		Files: map[string]string{
			"notes.txt":           "the key is token-0123456789abcdef, keep it\n",
			"src/main.go":         "package main\n\nfunc main() {}\n",
			"long.txt":            longText(),
			"empty.txt":           "",
			"data.bin":            binaryData,
			"image.png":           string(pngBytes(t)),
			".env":                "PASSWORD=hunter2\n",
			".git/config":         "[core]\n",
			"node_modules/x/i.js": "module.exports = 1\n",
			"deep/er/still/f.md":  "# deep\n",
			"with space/a b.txt":  "spaced\n",
		},
		Env:    map[string]string{"MCP_TEST_SERVICE_TOKEN": "token-0123456789abcdef"},
		Hooks:  hooks,
		Config: config,
	})
	return a
}

func readResource(t testing.TB, cs *mcp.ClientSession, uri string) (*mcp.ResourceContents, error) {
	t.Helper()
	res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		return nil, err
	}
	if len(res.Contents) != 1 {
		t.Fatalf("%s: %d contents", uri, len(res.Contents))
	}
	return res.Contents[0], nil
}

func listAll(t testing.TB, cs *mcp.ClientSession) []*mcp.Resource {
	t.Helper()
	var all []*mcp.Resource
	for r, err := range cs.Resources(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, r)
	}
	return all
}

// The project's files are listed (not .git nor node_modules) with their
// names, URIs, types and sizes, and read whole: text as it is, binary as a
// blob, the environment's secrets redacted.
func TestResourcesListAndRead(t *testing.T) {
	a := filesProject(t, nil, nil)
	cs := dial(t, New(a), nil)

	byName := map[string]*mcp.Resource{}
	var names []string
	for _, r := range listAll(t, cs) {
		byName[r.Name] = r
		names = append(names, r.Name)
	}
	want := []string{".env", "data.bin", "deep/er/still/f.md", "empty.txt", "image.png", "long.txt", "notes.txt", "podcode.json", "src/main.go", "with space/a b.txt"}
	if strings.Join(names, ",") != strings.Join(want, ",") {
		t.Errorf("resources/list: %q, want %q", names, want)
	}
	notes := byName["notes.txt"]
	if notes == nil || notes.URI != fileURI(filepath.Join(a.Cwd, "notes.txt")) || notes.MIMEType != "text/plain" || notes.Size != 43 {
		t.Errorf("notes.txt is listed as %+v", notes)
	}
	if r := byName["image.png"]; r == nil || r.MIMEType != "image/png" {
		t.Errorf("image.png is listed as %+v", r)
	}
	if r := byName["data.bin"]; r == nil || r.MIMEType != "application/octet-stream" {
		t.Errorf("data.bin is listed as %+v", r)
	}
	if r := byName["with space/a b.txt"]; r == nil || !strings.HasSuffix(r.URI, "/with%20space/a%20b.txt") {
		t.Errorf("a name with spaces is listed as %+v", r)
	}

	c, err := readResource(t, cs, notes.URI)
	if err != nil || c.Text != "the key is [redacted], keep it\n" || c.MIMEType != "text/plain" || c.URI != notes.URI {
		t.Errorf("notes.txt: %+v, %v", c, err)
	}
	// Longer than a read call shows, with a line it cuts: the whole file.
	if c, err := readResource(t, cs, byName["long.txt"].URI); err != nil || c.Text != longText() {
		t.Errorf("long.txt: %d bytes, %v", len(c.Text), err)
	}
	c, err = readResource(t, cs, byName["data.bin"].URI)
	if want := strings.ReplaceAll(binaryData, "token-0123456789abcdef", "[redacted]"); err != nil || string(c.Blob) != want || c.Text != "" {
		t.Errorf("data.bin: %+v, %v", c, err)
	}
	if c, err := readResource(t, cs, byName["image.png"].URI); err != nil || !bytes.Equal(c.Blob, pngBytes(t)) || c.MIMEType != "image/png" {
		t.Errorf("image.png: %+v, %v", c, err)
	}
	if c, err := readResource(t, cs, byName["empty.txt"].URI); err != nil || c.Text != "" || c.Blob == nil {
		t.Errorf("empty.txt: %+v, %v", c, err)
	}
	// Through the template: a file not listed, named as the template says.
	tmpls, err := cs.ListResourceTemplates(context.Background(), nil)
	if err != nil || len(tmpls.ResourceTemplates) != 1 {
		t.Fatalf("templates: %v %v", tmpls, err)
	}
	tmpl := tmpls.ResourceTemplates[0].URITemplate
	if want := fileURI(a.Cwd) + "/{+path}"; tmpl != want {
		t.Errorf("template %q, want %q", tmpl, want)
	}
	uri := strings.Replace(tmpl, "{+path}", ".git/config", 1)
	if c, err := readResource(t, cs, uri); err != nil || c.Text != "[core]\n" {
		t.Errorf("%s: %+v, %v", uri, c, err)
	}
	// A file that does not exist.
	_, err = readResource(t, cs, strings.Replace(tmpl, "{+path}", "nothing.txt", 1))
	if !isRPC(err, jsonrpc.CodeInvalidParams, "Resource not found") {
		t.Errorf("a missing file: %v", err)
	}
}

// isRPC reports err as a JSON-RPC error of code whose message holds text.
func isRPC(err error, code int64, text string) bool {
	var e *jsonrpc.Error
	return errors.As(err, &e) && e.Code == code && strings.Contains(e.Message, text)
}

// Files outside the project are refused, however the URI names them.
func TestResourcesOutsideTheProject(t *testing.T) {
	a := filesProject(t, nil, nil)
	outside := filepath.Join(t.TempDir(), "secret.txt")
	if err := os.WriteFile(outside, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(a.Cwd, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(a.Cwd, "linkdir")); err != nil {
		t.Fatal(err)
	}
	cs := dial(t, New(a), &mcp.ClientOptions{})
	root := fileURI(a.Cwd)
	for uri, why := range map[string]string{
		fileURI(outside):             "outside the project",
		root + "/../x/secret.txt":    "outside the project",
		root + "/link.txt":           "leads outside the project",
		root + "/linkdir/secret.txt": "leads outside the project",
		"file:///etc/passwd":         "outside the project",
		root + "/notes.txt?x=1":      "no query",
	} {
		if _, err := readResource(t, cs, uri); !isRPC(err, jsonrpc.CodeInvalidParams, why) {
			t.Errorf("%s: %v, want %q", uri, err, why)
		}
		if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); !isRPC(err, jsonrpc.CodeInvalidParams, why) {
			t.Errorf("subscribe %s: %v, want %q", uri, err, why)
		}
	}
	// Another scheme, or another host, is no resource of this server.
	for _, uri := range []string{"test://static-text", "file://otherhost" + a.Cwd + "/notes.txt"} {
		if _, err := readResource(t, cs, uri); !isRPC(err, jsonrpc.CodeInvalidParams, "Resource not found") {
			t.Errorf("%s: %v", uri, err)
		}
	}
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "file://otherhost" + a.Cwd + "/notes.txt"}); !isRPC(err, jsonrpc.CodeInvalidParams, "does not name a file of this machine") {
		t.Errorf("subscribe to another host's file: %v", err)
	}
	if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: "test://watched"}); !isRPC(err, jsonrpc.CodeInvalidParams, "not a file:// URI") {
		t.Errorf("subscribe test://watched: %v", err)
	}
}

// A guard that denies reading a file denies the resource too, and sees
// the read as a tool call of channel mcp; a permission rule that denies
// read denies every resource.
func TestResourcesGoThroughTheGuard(t *testing.T) {
	seen := &payloads{}
	a := filesProject(t, func(d *plugin.Dispatcher) error {
		return d.Register(plugin.HookPreToolUse, func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
			seen.add(p)
			var in map[string]any
			json.Unmarshal([]byte(p.ToolInput), &in)
			if path, _ := in["path"].(string); p.ToolName == "read" && strings.HasSuffix(path, ".env") {
				return &plugin.HookResult{Decision: plugin.DecisionDeny, Message: "no reading .env files"}, nil
			}
			return nil, nil
		}, plugin.WithSource("test-guard"))
	}, nil)
	cs := dial(t, New(a), nil)
	root := fileURI(a.Cwd)
	if c, err := readResource(t, cs, root+"/.env"); !isRPC(err, jsonrpc.CodeInternalError, "no reading .env files") {
		t.Errorf(".env: %+v, %v", c, err)
	}
	if _, err := readResource(t, cs, root+"/notes.txt"); err != nil {
		t.Errorf("notes.txt: %v", err)
	}
	got := seen.all()
	if len(got) != 2 || got[0].ToolName != "read" || got[0].Channel != Channel || got[0].SessionID != SessionID || got[0].ToolInput != `{"path":".env"}` {
		t.Errorf("PreToolUse saw %+v", got)
	}

	denied := filesProject(t, nil, map[string]any{"permission": map[string]any{"read": "deny"}})
	cs = dial(t, New(denied), nil)
	if _, err := readResource(t, cs, fileURI(denied.Cwd)+"/notes.txt"); !isRPC(err, jsonrpc.CodeInternalError, "denied") {
		t.Errorf("read denied by a rule: %v", err)
	}
}

// With a plugin's tool.execute.after hook (a redactor), a resource's text
// is what the hook returned of the read calls, line numbers taken off.
func TestResourcesThroughARedactor(t *testing.T) {
	a, _ := bootProject(t)
	long := strings.Replace(longText(), "line 3000 of", "line 3000 SECRET-77 of", 1)
	files := map[string]string{"long.txt": long, "short.txt": "no newline at the end", "data.bin": binaryData, "image.png": string(pngBytes(t))}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(a.Cwd, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cs := dial(t, New(a), nil)
	root := fileURI(a.Cwd)
	if c, err := readResource(t, cs, root+"/notes.txt"); err != nil || c.Text != "the key is [REDACTED], keep it\n" {
		t.Errorf("notes.txt: %+v, %v", c, err)
	}
	if c, err := readResource(t, cs, root+"/short.txt"); err != nil || c.Text != "no newline at the end" {
		t.Errorf("short.txt: %+v, %v", c, err)
	}
	// Three read calls: the redacted text, the line read cuts cut as the
	// hooks saw it.
	want := strings.Replace(strings.Replace(long, "SECRET-77", "[REDACTED]", 1), strings.Repeat("x", 3000), strings.Repeat("x", 2000)+"…", 1)
	if c, err := readResource(t, cs, root+"/long.txt"); err != nil || c.Text != want {
		t.Errorf("long.txt: %d bytes (want %d), %v", len(c.Text), len(want), err)
	}
	// What the read tool does not read, the hooks cannot see: refused.
	if _, err := readResource(t, cs, root+"/data.bin"); !isRPC(err, jsonrpc.CodeInternalError, "not a text file") {
		t.Errorf("data.bin: %v", err)
	}
	// An image: the read tool's attachment, which the redactor left alone.
	if c, err := readResource(t, cs, root+"/image.png"); err != nil || !bytes.Equal(c.Blob, pngBytes(t)) || c.MIMEType != "image/png" {
		t.Errorf("image.png: %+v, %v", c, err)
	}
}

// Many files are listed page by page, each once, in path order.
func TestResourcesPages(t *testing.T) {
	files := map[string]string{}
	for i := range 1100 {
		files[fmt.Sprintf("d%d/f%04d.txt", i%3, i)] = "x"
	}
	a, _ := apptest.Boot(t, apptest.Project{Files: files})
	cs := dial(t, New(a), nil)
	var pages []int
	seen := map[string]bool{}
	last := ""
	cursor := ""
	for {
		res, err := cs.ListResources(context.Background(), &mcp.ListResourcesParams{Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, len(res.Resources))
		for _, r := range res.Resources {
			if seen[r.Name] || comparePaths(r.Name, last) <= 0 {
				t.Fatalf("%s listed again or out of order (after %s)", r.Name, last)
			}
			seen[r.Name], last = true, r.Name
		}
		if cursor = res.NextCursor; cursor == "" {
			break
		}
	}
	if fmt.Sprint(pages) != "[500 500 101]" || len(seen) != 1101 {
		t.Errorf("pages of %v, %d files", pages, len(seen))
	}
	_, err := cs.ListResources(context.Background(), &mcp.ListResourcesParams{Cursor: "not-a-cursor"})
	if !isRPC(err, jsonrpc.CodeInvalidParams, "cursor") {
		t.Errorf("a bad cursor: %v", err)
	}
}

// A file subscribed to is looked at until unsubscribed: its changes, its
// creation, are notifications/resources/updated.
func TestResourceSubscriptions(t *testing.T) {
	defer func(d time.Duration) { pollEvery = d }(pollEvery)
	pollEvery = 20 * time.Millisecond
	a := filesProject(t, nil, nil)
	updated := make(chan string, 16)
	cs := dial(t, New(a), &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
		updated <- r.Params.URI
	}})
	notes, later := fileURI(filepath.Join(a.Cwd, "notes.txt")), fileURI(filepath.Join(a.Cwd, "later.txt"))
	for _, uri := range []string{notes, later} {
		if err := cs.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}); err != nil {
			t.Fatalf("subscribe %s: %v", uri, err)
		}
	}
	expect := func(uri string) {
		t.Helper()
		select {
		case got := <-updated:
			if got != uri {
				t.Errorf("updated %s, want %s", got, uri)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no notifications/resources/updated for %s", uri)
		}
	}
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(a.Cwd, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("notes.txt", "changed\n")
	expect(notes)
	write("later.txt", "created\n")
	expect(later)
	if err := os.Remove(filepath.Join(a.Cwd, "later.txt")); err != nil {
		t.Fatal(err)
	}
	expect(later)

	if err := cs.Unsubscribe(context.Background(), &mcp.UnsubscribeParams{URI: notes}); err != nil {
		t.Fatal(err)
	}
	write("notes.txt", "changed again, unheard\n")
	select {
	case got := <-updated:
		t.Errorf("updated %s after unsubscribing", got)
	case <-time.After(20 * pollEvery):
	}
}

// A session's watches end with it, and all of them with the server.
func TestWatchesEnd(t *testing.T) {
	defer func(d time.Duration) { pollEvery = d }(pollEvery)
	pollEvery = 20 * time.Millisecond
	a := filesProject(t, nil, nil)
	s := New(a)
	f := &features{s: s}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.MCP().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	state := func() (total int, running bool) {
		f.watch.mu.Lock()
		defer f.watch.mu.Unlock()
		return f.watch.total, f.watch.running
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal(what)
			}
		}
	}
	for i := range maxWatchesPerSession {
		if err := f.watch.add(f, ss, fmt.Sprintf("%s/f%d", fileURI(a.Cwd), i), a.Cwd, fmt.Sprintf("f%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.watch.add(f, ss, fileURI(a.Cwd)+"/one-more", a.Cwd, "one-more"); !isRPC(err, jsonrpc.CodeInvalidParams, "at most 100 files") {
		t.Errorf("a watch past the bound: %v", err)
	}
	if total, running := state(); total != maxWatchesPerSession || !running {
		t.Errorf("%d watches, running %v", total, running)
	}
	cs.Close()
	waitFor("the session's watches outlived it", func() bool { total, running := state(); return total == 0 && !running })

	// The server's Close stops the poller, and no watch starts after.
	ct, st = mcp.NewInMemoryTransports()
	if ss, err = s.MCP().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(ctx, ct, nil); err != nil {
		t.Fatal(err)
	}
	if err := f.watch.add(f, ss, fileURI(a.Cwd)+"/notes.txt", a.Cwd, "notes.txt"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	waitFor("the poller outlived Close", func() bool { _, running := state(); return !running })
	if err := f.watch.add(f, ss, fileURI(a.Cwd)+"/notes.txt", a.Cwd, "notes.txt"); err == nil {
		t.Error("a watch was added after Close")
	}
}

func TestProjectPath(t *testing.T) {
	root := "/srv/proj"
	for uri, want := range map[string]string{
		"file:///srv/proj/a/b.txt":         "a/b.txt",
		"file://localhost/srv/proj/a":      "a",
		"file:///srv/proj":                 ".",
		"file:///srv/proj/x/../y%20z":      "y z",
		"file:///srv/proj/a%2Fb":           "a/b",
		"file:///srv/projects/a":           "",
		"file:///srv/proj/../proj2/a":      "",
		"file:srv/proj/a":                  "",
		"file:///srv/proj/a#frag":          "",
		"FILE:///srv/proj/a":               "a",
		"file:///srv/proj/%00":             "",
		"http:///srv/proj/a":               "",
		"file://user@localhost/srv/proj/a": "",
		"file:///srv/proj/%zz":             "",
	} {
		got, err := projectPath(uri, root)
		if got != filepath.FromSlash(want) || (err == nil) != (want != "") {
			t.Errorf("projectPath(%q) = %q, %v; want %q", uri, got, err, want)
		}
	}
}

// On protocol 2026-07-28 (the SDK client's default) a subscription is a
// subscriptions/listen stream: the same handlers, the same notifications.
func TestSubscriptionsListen(t *testing.T) {
	defer func(d time.Duration) { pollEvery = d }(pollEvery)
	pollEvery = 20 * time.Millisecond
	a := filesProject(t, nil, nil)
	updated := make(chan string, 16)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ct, st := mcp.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- New(a).Serve(ctx, st) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, &mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, r *mcp.ResourceUpdatedNotificationRequest) {
		updated <- r.Params.URI
	}}).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close(); cancel(); <-served }()
	notes := fileURI(filepath.Join(a.Cwd, "notes.txt"))
	if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: notes}); err != nil {
		t.Fatal(err)
	}
	// The listen stream is set up in the background: write until heard.
	for i := 0; ; i++ {
		if err := os.WriteFile(filepath.Join(a.Cwd, "notes.txt"), []byte(strings.Repeat("x", i)), 0o644); err != nil {
			t.Fatal(err)
		}
		select {
		case got := <-updated:
			if got != notes {
				t.Errorf("updated %s, want %s", got, notes)
			}
			return
		case <-time.After(5 * pollEvery):
		}
		if i == 200 {
			t.Fatal("no notifications/resources/updated")
		}
	}
}

// Whatever URI a client sends, projectPath answers without panicking, and
// a path it accepts lies beneath the project.
func FuzzProjectPath(f *testing.F) {
	root := "/srv/proj"
	for _, seed := range []string{"file:///srv/proj/a", "file:///srv/proj/../x", "file://localhost/srv/proj/%2e%2e/x", "file:///srv/proj/a%00b",
		"file:srv/proj", "test://x", "file:///srv/proj/a?b#c", "file:///srv/proj//a/./b", "%", "file:///srv/proj/\u202e"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		rel, err := projectPath(uri, root)
		if err != nil {
			if rel != "" {
				t.Errorf("%q: %q with an error", uri, rel)
			}
			return
		}
		if !filepath.IsLocal(rel) || !strings.HasPrefix(filepath.Join(root, rel), root) {
			t.Errorf("%q: %q is not beneath %s", uri, rel, root)
		}
	})
}

// Whatever cursor a client sends back, decodeCursor takes only one that
// names a path beneath the project and a count within the bounds.
func FuzzListCursor(f *testing.F) {
	f.Add(listCursor{After: "a/b.txt", N: 500}.encode())
	f.Add(listCursor{After: "../x", N: 1}.encode())
	f.Add(listCursor{After: "/etc/passwd", N: 1}.encode())
	f.Add("not-a-cursor")
	f.Add("")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := decodeCursor(s)
		if err != nil {
			return
		}
		if !filepath.IsLocal(filepath.FromSlash(c.After)) || c.N < 0 || c.N > maxListed {
			t.Errorf("%q: accepted %+v", s, c)
		}
	})
}
