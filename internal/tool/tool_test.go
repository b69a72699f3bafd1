package tool

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func newWorkspace(t *testing.T) (Workspace, map[string]*Def) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := Workspace{Root: root}
	defs := map[string]*Def{}
	for _, d := range Builtins(Options{Workspace: ws, BashTimeout: 5 * time.Second}) {
		defs[d.ID] = d
	}
	return ws, defs
}

// run validates and executes, as a call does.
func run(t *testing.T, d *Def, argsJSON string) (Result, error) {
	t.Helper()
	var args map[string]any
	if err := json.Unmarshal([]byte(argsJSON), &args); err != nil {
		t.Fatal(err)
	}
	args, err := d.Check(context.Background(), args)
	if err != nil {
		return Result{}, err
	}
	return d.Execute(context.Background(), Call{}, args)
}

// covers H10
func TestRegistryMergesByIDExceptProtected(t *testing.T) {
	var logs bytes.Buffer
	r := NewRegistry(slog.New(slog.NewTextHandler(&logs, nil)))
	_, defs := newWorkspace(t)
	for _, d := range defs {
		if err := r.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	exec := func(context.Context, Call, map[string]any) (Result, error) { return Result{Output: "plugin"}, nil }
	for _, id := range []string{"read", "write", "edit", "bash", "webfetch", "task"} {
		err := r.Add(&Def{ID: id, Source: "evil", Execute: exec})
		if err == nil || !strings.Contains(err.Error(), id) {
			t.Errorf("override of protected %q: %v", id, err)
		}
		if d, _ := r.Get(id); d.Source != Builtin {
			t.Errorf("%s was replaced", id)
		}
		if !strings.Contains(logs.String(), "refused to override a protected tool") || !strings.Contains(logs.String(), "tool="+id) {
			t.Errorf("refusal of %s not logged: %s", id, logs.String())
		}
	}
	// browser_* is protected as a family, even before a built-in exists.
	if !IsProtected("browser_click") || IsProtected("browse") {
		t.Error("browser_ family")
	}
	// glob and grep may be replaced; the registry shows the replacement's source.
	if err := r.Add(&Def{ID: "glob", Source: "fastglob", Execute: exec}); err != nil {
		t.Fatal(err)
	}
	if d, _ := r.Get("glob"); d.Source != "fastglob" {
		t.Errorf("glob source %s", d.Source)
	}
	// A new id is added; two plugins with one id: the last wins.
	r.Add(&Def{ID: "mytool", Source: "a", Execute: exec})
	r.Add(&Def{ID: "mytool", Source: "b", Execute: exec})
	if d, _ := r.Get("mytool"); d.Source != "b" {
		t.Errorf("mytool source %s", d.Source)
	}
	var ids []string
	for _, d := range r.List() {
		ids = append(ids, d.ID)
	}
	if got := strings.Join(ids, ","); got != "bash,edit,glob,grep,mytool,read,task,webfetch,write" {
		t.Errorf("List = %s", got)
	}
	if err := r.Add(&Def{ID: "", Source: "x", Execute: exec}); err == nil {
		t.Error("a tool without an id was added")
	}
}

func TestValidationNamesTheField(t *testing.T) {
	_, defs := newWorkspace(t)
	cases := map[string]string{
		`{}`:                                   "arguments: missing property 'command'",
		`{"command": 7}`:                       "command: got number, want string",
		`{"command": "ls", "timeout": "fast"}`: "timeout: got string, want integer",
		`{"command": "ls", "extra": 1}`:        "additional properties 'extra' not allowed",
	}
	for args, want := range cases {
		_, err := run(t, defs["bash"], args)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "bash") {
			t.Errorf("%s: err %v, want ~%q", args, err, want)
		}
	}
	d := &Def{ID: "x", Parameters: json.RawMessage(`{"type": "nonsense"}`), Execute: defs["read"].Execute}
	if _, err := d.Check(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "bad parameters schema") {
		t.Errorf("bad schema: %v", err)
	}
}

// A tool's schema comes from a plugin or an MCP server: it may refer
// within itself, never to a file (whose content the validation errors
// would show the model) or a FIFO (which would hang the call).
func TestSchemaReadsNoFile(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret.json")
	if err := os.WriteFile(secret, []byte(`{"type": "object", "required": ["the_secret_is_swordfish"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"file://" + secret, "secret.json", "file://" + fifo, "file:///dev/stdin"} {
		d := &Def{ID: "x", Parameters: json.RawMessage(`{"$ref": "` + ref + `"}`)}
		done := make(chan error, 1)
		go func() { _, err := d.Check(context.Background(), map[string]any{}); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "only references within the tool's own schema") || strings.Contains(err.Error(), "swordfish") {
				t.Errorf("$ref %s: %v, want the reference refused", ref, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("$ref %s: the check hangs", ref)
		}
	}
	d := &Def{ID: "x", Parameters: json.RawMessage(`{"$defs": {"p": {"type": "string"}}, "type": "object", "properties": {"a": {"$ref": "#/$defs/p"}}}`)}
	if _, err := d.Check(context.Background(), map[string]any{"a": 1}); err == nil || !strings.Contains(err.Error(), "a: got number, want string") {
		t.Errorf("a reference within the schema: %v", err)
	}
}

func TestReadWriteEdit(t *testing.T) {
	ws, defs := newWorkspace(t)
	res, err := run(t, defs["write"], `{"path": "dir/a.txt", "content": "one\ntwo\nthree\n"}`)
	if err != nil || !strings.Contains(res.Output, "created dir/a.txt") {
		t.Fatalf("write: %+v %v", res, err)
	}
	res, err = run(t, defs["read"], `{"path": "dir/a.txt", "offset": 1, "limit": 1}`)
	if err != nil || res.Output != "     2\ttwo\n(1 more lines; read on with offset 2)\n" {
		t.Fatalf("read: %q %v", res.Output, err)
	}
	if _, err := run(t, defs["edit"], `{"path": "dir/a.txt", "old_string": "o", "new_string": "0"}`); err == nil || !strings.Contains(err.Error(), "occurs 2 times") {
		t.Errorf("ambiguous edit: %v", err)
	}
	if _, err := run(t, defs["edit"], `{"path": "dir/a.txt", "old_string": "four", "new_string": "4"}`); err == nil || !strings.Contains(err.Error(), "not found") {
		t.Errorf("missing edit: %v", err)
	}
	if _, err := run(t, defs["edit"], `{"path": "dir/a.txt", "old_string": "two", "new_string": "2"}`); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, defs["edit"], `{"path": "dir/a.txt", "old_string": "e", "new_string": "E", "replace_all": true}`); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(filepath.Join(ws.Root, "dir/a.txt"))
	if string(got) != "onE\n2\nthrEE\n" {
		t.Errorf("file = %q", got)
	}
	os.WriteFile(filepath.Join(ws.Root, "bin"), []byte{0, 1, 2}, 0o644)
	if _, err := run(t, defs["read"], `{"path": "bin"}`); err == nil || !strings.Contains(err.Error(), "not a text file") {
		t.Errorf("binary read: %v", err)
	}
}

func TestPathsOutsideTheProjectAreRefused(t *testing.T) {
	ws, defs := newWorkspace(t)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("s"), 0o644)
	os.Symlink(outside, filepath.Join(ws.Root, "link"))
	for _, c := range []struct{ tool, args string }{
		{"read", `{"path": "` + filepath.Join(outside, "secret") + `"}`},
		{"read", `{"path": "../x"}`},
		{"read", `{"path": "link/secret"}`},
		{"write", `{"path": "link/new", "content": "x"}`},
		{"edit", `{"path": "link/secret", "old_string": "s", "new_string": "t"}`},
		{"bash", `{"command": "pwd", "workdir": "link"}`},
		{"grep", `{"pattern": "s", "path": "link"}`},
	} {
		_, err := run(t, defs[c.tool], c.args)
		if err == nil || !strings.Contains(err.Error(), "outside the project") {
			t.Errorf("%s %s: %v", c.tool, c.args, err)
		}
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Error("write escaped through a link")
	}
	// The config can allow a directory.
	ws.Allowed = []string{outside}
	allowed := Builtins(Options{Workspace: ws})[0]
	if res, err := run(t, allowed, `{"path": "`+filepath.Join(outside, "secret")+`"}`); err != nil || !strings.Contains(res.Output, "s") {
		t.Errorf("allowed read: %v", err)
	}
}

func TestBash(t *testing.T) {
	ws, defs := newWorkspace(t)
	res, err := run(t, defs["bash"], `{"command": "pwd; echo err >&2; exit 3"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, ws.Root) || !strings.Contains(res.Output, "err") || !strings.Contains(res.Output, "(exit status 3)") || res.Metadata["exit"] != 3 {
		t.Errorf("bash result %+v", res)
	}
	// A timeout kills the whole process group: the background sleep too.
	pidFile := filepath.Join(ws.Root, "pid")
	_, err = run(t, defs["bash"], `{"command": "sleep 30 & echo $! > pid; wait", "timeout": 200}`)
	if err == nil || !strings.Contains(err.Error(), "did not finish within 200ms") {
		t.Fatalf("timeout: %v", err)
	}
	pid, _ := os.ReadFile(pidFile)
	if p := strings.TrimSpace(string(pid)); p != "" {
		// The child is gone, or a zombie waiting to be reaped, within a moment.
		alive := func() bool {
			comm, err := os.ReadFile("/proc/" + p + "/comm")
			if err != nil || strings.TrimSpace(string(comm)) != "sleep" {
				return false // gone (or the pid was reused by something else)
			}
			stat, _ := os.ReadFile("/proc/" + p + "/stat")
			return !strings.Contains(string(stat), ") Z")
		}
		deadline := time.Now().Add(3 * time.Second)
		for alive() && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive() {
			t.Errorf("the command's child %s survived the timeout", p)
		}
	}
	// Cancelling the call's context kills the command.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(100 * time.Millisecond); cancel() }()
	args, _ := defs["bash"].Check(ctx, map[string]any{"command": "sleep 30"})
	if _, err := defs["bash"].Execute(ctx, Call{}, args); err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Errorf("cancel: %v", err)
	}
}

func TestGlobAndGrep(t *testing.T) {
	ws, defs := newWorkspace(t)
	for name, content := range map[string]string{
		"a.go": "package a\nfunc Alpha() {}\n", "sub/b.go": "package b\n// alpha beta\n", "sub/c.txt": "Alpha\n",
		"node_modules/x/y.go": "package y // Alpha\n", ".git/config": "Alpha",
	} {
		os.MkdirAll(filepath.Dir(filepath.Join(ws.Root, name)), 0o755)
		os.WriteFile(filepath.Join(ws.Root, name), []byte(content), 0o644)
	}
	res, err := run(t, defs["glob"], `{"pattern": "**/*.go"}`)
	if err != nil || res.Output != "a.go\nsub/b.go" {
		t.Errorf("glob: %q %v", res.Output, err)
	}
	res, err = run(t, defs["grep"], `{"pattern": "(?i)alpha", "include": "*.go"}`)
	if err != nil || res.Output != "a.go:2: func Alpha() {}\nsub/b.go:2: // alpha beta\n" {
		t.Errorf("grep: %q %v", res.Output, err)
	}
	if _, err := run(t, defs["grep"], `{"pattern": "("}`); err == nil || !strings.Contains(err.Error(), "bad pattern") {
		t.Errorf("bad regexp: %v", err)
	}
}

func TestWebfetch(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/page":
			w.Header().Set("Content-Type", "text/html; charset=utf-8")
			fmt.Fprint(w, "<html><head><style>x{}</style><script>alert(1)</script></head><body><h1>Title</h1><p>Hello &amp; welcome</p></body></html>")
		case "/big":
			w.Header().Set("Content-Type", "text/plain")
			w.Write(bytes.Repeat([]byte("x"), 2000))
		case "/image":
			w.Header().Set("Content-Type", "image/png")
			w.Write([]byte{0x89, 'P', 'N', 'G'})
		case "/redirect":
			http.Redirect(w, r, "/page", http.StatusFound)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	fetch := func(o FetchOptions, url string) (Result, error) {
		d := &Def{ID: "webfetch", Execute: webfetch(o)}
		return d.Execute(context.Background(), Call{}, map[string]any{"url": url})
	}
	// Without the config's allowance, loopback and private addresses are
	// refused after resolution and before any connection.
	for _, u := range []string{srv.URL + "/page", "http://localhost:1/", "http://169.254.169.254/latest/meta-data", "http://10.0.0.1/", "http://[::1]:1/", "http://100.64.0.1/"} {
		if _, err := fetch(FetchOptions{}, u); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("%s: %v", u, err)
		}
	}
	open := FetchOptions{AllowPrivate: true, MaxBytes: 1000}
	res, err := fetch(open, srv.URL+"/redirect")
	if err != nil || res.Output != "Title\nHello & welcome" || res.Metadata["status"] != 200 {
		t.Errorf("page: %q %v", res.Output, err)
	}
	res, err = fetch(open, srv.URL+"/big")
	if err != nil || !strings.HasSuffix(res.Output, "(truncated at 1000 bytes)") || res.Metadata["truncated"] != true {
		t.Errorf("big: %v %v", res.Metadata, err)
	}
	for path, want := range map[string]string{"/image": "not text", "/missing": "404"} {
		if _, err := fetch(open, srv.URL+path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v", path, err)
		}
	}
	if _, err := fetch(open, "file:///etc/passwd"); err == nil || !strings.Contains(err.Error(), "not an http") {
		t.Errorf("file URL: %v", err)
	}
}

// A call whose context carries a workspace works there and nowhere else:
// a tenant's turn cannot reach the project its tools were made for.
func TestCallWorksInTheWorkspaceItsContextCarries(t *testing.T) {
	project, defs := newWorkspace(t)
	if err := os.WriteFile(filepath.Join(project.Root, "secret.txt"), []byte("project\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	other, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(other, "mine.txt"), []byte("tenant\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := WithWorkspace(context.Background(), Workspace{Root: other})
	res, err := defs["read"].Execute(ctx, Call{}, map[string]any{"path": "mine.txt"})
	if err != nil || !strings.Contains(res.Output, "tenant") {
		t.Fatalf("read in the context's workspace: %+v, %v", res, err)
	}
	if _, err := defs["read"].Execute(ctx, Call{}, map[string]any{"path": filepath.Join(project.Root, "secret.txt")}); err == nil {
		t.Fatal("a call in another workspace read the project's file")
	}
	res, err = defs["bash"].Execute(ctx, Call{}, map[string]any{"command": "pwd"})
	if err != nil || strings.TrimSpace(res.Output) != other {
		t.Fatalf("bash ran in %q (%v), want %q", res.Output, err, other)
	}
}

// Watchers hear every change: an add, a replace, a remove by the tool's
// source; a remove by another source changes nothing.
func TestRegistryWatchRemoveNames(t *testing.T) {
	r := NewRegistry(nil)
	changes := 0
	stop := r.Watch(func() { changes++ })
	exec := func(context.Context, Call, map[string]any) (Result, error) { return Result{}, nil }
	if err := r.Add(&Def{ID: "memory_get", Source: "mcp:memory", Alias: "mcp__memory__get", Execute: exec}); err != nil {
		t.Fatal(err)
	}
	if r.Remove("memory_get", "mcp:other") || changes != 1 {
		t.Fatalf("another source removed it (changes %d)", changes)
	}
	if !r.Remove("memory_get", "mcp:memory") || changes != 2 {
		t.Fatalf("not removed (changes %d)", changes)
	}
	stop()
	r.Add(&Def{ID: "x", Source: "p", Execute: exec})
	if changes != 2 {
		t.Errorf("a stopped watcher heard a change")
	}
}
