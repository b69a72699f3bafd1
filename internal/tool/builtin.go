package tool

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// CutOutput cuts s to MaxOutputBytes, at the start of a UTF-8 character,
// and notes the cut and the length s had; cut reports whether it did.
func CutOutput(s string) (out string, cut bool) {
	if len(s) <= MaxOutputBytes {
		return s, false
	}
	end := MaxOutputBytes
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + fmt.Sprintf("\n[output cut at %d of %d bytes]", end, len(s)), true
}

// Options configure the built-in tools.
type Options struct {
	Workspace   Workspace
	BashTimeout time.Duration // default and upper bound of bash's timeout; 2 minutes if zero
	Fetch       FetchOptions
}

// Limits that keep one tool result from flooding the model's context.
const (
	maxReadLines = 2000
	maxLineBytes = 2000
	// MaxOutputBytes bounds the output of bash, webfetch and an MCP tool.
	MaxOutputBytes = 50 * 1024
	maxGlobResults = 1000
	maxGrepMatches = 500
	// maxLoadBytes is the largest file a tool loads whole into memory
	// (edit); read and grep stream and load no file whole.
	maxLoadBytes = 16 << 20
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
			Description: "Read a text file (lines numbered; use offset and limit for long files), or an image or audio file (returned as it is).",
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
			Description: "Replace exact text in a file (of at most 16 MiB). old_string must occur exactly once unless replace_all is true.",
			Parameters: json.RawMessage(`{"type":"object","properties":{
				"path":{"type":"string"},"old_string":{"type":"string","minLength":1},"new_string":{"type":"string"},
				"replace_all":{"type":"boolean"}},
				"required":["path","old_string","new_string"],"additionalProperties":false}`)},
		{ID: "bash", Source: Builtin, Execute: b.bash,
			Description: "Run a bash command in the project directory (your workspace). Output is stdout and stderr combined. The call ends when the command exits; processes it left running in the background are killed then. It may run sandboxed: then only the workspace is writable, other files outside it and /tmp are unreachable (use $TMPDIR), and the network may be off.",
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
			Parameters: json.RawMessage(`{"type":"object","properties":{"description":{"type":"string"},"prompt":{"type":"string"},
				"subagent_type":{"type":"string","description":"the type of agent to run, from those listed; omit for a general-purpose agent"}},
				"required":["prompt"],"additionalProperties":false}`)},
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

// read streams the lines asked for: it reads up to offset+limit lines and
// stops, so its cost does not grow with the file. The lines after them are
// counted when they fit in restCountBytes; beyond that the output says
// that more lines follow.
func (b builtins) read(ctx context.Context, _ Call, args map[string]any) (Result, error) {
	fsys := b.ws(ctx).files()
	defer fsys.Close()
	var src io.Reader
	var real string
	if ed := EditorFrom(ctx); ed.Read != nil {
		l, err := fsys.locate(str(args, "path"))
		if err != nil {
			return Result{}, err
		}
		text, err := fsys.editorRead(ctx, ed, l)
		if err != nil {
			return Result{}, err
		}
		src, real = strings.NewReader(text), l.real
	} else {
		file, _, r, err := fsys.open(str(args, "path"))
		if err != nil {
			return Result{}, err
		}
		defer file.Close()
		src, real = file, r
	}
	shown := fsys.show(real)
	notText := fmt.Errorf("%s is not a text file", shown)
	lr := newLineReader(ctxReader{ctx, src}, maxLineBytes)
	defer lr.release()
	if head, _ := lr.br.Peek(8 << 10); !looksLikeText(head) {
		if mime := mediaType(head); mime != "" {
			return readMedia(lr.br, shown, mime)
		}
		return Result{}, notText
	}
	offset, limit := max(num(args, "offset", 0), 0), min(max(num(args, "limit", maxReadLines), 1), maxReadLines)
	end := offset + limit
	if end < offset { // an offset near the largest int
		end = math.MaxInt
	}
	var out strings.Builder
	n := 0 // lines read
	for ; n < end; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		line, cut, err := lr.next()
		if err == io.EOF {
			break
		}
		if errors.Is(err, errLineTooLong) {
			return Result{}, fmt.Errorf("%s: line %d is longer than %d MiB: not a text file", shown, n+1, maxScanLine>>20)
		}
		if err != nil {
			return Result{}, fmt.Errorf("%s: %w", shown, err)
		}
		if n < offset {
			continue
		}
		if cut {
			line = trimPartialRune(line)
		}
		if !looksLikeText(line) {
			return Result{}, notText
		}
		fmt.Fprintf(&out, "%6d\t%s", n+1, line)
		if cut {
			out.WriteString("…")
		}
		out.WriteByte('\n')
	}
	meta := map[string]any{}
	more, known := countRest(lr.br)
	switch {
	case n < offset:
		fmt.Fprintf(&out, "(the file has %d lines; offset %d is past its end)\n", n, offset)
		meta["lines"] = n
	case more > 0 && known:
		fmt.Fprintf(&out, "(%d more lines; read on with offset %d)\n", more, n)
		meta["lines"] = n + more
	case !known:
		fmt.Fprintf(&out, "(more lines follow; read on with offset %d)\n", n)
		meta["more"] = true
	default:
		meta["lines"] = n
	}
	return Result{Title: shown, Output: out.String(), Metadata: meta}, nil
}

// maxMediaBytes bounds an image or audio file read returns.
const maxMediaBytes = 5 << 20

// mediaType is the MIME type of an image or audio file that starts with
// head, or "" for anything else.
func mediaType(head []byte) string {
	mime, _, _ := strings.Cut(http.DetectContentType(head), ";")
	if strings.HasPrefix(mime, "image/") || strings.HasPrefix(mime, "audio/") {
		return mime
	}
	return ""
}

// readMedia is read's result for an image or audio file: the file as an
// attachment, described in the output.
func readMedia(r io.Reader, shown, mime string) (Result, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxMediaBytes+1))
	if err != nil {
		return Result{}, fmt.Errorf("%s: %w", shown, err)
	}
	if len(data) > maxMediaBytes {
		return Result{}, fmt.Errorf("%s is %s larger than %d MiB: too large to read", shown, mime, maxMediaBytes>>20)
	}
	return Result{Title: shown, Output: fmt.Sprintf("[%s: %s, %d bytes]", strings.SplitN(mime, "/", 2)[0], mime, len(data)),
		Metadata:    map[string]any{"mime": mime, "bytes": len(data)},
		Attachments: []Attachment{{MIMEType: mime, Data: data}}}, nil
}

// restCountBytes bounds how far read looks past the lines it returns to
// count the rest.
const restCountBytes = 4 << 20

// countRest counts the lines left in r, reading at most restCountBytes;
// known is false when there was more.
func countRest(r *bufio.Reader) (lines int, known bool) {
	var read int
	last := byte('\n')
	for read <= restCountBytes {
		chunk, err := r.Peek(r.Size())
		if len(chunk) > 0 {
			lines += bytes.Count(chunk, []byte{'\n'})
			last = chunk[len(chunk)-1]
			read += len(chunk)
			r.Discard(len(chunk))
		}
		if err == io.EOF {
			if last != '\n' {
				lines++
			}
			return lines, true
		}
		if err != nil {
			return 0, false
		}
	}
	return 0, false
}

// looksLikeText reports whether b is UTF-8 without NUL bytes; b may end in
// the middle of a character.
func looksLikeText(b []byte) bool {
	return bytes.IndexByte(b, 0) < 0 && utf8.Valid(trimPartialRune(b))
}

// trimPartialRune drops an incomplete UTF-8 character at the end of b (a
// line cut at a byte limit).
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax-1 && i <= len(b); i++ {
		c := b[len(b)-i]
		if c < utf8.RuneSelf {
			return b // ASCII: nothing is cut
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

func (b builtins) write(ctx context.Context, call Call, args map[string]any) (Result, error) {
	fsys := b.ws(ctx).files()
	defer fsys.Close()
	l, err := fsys.locate(str(args, "path"))
	if err != nil {
		return Result{}, err
	}
	content := str(args, "content")
	ed := EditorFrom(ctx)
	var old string
	known := false
	if ed.Changed != nil { // only then is the old text worth reading
		old, known = fsys.before(ctx, ed, l)
	}
	created, err := fsys.writeText(ctx, ed, l, []byte(content))
	if err != nil {
		return Result{}, err
	}
	if known {
		ed.Changed(FileChange{CallID: call.CallID, Path: fsys.named(l.real), Old: old, New: content, Created: created})
	}
	verb := "overwrote"
	if created {
		verb = "created"
	}
	rel := fsys.show(l.real)
	return Result{Title: rel, Output: fmt.Sprintf("%s %s (%d bytes)", verb, rel, len(content)),
		Metadata: map[string]any{"bytes": len(content), "created": created}}, nil
}

// edit loads the whole file, so it refuses files above maxLoadBytes, and
// an edit whose result would be above it.
func (b builtins) edit(ctx context.Context, call Call, args map[string]any) (Result, error) {
	fsys := b.ws(ctx).files()
	defer fsys.Close()
	ed := EditorFrom(ctx)
	data, l, err := fsys.loadText(ctx, ed, str(args, "path"))
	if err != nil {
		return Result{}, err
	}
	old, repl := str(args, "old_string"), str(args, "new_string")
	all, _ := args["replace_all"].(bool)
	rel := fsys.show(l.real)
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
	} else {
		n = 1
	}
	// The cap bounds the text edit builds too: replacing every byte of a
	// large file by a long string asks for file size × its length at once,
	// which the runtime cannot refuse without dying.
	if size, ok := replacedSize(len(data), n, len(old), len(repl)); !ok || size > maxLoadBytes {
		shown := fmt.Sprint(size)
		if !ok {
			shown = "more than " + fmt.Sprint(math.MaxInt)
		}
		return Result{}, fmt.Errorf("editing %s would make it %s bytes, past the cap of %d bytes on a file edit loads; replace fewer occurrences or write the file with write", rel, shown, maxLoadBytes)
	}
	text := strings.Replace(string(data), old, repl, limit)
	if _, err := fsys.writeText(ctx, ed, l, []byte(text)); err != nil {
		return Result{}, err
	}
	if ed.Changed != nil {
		ed.Changed(FileChange{CallID: call.CallID, Path: fsys.named(l.real), Old: string(data), New: text})
	}
	return Result{Title: rel, Output: fmt.Sprintf("edited %s: %d replacement(s)", rel, n),
		Metadata: map[string]any{"replacements": n}}, nil
}

// replacedSize is the length of a text of size bytes after n occurrences
// of a string of oldLen bytes are replaced by one of newLen bytes; ok is
// false when that does not fit in an int.
func replacedSize(size, n, oldLen, newLen int) (_ int, ok bool) {
	if newLen <= oldLen {
		return size - n*(oldLen-newLen), true // the occurrences are within size
	}
	grow := newLen - oldLen
	if n > 0 && grow > (math.MaxInt-size)/n {
		return 0, false
	}
	return size + n*grow, true
}

// skipDir reports directories that searches never enter.
func skipDir(name string) bool {
	return name == ".git" || name == "node_modules" || name == ".podcode"
}

// searchRoot is where glob and grep start: the path args name (the
// project by default), checked and resolved.
func searchRoot(fsys *files, args map[string]any) (located, error) {
	p := str(args, "path")
	if p == "" {
		p = fsys.ws.Root
	}
	return fsys.locate(p)
}

// glob lists the files under its root that match. Symbolic links to
// directories are not entered; a link is listed only when it leads to
// somewhere inside the workspace. Directories more than maxWalkDepth
// levels below the root are not entered either, and the output says so.
func (b builtins) glob(ctx context.Context, _ Call, args map[string]any) (Result, error) {
	fsys := b.ws(ctx).files()
	defer fsys.Close()
	start, err := searchRoot(fsys, args)
	if err != nil {
		return Result{}, err
	}
	root := start.real
	pattern := str(args, "pattern")
	if !doublestar.ValidatePattern(pattern) {
		return Result{}, fmt.Errorf("glob: bad pattern %q", pattern)
	}
	var matches []string
	truncated, deep := false, false
	err = walkTree(start.dir, start.rel, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			deep = deep || errors.Is(err, errTooDeep)
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
		if d.Type()&fs.ModeSymlink != 0 {
			if _, err := fsys.locate(p); err != nil {
				return nil // leads out of the workspace
			}
		}
		if len(matches) == maxGlobResults {
			truncated = true
			return filepath.SkipAll
		}
		matches = append(matches, fsys.show(p))
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	// In walk order, which a directory too large to read at once does not
	// keep (walkTree).
	slices.SortFunc(matches, comparePaths)
	out := strings.Join(matches, "\n")
	if len(matches) == 0 {
		out = "no files match " + pattern
	}
	if truncated {
		out += fmt.Sprintf("\n(only the first %d matches)", maxGlobResults)
	}
	if deep {
		out += "\n" + tooDeepNote
	}
	return Result{Title: pattern, Output: out, Metadata: map[string]any{"count": len(matches), "truncated": truncated, "too_deep": deep}}, nil
}

// tooDeepNote ends the output of a search that met directories it did
// not enter (maxWalkDepth).
var tooDeepNote = fmt.Sprintf("(directories more than %d levels below the search's path were not searched)", maxWalkDepth)

// comparePaths orders paths as a walk lists them: component by component,
// so "a/b" comes before "a.txt".
func comparePaths(a, b string) int {
	return strings.Compare(strings.ReplaceAll(a, string(filepath.Separator), "\x00"), strings.ReplaceAll(b, string(filepath.Separator), "\x00"))
}

// grepLineBytes is how much of one line grep searches: the rest of a
// longer line is read through, not kept.
const grepLineBytes = 1 << 20

// grep searches the regular files under its root. It opens each as read
// does: a symbolic link is searched only when it leads to a regular file
// inside the workspace; pipes, devices and sockets are passed over; files
// whose first 8 KiB hold a NUL byte are taken for binary and skipped.
// Directories more than maxWalkDepth levels below the root are not
// entered, and the output says so.
func (b builtins) grep(ctx context.Context, _ Call, args map[string]any) (Result, error) {
	fsys := b.ws(ctx).files()
	defer fsys.Close()
	start, err := searchRoot(fsys, args)
	if err != nil {
		return Result{}, err
	}
	root := start.real
	re, err := regexp.Compile(str(args, "pattern"))
	if err != nil {
		return Result{}, fmt.Errorf("grep: bad pattern: %w", err)
	}
	include := str(args, "include")
	if include != "" && !doublestar.ValidatePattern(include) {
		return Result{}, fmt.Errorf("grep: bad include pattern %q", include)
	}
	var out strings.Builder
	count, deep := 0, false
	lr := newLineReader(nil, grepLineBytes) // one buffer for every file
	defer lr.release()
	err = walkTree(start.dir, start.rel, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			deep = deep || errors.Is(err, errTooDeep)
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
		var f *os.File
		switch {
		case d.Type().IsRegular():
			// Opened beneath the directory the walk started in: a directory
			// on the way swapped for a link meanwhile is refused.
			rel, _ := filepath.Rel(root, p)
			f, _, err = openFstat(start.dir, filepath.Join(start.rel, rel), p)
		case d.Type()&fs.ModeSymlink != 0:
			f, _, _, err = fsys.open(p) // the whole check, as read's
		default:
			return nil // pipes, devices, sockets
		}
		if err != nil {
			return nil
		}
		defer f.Close()
		lr.br.Reset(ctxReader{ctx, f})
		if head, _ := lr.br.Peek(8 << 10); bytes.IndexByte(head, 0) >= 0 {
			return nil // binary
		}
		for n := 1; ; n++ {
			line, _, err := lr.next()
			if err != nil {
				return ctx.Err() // nil: the file ended, or cannot be read
			}
			if n%1024 == 0 && ctx.Err() != nil {
				return ctx.Err()
			}
			line = bytes.TrimSuffix(line, []byte{'\r'})
			if !re.Match(line) {
				continue
			}
			if count == maxGrepMatches {
				return filepath.SkipAll
			}
			count++
			text := line
			cut := len(text) > maxLineBytes
			if cut {
				text = trimPartialRune(text[:maxLineBytes])
			}
			fmt.Fprintf(&out, "%s:%d: %s", fsys.show(p), n, text)
			if cut {
				out.WriteString("…")
			}
			out.WriteByte('\n')
		}
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
	if deep {
		if count == 0 {
			res += "\n"
		}
		res += tooDeepNote + "\n"
	}
	return Result{Title: str(args, "pattern"), Output: res, Metadata: map[string]any{"matches": count, "too_deep": deep}}, nil
}
