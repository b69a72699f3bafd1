package mcpserver

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/pipeline"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/plugin"
)

// Bounds of the project's files as resources.
const (
	// resourcePage is how many files one resources/list answer lists.
	resourcePage = 500
	// maxListed is how many files resources/list lists in all, over its
	// pages: the first in path order. The others are read through the
	// template all the same.
	maxListed = 10000
	// maxDirEntries is how many entries of one directory a listing or a
	// completion reads: a directory of a million files costs no more.
	maxDirEntries = 10000
	// maxVisited bounds the entries one listing looks at, files and
	// directories, however few of them it lists.
	maxVisited = 100000
	// maxListDepth is how deep below the project a listing goes.
	maxListDepth = 64
	// maxResourceBytes is the largest file served (as the read tool serves
	// images and audio up to 5 MiB).
	maxResourceBytes = 5 << 20
	// maxReadPages bounds the read calls of one resource whose text comes
	// from the plugins' tool.execute.after hooks (2000 lines a call).
	maxReadPages = 25
)

// fileTemplate is the resource template the SDK is given, so that every
// file:// URI reaches readResource; resources/templates/list shows each
// caller its own project's (projectTemplate).
const fileTemplate = "file:///{+path}"

// readTool is the built-in tool a resources/read goes through.
const readTool = "read"

// features is what New adds to the tools: the project's files as
// resources and their subscriptions (resources.go), its commands as
// prompts (prompts.go), completion of both (complete.go).
type features struct {
	s       *Server
	watch   watcher
	prompts map[string]*prompt // by name; fixed once New returns
}

// addResources registers the template through which every project file
// is read, and the middleware that answers resources/list,
// resources/templates/list and prompts/list for the caller.
func (f *features) addResources() {
	f.s.mcp.AddResourceTemplate(&mcp.ResourceTemplate{Name: "project file", URITemplate: fileTemplate,
		Description: "A file of the project, read as the read tool reads it."}, f.readResource)
	f.s.mcp.AddReceivingMiddleware(f.lists)
}

// lists answers the list methods whose answer depends on the caller: its
// project's files and template, and the prompts it may use.
func (f *features) lists(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch r := req.(type) {
		case *mcp.ListResourcesRequest:
			return f.listResources(ctx, r)
		case *mcp.ListResourceTemplatesRequest:
			return f.listTemplates(ctx)
		case *mcp.ListPromptsRequest:
			res, err := next(ctx, method, req)
			if l, ok := res.(*mcp.ListPromptsResult); ok && err == nil {
				l.Prompts = f.usablePrompts(l.Prompts)
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// root is the project of the caller's scope: its directory (App.Cwd, a
// tenant's workspace), with ctx as callContext makes it.
func (f *features) root(ctx context.Context) (context.Context, string, error) {
	ctx, root, err := f.s.callContext(ctx)
	if err != nil {
		return nil, "", fmt.Errorf("the caller's project: %w", err)
	}
	return ctx, filepath.Clean(root), nil
}

// fileURI is the URI of the file at abs, an absolute path.
func fileURI(abs string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// projectTemplate is the template of the project files beneath root: its
// path variable is a path relative to the project, as resources are named.
func projectTemplate(root string) string {
	return "file://" + strings.TrimSuffix((&url.URL{Path: filepath.ToSlash(root)}).EscapedPath(), "/") + "/{+path}"
}

// projectPath is the file beneath root that uri names: its path relative
// to root. uri must be a file URI of this host ("file:///abs/path",
// "file://localhost/abs/path") without query or fragment, naming a path
// beneath root once "." and ".." are resolved; symbolic links are the
// caller's to check (locate).
func projectPath(uri, root string) (string, error) {
	u, err := url.Parse(uri)
	switch {
	case err != nil:
		return "", fmt.Errorf("%q is not a URI: %v", uri, unwrapURL(err))
	case u.Scheme != "file":
		return "", fmt.Errorf("%q is not a file:// URI: this server's resources are the project's files (%s)", uri, fileURI(root))
	case u.Opaque != "" || u.User != nil || (u.Host != "" && u.Host != "localhost"):
		return "", fmt.Errorf("%q does not name a file of this machine (file:///absolute/path)", uri)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return "", fmt.Errorf("%q: a file URI has no query or fragment", uri)
	case !strings.HasPrefix(u.Path, "/") || strings.ContainsRune(u.Path, 0):
		return "", fmt.Errorf("%q does not name an absolute path", uri)
	}
	abs := filepath.Clean(filepath.FromSlash(u.Path))
	if rel, ok := beneath(abs, root); ok {
		return rel, nil
	}
	return "", fmt.Errorf("%s is outside the project (%s): the resources are the project's files", abs, root)
}

func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// beneath returns abs relative to root (as spelled, or with its symbolic
// links resolved), when abs lies beneath it.
func beneath(abs, root string) (string, bool) {
	roots := []string{root}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
		roots = append(roots, real)
	}
	for _, r := range roots {
		if rel, err := filepath.Rel(r, abs); err == nil && filepath.IsLocal(rel) {
			return rel, true
		}
	}
	return "", false
}

// locate checks that rel, a path relative to root, stays beneath root
// once the symbolic links of the part of it that exists are followed, and
// returns the message to refuse it with otherwise. Reads then open it
// through an os.Root, which refuses any step out, even one made after
// this check.
func locate(root, rel string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("the project %s: %w", root, err)
	}
	p := filepath.Join(realRoot, rel)
	rest := ""
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			if _, ok := beneath(filepath.Join(real, rest), realRoot); !ok {
				return fmt.Errorf("%s leads outside the project (a symbolic link): the resources are the project's files", filepath.ToSlash(rel))
			}
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s: %w", filepath.ToSlash(rel), unwrapPath(err))
		}
		if p == realRoot {
			return nil
		}
		rest = filepath.Join(filepath.Base(p), rest)
		p = filepath.Dir(p)
	}
}

func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// invalid is a JSON-RPC "invalid params" error: what is wrong with the
// request (a URI of no project file, a prompt that does not exist).
func invalid(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
}

// refusal is the JSON-RPC error of a request refused or failed for a
// reason other than its shape (the guard, a hook, the file system): its
// message is the reason, as a tool call's would be, redacted.
func (f *features) refusal(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: f.s.app.Redact.String(err.Error())}
}

// --- resources/list

// listCursor is where a resources/list page starts: after the file After,
// N files having been listed before it.
type listCursor struct {
	After string `json:"a"`
	N     int    `json:"n"`
}

func (c listCursor) encode() string {
	data, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(data)
}

// decodeCursor reads a cursor a client sent back: it must be one
// listResources made (a file path relative to the project, a count within
// the bounds).
func decodeCursor(s string) (listCursor, error) {
	var c listCursor
	data, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(data) > 8<<10 {
		return c, errors.New("the cursor is not one resources/list gave")
	}
	if err := json.Unmarshal(data, &c); err != nil || c.N < 0 || c.N > maxListed || !filepath.IsLocal(filepath.FromSlash(c.After)) {
		return listCursor{}, errors.New("the cursor is not one resources/list gave")
	}
	return c, nil
}

// listResources lists the caller's project files, resourcePage at a time,
// in path order, at most maxListed in all.
func (f *features) listResources(ctx context.Context, req *mcp.ListResourcesRequest) (*mcp.ListResourcesResult, error) {
	_, root, err := f.root(ctx)
	if err != nil {
		return nil, f.refusal(err)
	}
	var cur listCursor
	if req.Params != nil && req.Params.Cursor != "" {
		if cur, err = decodeCursor(req.Params.Cursor); err != nil {
			return nil, invalid(err)
		}
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, f.refusal(fmt.Errorf("the project %s: %w", root, unwrapPath(err)))
	}
	defer r.Close()
	res := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
	// Project files are the caller's: no one else may be served a cached copy.
	res.CacheScope = "private"
	room := min(resourcePage, maxListed-cur.N)
	last := ""
	more := false
	err = walkFiles(ctx, r, filepath.FromSlash(cur.After), func(rel string, fi fs.FileInfo) bool {
		if len(res.Resources) == room {
			more = true
			return false
		}
		name := filepath.ToSlash(rel)
		res.Resources = append(res.Resources, &mcp.Resource{Name: name, URI: fileURI(filepath.Join(root, rel)),
			MIMEType: sniffedType(r, rel), Size: fi.Size()})
		last = name
		return true
	})
	if err != nil {
		return nil, f.refusal(err)
	}
	if more && cur.N+len(res.Resources) < maxListed {
		res.NextCursor = listCursor{After: last, N: cur.N + len(res.Resources)}.encode()
	}
	return res, nil
}

// listTemplates is the caller's project's template.
func (f *features) listTemplates(ctx context.Context) (*mcp.ListResourceTemplatesResult, error) {
	_, root, err := f.root(ctx)
	if err != nil {
		return nil, f.refusal(err)
	}
	res := &mcp.ListResourceTemplatesResult{ResourceTemplates: []*mcp.ResourceTemplate{{
		Name: "project file", URITemplate: projectTemplate(root),
		Description: "Any file of the project, by its path relative to the project (complete it with completion/complete), read as the read tool reads it."}}}
	res.CacheScope = "private"
	return res, nil
}

// skipDir are the directories listings and completions never enter, as the
// glob and grep tools do not.
func skipDir(name string) bool {
	return name == ".git" || name == "node_modules" || name == ".podcode"
}

// comparePaths orders relative paths component by component ("a/b"
// before "a.txt"), the order of a walk that sorts each directory.
func comparePaths(a, b string) int {
	return strings.Compare(strings.ReplaceAll(a, string(filepath.Separator), "\x00"), strings.ReplaceAll(b, string(filepath.Separator), "\x00"))
}

// walkFiles calls fn for the regular files beneath r, in path order
// (comparePaths), starting after the file after ("" for the first), until
// fn returns false. Each directory is opened through r (no step leads out
// of it) and read at most maxDirEntries entries; .git, node_modules and
// .podcode are not entered, nor directories maxListDepth levels down, and
// symbolic links are not listed (they are read, through the template, as
// far as they stay in the project). At most maxVisited entries are looked
// at.
func walkFiles(ctx context.Context, r *os.Root, after string, fn func(rel string, fi fs.FileInfo) bool) error {
	visited := 0
	var walk func(dir string, depth int) (bool, error)
	walk = func(dir string, depth int) (bool, error) {
		entries, err := readDir(r, dir)
		if err != nil {
			return true, nil // a directory that cannot be read is left out, not the listing
		}
		for _, e := range entries {
			if visited++; visited > maxVisited {
				return false, nil
			}
			if err := ctx.Err(); err != nil {
				return false, err
			}
			rel := filepath.Join(dir, e.Name())
			switch {
			case e.IsDir():
				if skipDir(e.Name()) || depth >= maxListDepth {
					continue
				}
				// Entered only when files after the cursor may lie in it.
				if after != "" && comparePaths(rel, after) < 0 && !strings.HasPrefix(after, rel+string(filepath.Separator)) {
					continue
				}
				if goOn, err := walk(rel, depth+1); !goOn || err != nil {
					return false, err
				}
			case e.Type().IsRegular():
				if after != "" && comparePaths(rel, after) <= 0 {
					continue
				}
				fi, err := e.Info()
				if err != nil {
					continue // gone meanwhile
				}
				if !fn(rel, fi) {
					return false, nil
				}
			}
		}
		return true, nil
	}
	_, err := walk(".", 0)
	return err
}

// readDir reads at most maxDirEntries entries of dir beneath r, sorted by
// name.
func readDir(r *os.Root, dir string) ([]fs.DirEntry, error) {
	// O_DIRECTORY: an entry swapped for a named pipe is refused, not
	// waited on.
	d, err := r.OpenFile(dir, os.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	entries, err := d.ReadDir(maxDirEntries)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

// --- MIME types

// textLike reports MIME types of text.
func textLike(t string) bool {
	return strings.HasPrefix(t, "text/") || strings.HasSuffix(t, "/json") || strings.HasSuffix(t, "+json") ||
		strings.HasSuffix(t, "/xml") || strings.HasSuffix(t, "+xml") || strings.HasSuffix(t, "/javascript")
}

// mediaType is the MIME type of a file named name whose content starts
// with head: by its extension when that names a text type, or when the
// content is not text; else "text/plain" for text; else what the content
// looks like.
func mediaType(name string, head []byte) string {
	t, _, _ := strings.Cut(mime.TypeByExtension(filepath.Ext(name)), ";")
	switch {
	case textLike(t):
		return t
	case isText(head):
		return "text/plain" // a .ts of TypeScript is no MPEG stream
	case t != "":
		return t
	}
	t, _, _ = strings.Cut(http.DetectContentType(head), ";")
	return t
}

// sniffedType is mediaType for the file rel beneath r, looking at its
// first 512 bytes when its extension does not name a text type.
func sniffedType(r *os.Root, rel string) string {
	if t, _, _ := strings.Cut(mime.TypeByExtension(filepath.Ext(rel)), ";"); textLike(t) {
		return t
	}
	f, err := openRegular(r, rel)
	if err != nil {
		return "application/octet-stream"
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	return mediaType(rel, head[:n])
}

// isText reports content served as text: UTF-8 without NUL bytes (the
// read tool's test, over the whole of it). A head cut inside a character
// still counts.
func isText(b []byte) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return false
	}
	for i := 0; i < utf8.UTFMax && !utf8.Valid(b) && len(b) > 0; i++ {
		b = b[:len(b)-1]
	}
	return utf8.Valid(b)
}

// --- resources/read

// openRegular opens the regular file rel beneath r for reading, without
// blocking on a named pipe swapped in.
func openRegular(r *os.Root, rel string) (*os.File, error) {
	file, err := r.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.ToSlash(rel), unwrapPath(err))
	}
	st, err := file.Stat()
	if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", filepath.ToSlash(rel))
	}
	if err != nil {
		file.Close()
		return nil, err
	}
	return file, nil
}

// readRaw reads the file at path (relative to root, or absolute) whole,
// beneath the project: through an os.Root on root, so no step leads out.
func readRaw(root, path string) ([]byte, error) {
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(root, abs)
	}
	rel, ok := beneath(filepath.Clean(abs), root)
	if !ok {
		return nil, fmt.Errorf("%s is outside the project (%s): the resources are the project's files", path, root)
	}
	if err := locate(root, rel); err != nil {
		return nil, err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, fmt.Errorf("the project %s: %w", root, unwrapPath(err))
	}
	defer r.Close()
	file, err := openRegular(r, rel)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	data, err := io.ReadAll(io.LimitReader(file, maxResourceBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.ToSlash(rel), err)
	}
	if len(data) > maxResourceBytes {
		return nil, fmt.Errorf("%s is larger than %d MiB: too large to serve as a resource", filepath.ToSlash(rel), maxResourceBytes>>20)
	}
	return data, nil
}

// readResource is the handler of every resources/read: the URI must name
// a file beneath the caller's project, and is read as a read tool call
// reads it (readFile).
func (f *features) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer context.AfterFunc(f.s.stopped, cancel)()
	defer cancel()
	ctx, root, err := f.root(ctx)
	if err != nil {
		return nil, f.refusal(err)
	}
	uri := req.Params.URI
	rel, err := projectPath(uri, root)
	if err == nil {
		err = locate(root, rel)
	}
	if err != nil {
		return nil, invalid(err)
	}
	c, err := f.readFile(ctx, root, rel)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return nil, f.refusal(err)
	}
	c.URI = uri
	res := &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{c}}
	res.CacheScope = "private"
	return res, nil
}

// readFile reads the project file rel (beneath root) as a read tool call
// does, with ctx's scope: see the package doc, "Resources".
func (f *features) readFile(ctx context.Context, root, rel string) (*mcp.ResourceContents, error) {
	res, rep, err := f.callRead(ctx, root, map[string]any{"path": rel})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var failed *pipeline.ToolError
	if err != nil && !errors.As(err, &failed) {
		return nil, err // refused before the tool ran: the guard, tool.execute.before
	}
	// The file the tool was given, tool.execute.before's rewrite included.
	path := rel
	if ran, ok := rep.Args.(map[string]any); ok {
		if p, _ := ran["path"].(string); p != "" {
			path = p
		}
	}
	data, rerr := readRaw(root, path)
	hooked := afterHooks(rep)
	switch {
	case err != nil:
		// The tool ran and failed. Only a file it does not read (it reads
		// text, images and audio) is served, from the disk, and only when
		// no tool.execute.after hook could have wanted to change it.
		if hooked || rerr != nil || isText(data) {
			if rerr != nil {
				return nil, rerr
			}
			return nil, err
		}
		return f.contents(path, data), nil
	case rerr != nil:
		return nil, rerr
	case !hooked:
		return f.contents(path, data), nil
	case !isText(data):
		for _, a := range res.Attachments {
			if a.Data != nil {
				return &mcp.ResourceContents{MIMEType: a.MIMEType, Blob: []byte(f.s.app.Redact.String(string(a.Data)))}, nil
			}
		}
		return nil, fmt.Errorf("%s is not text, and a tool.execute.after hook changed what reading it returned: what the hooks could not see is not served", filepath.ToSlash(rel))
	}
	// Text, with tool.execute.after hooks (a redactor, say): what they
	// returned is the text, page after page, line numbers taken off.
	text, err := f.hookedText(ctx, root, rel, res)
	if err != nil {
		return nil, err
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		text = strings.TrimSuffix(text, "\n")
	}
	return &mcp.ResourceContents{MIMEType: mediaType(path, data), Text: f.s.app.Redact.String(text)}, nil
}

// callRead runs one read tool call (Server.callTool). A PostToolUse objection
// refuses the read: a resource has nowhere to say it but in the file's
// text.
func (f *features) callRead(ctx context.Context, root string, args map[string]any) (tool.Result, pipeline.ToolReport, error) {
	res, rep, err := f.s.callTool(ctx, root, readTool, args)
	if err != nil {
		return res, rep, err
	}
	if post := rep.Post; post != nil && post.Result.Decision == plugin.DecisionDeny {
		return res, rep, fmt.Errorf("a %s hook objects to reading %v: %s", post.Event, args["path"], post.Result.Message)
	}
	return res, rep, nil
}

// afterHooks reports whether a plugin's tool.execute.after hook ran on
// the call: the hooks that may change (redact) what a read returns.
func afterHooks(rep pipeline.ToolReport) bool {
	return slices.ContainsFunc(rep.Steps, func(s pipeline.Step) bool { return s.Hook == jsplugin.HookToolAfter })
}

// contents is a file's content as served when no hook had a say on it:
// text, or a blob (base64 on the wire), with the environment's and the
// config's secrets redacted either way.
func (f *features) contents(path string, data []byte) *mcp.ResourceContents {
	c := &mcp.ResourceContents{MIMEType: mediaType(path, data)}
	if isText(data) && len(data) > 0 {
		c.Text = f.s.app.Redact.String(string(data))
	} else {
		// An empty file too: the SDK leaves an empty text out, and a
		// content with neither text nor blob is invalid.
		c.Blob = []byte(f.s.app.Redact.String(string(data)))
	}
	return c
}

var (
	// numbered is a line as the read tool shows it: its number, a tab.
	numbered = regexp.MustCompile(`^ *(\d+)\t(.*)$`)
	// readOn is the read tool's last line when more lines follow.
	readOn = regexp.MustCompile(`^\((?:\d+ more lines|more lines follow); read on with offset (\d+)\)$`)
	// pastEnd is its answer to an offset past the end.
	pastEnd = regexp.MustCompile(`^\(the file has \d+ lines; offset \d+ is past its end\)$`)
)

// hookedText is the text of the file at path (relative to root) made from what the read
// tool calls returned after the plugins' tool.execute.after hooks: first
// (the first call's result), then a call per 2000 lines more, each through
// the whole path of a call, at most maxReadPages. Line numbers are taken
// off; a line the hooks added is kept; a line the tool cut (over 2000
// bytes) stays cut, as the hooks saw it.
func (f *features) hookedText(ctx context.Context, root, path string, first tool.Result) (string, error) {
	var b strings.Builder
	res := first
	for page := 1; ; page++ {
		next := -1
		for line := range strings.Lines(res.Output) {
			line = strings.TrimSuffix(line, "\n")
			if m := readOn.FindStringSubmatch(line); m != nil {
				next, _ = strconv.Atoi(m[1])
				continue
			}
			if pastEnd.MatchString(line) {
				continue
			}
			if m := numbered.FindStringSubmatch(line); m != nil {
				line = m[2]
			}
			b.WriteString(line)
			b.WriteByte('\n')
		}
		if next < 0 {
			return b.String(), nil
		}
		if page == maxReadPages {
			return "", fmt.Errorf("%s has more lines than %d read calls show: too long to serve through the plugins' tool.execute.after hooks", path, maxReadPages)
		}
		var err error
		if res, _, err = f.callRead(ctx, root, map[string]any{"path": path, "offset": next}); err != nil {
			return "", err
		}
	}
}

// --- subscriptions

// Bounds of subscriptions.
const (
	maxWatchesPerSession = 100
	maxWatches           = 2000
)

// pollEvery is how often the subscribed files are looked at.
var pollEvery = time.Second

// watcher follows the files that sessions subscribed to, by polling: one
// goroutine for the whole server, which runs while something is watched,
// and looks at each watched file once per pollEvery (a stat beneath the
// project: size, modification time, mode, inode, whether it exists). A
// change is sent as notifications/resources/updated to every session
// subscribed to the URI (the SDK keeps which).
//
// Lifecycle: subscribe adds a watch; unsubscribe removes the session's;
// the end of a session (its connection closes) removes all of its; Close
// of the Server stops the goroutine and refuses new ones.
type watcher struct {
	mu    sync.Mutex
	byURI map[string]*watched // by the URI as the client wrote it: the SDK's key
	// sessions holds the number of watches of each session that
	// subscribed, while a goroutine waits for its end.
	sessions map[*mcp.ServerSession]int
	total    int
	running  bool
}

type watched struct {
	root, rel string
	sessions  map[*mcp.ServerSession]bool
	last      fileState
}

// fileState is what polling compares.
type fileState struct {
	exists bool
	size   int64
	mod    int64 // ns since the epoch
	mode   fs.FileMode
	ino    uint64
}

func stateOf(fi fs.FileInfo, err error) fileState {
	if err != nil {
		return fileState{}
	}
	st := fileState{exists: true, size: fi.Size(), mod: fi.ModTime().UnixNano(), mode: fi.Mode()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.ino = sys.Ino
	}
	return st
}

// statBeneath is the state of the file rel beneath root, through an
// os.Root: a link out of the project is a file that does not exist.
func statBeneath(r *os.Root, rel string) fileState {
	if r == nil {
		return fileState{}
	}
	return stateOf(r.Stat(rel))
}

// subscribe is the SubscribeHandler: the URI must name a file of the
// caller's project, as for resources/read; one that does not exist yet
// may be subscribed to (its creation is an update).
func (f *features) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	_, root, err := f.root(ctx)
	if err != nil {
		return f.refusal(err)
	}
	rel, err := projectPath(req.Params.URI, root)
	if err == nil {
		err = locate(root, rel)
	}
	if err != nil {
		return invalid(err)
	}
	return f.watch.add(f, req.Session, req.Params.URI, root, rel)
}

// unsubscribe is the UnsubscribeHandler; a URI not subscribed to is no
// error.
func (f *features) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	f.watch.remove(req.Session, req.Params.URI)
	return nil
}

func (w *watcher) add(f *features, ss *mcp.ServerSession, uri, root, rel string) error {
	if f.s.stopped.Err() != nil {
		return f.refusal(errors.New("the server is stopping"))
	}
	var r *os.Root
	if opened, err := os.OpenRoot(root); err == nil {
		r = opened
		defer r.Close()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.byURI == nil {
		w.byURI, w.sessions = map[string]*watched{}, map[*mcp.ServerSession]int{}
	}
	wd := w.byURI[uri]
	if wd != nil && wd.sessions[ss] {
		return nil
	}
	if n := w.sessions[ss]; n >= maxWatchesPerSession {
		return invalid(fmt.Errorf("a session may subscribe to at most %d files; unsubscribe from some first", maxWatchesPerSession))
	}
	if w.total >= maxWatches {
		return f.refusal(fmt.Errorf("the server follows %d subscriptions already, its most", maxWatches))
	}
	if wd == nil {
		wd = &watched{root: root, rel: rel, sessions: map[*mcp.ServerSession]bool{}, last: statBeneath(r, rel)}
		w.byURI[uri] = wd
	}
	wd.sessions[ss] = true
	w.total++
	if _, waiting := w.sessions[ss]; !waiting && ss != nil {
		go func() {
			ss.Wait()
			w.endSession(ss)
		}()
	}
	w.sessions[ss]++
	if !w.running {
		w.running = true
		go w.poll(f)
	}
	return nil
}

func (w *watcher) remove(ss *mcp.ServerSession, uri string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.drop(ss, uri)
}

// drop removes ss's watch of uri; w.mu is held.
func (w *watcher) drop(ss *mcp.ServerSession, uri string) {
	wd := w.byURI[uri]
	if wd == nil || !wd.sessions[ss] {
		return
	}
	delete(wd.sessions, ss)
	w.total--
	w.sessions[ss]--
	if len(wd.sessions) == 0 {
		delete(w.byURI, uri)
	}
}

// endSession removes the watches of a session that ended.
func (w *watcher) endSession(ss *mcp.ServerSession) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for uri := range w.byURI {
		w.drop(ss, uri)
	}
	delete(w.sessions, ss)
}

// poll looks at the watched files every pollEvery until none is watched
// or the server stops.
func (w *watcher) poll(f *features) {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for {
		select {
		case <-f.s.stopped.Done():
			w.mu.Lock()
			w.running, w.byURI, w.total = false, nil, 0
			clear(w.sessions)
			w.mu.Unlock()
			return
		case <-t.C:
		}
		for _, uri := range w.changed() {
			f.s.log.Debug("mcp: a subscribed file changed", "uri", uri)
			f.s.mcp.ResourceUpdated(f.s.stopped, &mcp.ResourceUpdatedNotificationParams{URI: uri})
		}
		w.mu.Lock()
		if len(w.byURI) == 0 {
			w.running = false
			w.mu.Unlock()
			return
		}
		w.mu.Unlock()
	}
}

// changed looks at every watched file and returns the URIs of those that
// changed since the last look. The files are looked at without w.mu held.
func (w *watcher) changed() []string {
	type look struct {
		uri, root, rel string
		now            fileState
	}
	w.mu.Lock()
	looks := make([]look, 0, len(w.byURI))
	for uri, wd := range w.byURI {
		looks = append(looks, look{uri: uri, root: wd.root, rel: wd.rel})
	}
	w.mu.Unlock()
	slices.SortFunc(looks, func(a, b look) int { return strings.Compare(a.root, b.root) })
	var r *os.Root
	for i := range looks {
		if i == 0 || looks[i].root != looks[i-1].root {
			if r != nil {
				r.Close()
			}
			r, _ = os.OpenRoot(looks[i].root)
		}
		looks[i].now = statBeneath(r, looks[i].rel)
	}
	if r != nil {
		r.Close()
	}
	var out []string
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, l := range looks {
		wd := w.byURI[l.uri]
		if wd == nil || wd.last == l.now {
			continue
		}
		wd.last = l.now
		out = append(out, l.uri)
	}
	return out
}
