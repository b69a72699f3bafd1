package tool

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// Options configure the built-in tools.
type Options struct {
	Workspace   Workspace
	BashTimeout time.Duration // default and upper bound of bash's timeout; 2 minutes if zero
	Fetch       FetchOptions
}

// Limits that keep one tool result from flooding the model's context.
const (
	maxReadLines   = 2000
	maxLineBytes   = 2000
	maxOutputBytes = 50 * 1024
	maxGlobResults = 1000
	maxGrepMatches = 500
)

// Builtins returns the built-in tools. task is registered so its id is
// taken (and protected); it runs sub-agents, which only the agent can, and
// the agent replaces its execute.
func Builtins(o Options) []*Def {
	if o.BashTimeout <= 0 {
		o.BashTimeout = 2 * time.Minute
	}
	b := builtins{o}
	return []*Def{
		{ID: "read", Source: Builtin, Execute: b.read,
			Description: "Read a text file. Lines are numbered; use offset and limit for long files.",
			Parameters: json.RawMessage(`{"type":"object","properties":{
				"path":{"type":"string","description":"file path, relative to the project or absolute"},
				"offset":{"type":"integer","minimum":0,"description":"first line to read, 0-based"},
				"limit":{"type":"integer","minimum":1,"description":"number of lines to read"}},
				"required":["path"],"additionalProperties":false}`)},
		{ID: "write", Source: Builtin, Execute: b.write,
			Description: "Write a file, creating it and its directories, replacing what was there.",
			Parameters: json.RawMessage(`{"type":"object","properties":{
				"path":{"type":"string"},"content":{"type":"string"}},
				"required":["path","content"],"additionalProperties":false}`)},
		{ID: "edit", Source: Builtin, Execute: b.edit,
			Description: "Replace exact text in a file. old_string must occur exactly once unless replace_all is true.",
			Parameters: json.RawMessage(`{"type":"object","properties":{
				"path":{"type":"string"},"old_string":{"type":"string","minLength":1},"new_string":{"type":"string"},
				"replace_all":{"type":"boolean"}},
				"required":["path","old_string","new_string"],"additionalProperties":false}`)},
		{ID: "bash", Source: Builtin, Execute: b.bash,
			Description: "Run a bash command in the project directory. Output is stdout and stderr combined.",
			Parameters: json.RawMessage(`{"type":"object","properties":{
				"command":{"type":"string","minLength":1},
				"timeout":{"type":"integer","minimum":1,"description":"milliseconds"},
				"workdir":{"type":"string","description":"directory to run in, inside the project"}},
				"required":["command"],"additionalProperties":false}`)},
		{ID: "glob", Source: Builtin, Execute: b.glob,
			Description: "List files matching a glob pattern such as **/*.go, sorted by path.",
			Parameters: json.RawMessage(`{"type":"object","properties":{
				"pattern":{"type":"string","minLength":1},"path":{"type":"string","description":"directory to search, default the project"}},
				"required":["pattern"],"additionalProperties":false}`)},
		{ID: "grep", Source: Builtin, Execute: b.grep,
			Description: "Search file contents with a regular expression (Go syntax); include filters files by glob.",
			Parameters: json.RawMessage(`{"type":"object","properties":{
				"pattern":{"type":"string","minLength":1},"path":{"type":"string"},"include":{"type":"string"}},
				"required":["pattern"],"additionalProperties":false}`)},
		{ID: "webfetch", Source: Builtin, Execute: webfetch(o.Fetch),
			Description: "Fetch an http or https URL and return its content as text (HTML reduced to its text).",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"url":{"type":"string"}},"required":["url"],"additionalProperties":false}`)},
		{ID: "task", Source: Builtin, Execute: unavailable("task"),
			Description: "Run a sub-agent on a task in a child session and return its answer.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"description":{"type":"string"},"prompt":{"type":"string"}},"required":["prompt"],"additionalProperties":false}`)},
	}
}

// ErrNeedsServer is returned by tools that only work inside the server.
var ErrNeedsServer = errors.New("this tool runs only inside the Podcode server")

func unavailable(id string) func(context.Context, Call, map[string]any) (Result, error) {
	return func(context.Context, Call, map[string]any) (Result, error) {
		return Result{}, fmt.Errorf("%s: %w", id, ErrNeedsServer)
	}
}

type builtins struct{ o Options }

// ws is the workspace of a call: the one its context carries, else the
// tools' own.
func (b builtins) ws(ctx context.Context) Workspace { return WorkspaceFrom(ctx, b.o.Workspace) }

func str(args map[string]any, k string) string {
	s, _ := args[k].(string)
	return s
}

func num(args map[string]any, k string, def int) int {
	switch v := args[k].(type) {
	case float64:
		return int(v)
	case int:
		return v
	case int64:
		return int(v)
	case json.Number:
		n, err := v.Int64()
		if err == nil {
			return int(n)
		}
	}
	return def
}

// readFile reads the file args name, inside the workspace.
func (b builtins) readFile(ws Workspace, args map[string]any) (path string, data []byte, err error) {
	if path, err = ws.Resolve(str(args, "path")); err != nil {
		return "", nil, err
	}
	data, err = os.ReadFile(path)
	return path, data, err
}

func (b builtins) read(ctx context.Context, _ Call, args map[string]any) (Result, error) {
	ws := b.ws(ctx)
	path, data, err := b.readFile(ws, args)
	if err != nil {
		return Result{}, err
	}
	if !utf8.Valid(data) || bytes.IndexByte(data, 0) >= 0 {
		return Result{}, fmt.Errorf("%s is not a text file", ws.rel(path))
	}
	offset, limit := num(args, "offset", 0), num(args, "limit", maxReadLines)
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var out strings.Builder
	end := min(offset+min(limit, maxReadLines), len(lines))
	for i := offset; i < end; i++ {
		line := strings.TrimRight(lines[i], "\n")
		if len(line) > maxLineBytes {
			line = line[:maxLineBytes] + "…"
		}
		fmt.Fprintf(&out, "%6d\t%s\n", i+1, line)
	}
	if end < len(lines) {
		fmt.Fprintf(&out, "(%d more lines; read on with offset %d)\n", len(lines)-end, end)
	}
	return Result{Title: ws.rel(path), Output: out.String(),
		Metadata: map[string]any{"lines": len(lines)}}, nil
}

func (b builtins) write(ctx context.Context, _ Call, args map[string]any) (Result, error) {
	ws := b.ws(ctx)
	path, err := ws.Resolve(str(args, "path"))
	if err != nil {
		return Result{}, err
	}
	content := str(args, "content")
	existed := fileExists(path)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return Result{}, err
	}
	if err := writeFileAtomic(path, []byte(content)); err != nil {
		return Result{}, err
	}
	verb := "created"
	if existed {
		verb = "overwrote"
	}
	rel := ws.rel(path)
	return Result{Title: rel, Output: fmt.Sprintf("%s %s (%d bytes)", verb, rel, len(content)),
		Metadata: map[string]any{"bytes": len(content), "created": !existed}}, nil
}

// writeFileAtomic replaces path's content in one rename, keeping its mode,
// so a crash never leaves a half-written file.
func writeFileAtomic(path string, data []byte) error {
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".podcode-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func (b builtins) edit(ctx context.Context, _ Call, args map[string]any) (Result, error) {
	ws := b.ws(ctx)
	path, data, err := b.readFile(ws, args)
	if err != nil {
		return Result{}, err
	}
	old, repl := str(args, "old_string"), str(args, "new_string")
	all, _ := args["replace_all"].(bool)
	rel := ws.rel(path)
	n := strings.Count(string(data), old)
	switch {
	case n == 0:
		return Result{}, fmt.Errorf("old_string was not found in %s", rel)
	case n > 1 && !all:
		return Result{}, fmt.Errorf("old_string occurs %d times in %s; give more context to make it unique, or set replace_all", n, rel)
	}
	limit := 1
	if all {
		limit = -1
	}
	if err := writeFileAtomic(path, []byte(strings.Replace(string(data), old, repl, limit))); err != nil {
		return Result{}, err
	}
	if !all {
		n = 1
	}
	return Result{Title: rel, Output: fmt.Sprintf("edited %s: %d replacement(s)", rel, n),
		Metadata: map[string]any{"replacements": n}}, nil
}

// skipDir reports directories that searches never enter.
func skipDir(name string) bool {
	return name == ".git" || name == "node_modules" || name == ".podcode"
}

func searchRoot(ws Workspace, args map[string]any) (string, error) {
	if p := str(args, "path"); p != "" {
		return ws.Resolve(p)
	}
	return ws.Root, nil
}

func (b builtins) glob(ctx context.Context, _ Call, args map[string]any) (Result, error) {
	ws := b.ws(ctx)
	root, err := searchRoot(ws, args)
	if err != nil {
		return Result{}, err
	}
	pattern := str(args, "pattern")
	if !doublestar.ValidatePattern(pattern) {
		return Result{}, fmt.Errorf("glob: bad pattern %q", pattern)
	}
	var matches []string
	truncated := false
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable entries are skipped, not fatal
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() && p != root && skipDir(d.Name()) {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() || !doublestar.MatchUnvalidated(pattern, filepath.ToSlash(rel)) {
			return nil
		}
		if len(matches) == maxGlobResults {
			truncated = true
			return filepath.SkipAll
		}
		matches = append(matches, ws.rel(p))
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	out := strings.Join(matches, "\n")
	if len(matches) == 0 {
		out = "no files match " + pattern
	}
	if truncated {
		out += fmt.Sprintf("\n(only the first %d matches)", maxGlobResults)
	}
	return Result{Title: pattern, Output: out, Metadata: map[string]any{"count": len(matches), "truncated": truncated}}, nil
}

func (b builtins) grep(ctx context.Context, _ Call, args map[string]any) (Result, error) {
	ws := b.ws(ctx)
	root, err := searchRoot(ws, args)
	if err != nil {
		return Result{}, err
	}
	re, err := regexp.Compile(str(args, "pattern"))
	if err != nil {
		return Result{}, fmt.Errorf("grep: bad pattern: %w", err)
	}
	include := str(args, "include")
	if include != "" && !doublestar.ValidatePattern(include) {
		return Result{}, fmt.Errorf("grep: bad include pattern %q", include)
	}
	var out strings.Builder
	count := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if include != "" && !doublestar.MatchUnvalidated(include, d.Name()) {
			if rel, _ := filepath.Rel(root, p); !doublestar.MatchUnvalidated(include, filepath.ToSlash(rel)) {
				return nil
			}
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64*1024), 1024*1024)
		for n := 1; sc.Scan(); n++ {
			line := sc.Bytes()
			if n == 1 && bytes.IndexByte(line, 0) >= 0 {
				return nil // binary
			}
			if !re.Match(line) {
				continue
			}
			if count == maxGrepMatches {
				return filepath.SkipAll
			}
			count++
			text := string(line)
			if len(text) > maxLineBytes {
				text = text[:maxLineBytes] + "…"
			}
			fmt.Fprintf(&out, "%s:%d: %s\n", ws.rel(p), n, text)
		}
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	res := out.String()
	if count == 0 {
		res = "no matches"
	} else if count == maxGrepMatches {
		res += fmt.Sprintf("(stopped at %d matches)\n", maxGrepMatches)
	}
	return Result{Title: str(args, "pattern"), Output: res, Metadata: map[string]any{"matches": count}}, nil
}
