package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

// Setting is one key of one file, as the table (Keys) classifies it: its
// value and where it was written. Every value of the merged configuration
// keeps its settings (Config.Origins), so what decides about a value can
// always tell which file set it.
type Setting struct {
	Key       string          // dotted, e.g. provider.offline.options.replay
	Path      []string        // Key's segments (a map key may hold a dot)
	Value     json.RawMessage // canonical JSON: no comments, compact, object keys sorted
	File      string
	Line, Col int
	Project   bool // written in the project's file
	Row       Row  // the row of Keys that decides it
}

// Name is Key with no two settings' alike: a segment that holds a dot or
// a quote is quoted (provider."openai.models.gpt-x".options), so that a
// map key with dots in it is not taken for the path it spells. It names
// a setting where what it says must be exact: a trust item's content.
func (s Setting) Name() string {
	if !slices.ContainsFunc(s.Path, func(seg string) bool { return strings.ContainsAny(seg, `."`) }) {
		return s.Key
	}
	segs := make([]string, len(s.Path))
	for i, seg := range s.Path {
		segs[i] = seg
		if strings.ContainsAny(seg, `."`) {
			segs[i] = strconv.Quote(seg)
		}
	}
	return strings.Join(segs, ".")
}

// At is where the setting was written: "file:line:col: key "k"".
func (s Setting) At() string {
	return strings.TrimSuffix((&Error{File: s.File, Line: s.Line, Col: s.Col, Key: s.Key}).Error(), ": ")
}

// classify lists the settings of a file's syntax tree, one per key the
// table decides, and warns about keys the table does not know.
func classify(path string, data []byte, obj *hujson.Object, project bool) (settings []Setting, warnings []string, err error) {
	var walk func(obj *hujson.Object, prefix []string) error
	walk = func(obj *hujson.Object, prefix []string) error {
		for i := range obj.Members {
			m := &obj.Members[i]
			key := append(slices.Clip(prefix), LiteralString(m.Name))
			row, deeper := rowFor(key)
			line, col := Position(data, m.Name.StartOffset)
			switch {
			case row != nil:
				v, err := Canonical(m.Value)
				if err != nil {
					return &Error{File: path, Line: line, Col: col, Key: strings.Join(key, "."), Msg: err.Error()}
				}
				settings = append(settings, Setting{Key: strings.Join(key, "."), Path: key, Value: v, File: path, Line: line, Col: col, Project: project, Row: *row})
			case deeper:
				if o, ok := m.Value.Value.(*hujson.Object); ok {
					n := len(settings)
					if err := walk(o, key); err != nil {
						return err
					}
					// An object of the user's with no key set still
					// exists ("models": {"big": {}}); a project's says
					// nothing that needs keeping.
					if len(settings) == n && !project {
						settings = append(settings, Setting{Key: strings.Join(key, "."), Path: key, Value: json.RawMessage(`{}`),
							File: path, Line: line, Col: col, Row: Row{Key: strings.Join(key, "."), Access: Free, Why: "an object with no key set"}})
					}
				}
			default:
				warnings = append(warnings, (&Error{File: path, Line: line, Col: col, Key: strings.Join(key, "."),
					Msg: "unknown key, ignored (known: " + strings.Join(known(prefix), ", ") + ")"}).Error())
			}
		}
		return nil
	}
	return settings, warnings, walk(obj, nil)
}

// known lists the keys the table knows under prefix.
func known(prefix []string) []string {
	var out []string
	for _, r := range Keys {
		if len(r.path) > len(prefix) && match(r.path[:len(prefix)], prefix) && r.path[len(prefix)] != "$schema" &&
			!slices.Contains(out, r.path[len(prefix)]) {
			out = append(out, r.path[len(prefix)])
		}
	}
	return out
}

// Canonical is a standardized value (hujson.Value.Standardize) as JSON, compact, with object keys
// sorted, numbers as written and strings with only the escapes JSON
// needs: two layouts of one value are equal, and what a string holds is
// what its bytes say ("\u007benv:HOME}" is "{env:HOME}", which the table's
// {env:} check, a warning and `podcode trust` must see as such).
func Canonical(v hujson.Value) (json.RawMessage, error) {
	if lit, ok := v.Value.(hujson.Literal); ok {
		if !json.Valid(lit) {
			return nil, fmt.Errorf("%s is not JSON", lit)
		}
		if lit.Kind() != '"' {
			return json.RawMessage(bytes.Clone(lit)), nil // already as written, without the comments around it
		}
	}
	dec := json.NewDecoder(bytes.NewReader(v.Pack()))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(x); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// document rebuilds a file holding only the given settings.
func document(settings []Setting) ([]byte, error) {
	root := map[string]any{}
	for _, s := range settings {
		m := root
		for _, seg := range s.Path[:len(s.Path)-1] {
			next, ok := m[seg].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[seg] = next
			}
			m = next
		}
		m[s.Path[len(s.Path)-1]] = s.Value
	}
	return json.Marshal(root)
}

// admit applies the table to one setting of the project's file: it
// returns whether the setting is merged now. A setting that needs trust
// is held back (Pending); one the project may not set is dropped with a
// warning that names it.
func (cfg *Config) admit(s Setting) bool {
	r := s.Row
	if r.Access != User && r.Expands && bytes.Contains(s.Value, []byte("{env:")) {
		cfg.warn(s, "ignored: {env:…} is expanded in the user's file only (a project's file could send the user's environment wherever this value goes)")
		return false
	}
	switch r.Access {
	case User:
		cfg.warn(s, "ignored in a project's file: "+r.Why+"; set it in the user's file")
		return false
	case Trust:
		cfg.pending = append(cfg.pending, s)
		return false
	case Tighten:
		return cfg.tighter(s)
	}
	return true
}

// tighter reports whether a Tighten setting of the project's file is at
// least as strict as the user's value (or the default); a looser one is
// dropped with a warning, and one with nothing to compare with needs
// trust.
func (cfg *Config) tighter(s Setting) bool {
	r := s.Row
	user, hasUser := lookup(cfg.user, s.Path)
	switch r.Stricter {
	case Lower:
		v, ok := number(s.Value)
		switch {
		case ok && v == 0:
			return false // not set
		case !ok || v < 0:
			cfg.warn(s, fmt.Sprintf("ignored: %s is not a positive number", s.Value))
			return false
		}
		base, hasBase := math.Inf(1), false
		if hasUser {
			if u, ok := number(user); ok && u > 0 {
				base, hasBase = u, true
			}
		}
		if !hasBase && r.Default > 0 {
			base, hasBase = r.Default, true
		}
		if !hasBase {
			if within := concrete(r.Within, s.Path); within == nil || !has(cfg.user, within) {
				cfg.pending = append(cfg.pending, s) // it defines something new
				return false
			}
		}
		if v > base {
			cfg.warn(s, fmt.Sprintf("%s ignored: a project's file may only lower it, and the user's value (or the default) is %v", s.Value, base))
			return false
		}
	case Off, On:
		want := r.Stricter == On
		v, ok := boolean(s.Value)
		if !ok || v == want {
			return ok
		}
		if u, ok := boolean(user); !hasUser || !ok || u != v {
			cfg.warn(s, fmt.Sprintf("%s ignored: a project's file may only set it to %v", s.Value, want))
			return false
		}
	}
	return true
}

// warn records a warning about s, naming its file, position and key.
func (cfg *Config) warn(s Setting, msg string) {
	cfg.Warnings = append(cfg.Warnings, s.At()+": "+msg)
}

// warnAt records a warning about the latest setting of key.
func (cfg *Config) warnAt(file, key, msg string) {
	if o := cfg.Origins(key); len(o) > 0 {
		cfg.warn(o[len(o)-1], msg)
		return
	}
	cfg.Warnings = append(cfg.Warnings, (&Error{File: file, Key: key, Msg: msg}).Error())
}

// Origins returns the settings of a key (dotted, as in Keys but with map
// keys filled in, e.g. "permission.bash"), in the order they were merged:
// which files set the value, and where.
func (cfg *Config) Origins(key string) []Setting {
	return cfg.origins[key]
}

// Pending returns the settings of the project's file that need trust and
// are not merged yet: what the trust item of kind config covers.
func (cfg *Config) Pending() []Setting {
	return slices.Clone(cfg.pending)
}

// ApplyTrusted merges the pending settings, once the user trusted them
// (their exact content), as the project's file would have: a job or a
// webhook of the user's of the same name still stands. Warnings it adds
// go to Warnings.
func (cfg *Config) ApplyTrusted() error {
	pending := cfg.pending
	cfg.pending = nil
	for len(pending) > 0 {
		file := pending[0].File
		var these []Setting
		these, pending = partition(pending, func(s Setting) bool { return s.File == file })
		if err := cfg.mergeSettings(file, these, nil, true); err != nil {
			return err
		}
	}
	return nil
}

func partition(s []Setting, in func(Setting) bool) (yes, no []Setting) {
	for _, x := range s {
		if in(x) {
			yes = append(yes, x)
		} else {
			no = append(no, x)
		}
	}
	return yes, no
}

// mergeSettings decodes a file rebuilt from settings and merges it.
func (cfg *Config) mergeSettings(path string, settings []Setting, lines []int, project bool) error {
	doc, err := document(settings)
	if err != nil {
		return &Error{File: path, Msg: err.Error()}
	}
	var f file
	if err := json.Unmarshal(doc, &f); err != nil {
		return &Error{File: path, Msg: err.Error()}
	}
	set := map[string]bool{}
	if cfg.origins == nil {
		cfg.origins = map[string][]Setting{}
	}
	for _, s := range settings {
		set[s.Key] = true
		cfg.origins[s.Key] = append(cfg.origins[s.Key], s)
	}
	cfg.mergeFile(path, &f, lines, project, set)
	return nil
}

// lookup returns the value at path in a decoded file.
func lookup(tree map[string]any, path []string) (json.RawMessage, bool) {
	var v any = tree
	for _, seg := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[seg]; !ok {
			return nil, false
		}
	}
	b, err := json.Marshal(v)
	return b, err == nil
}

func has(tree map[string]any, path []string) bool {
	_, ok := lookup(tree, path)
	return ok
}

// concrete fills the "*" of a pattern with the segments of path; nil when
// the pattern is empty.
func concrete(pattern string, path []string) []string {
	if pattern == "" {
		return nil
	}
	p := strings.Split(pattern, ".")
	out := make([]string, len(p))
	for i, seg := range p {
		out[i] = seg
		if seg == "*" && i < len(path) {
			out[i] = path[i]
		}
	}
	return out
}

func number(v json.RawMessage) (float64, bool) {
	var n float64
	return n, json.Unmarshal(v, &n) == nil
}

func boolean(v json.RawMessage) (bool, bool) {
	var b bool
	return b, json.Unmarshal(v, &b) == nil
}

// tree is the file that settings make, decoded.
func tree(settings []Setting) map[string]any {
	doc, err := document(settings)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(doc, &m) != nil {
		return nil
	}
	return m
}

// narrowAllowedPaths applies the project's tools.allowed_paths (Tighten):
// the directories both files allow. A project's entry stays if it lies
// inside one of the user's directories (an entry inside the project adds
// nothing: the project is always allowed); a user's entry stays if it
// lies inside one of the project's entries or is one. So a project's list,
// even an empty one, can only take directories away. Paths are compared
// with symbolic links resolved, so that a link cannot lead a project's
// entry out of the user's directories; a project's entry is kept resolved.
func (cfg *Config) narrowAllowedPaths(path string, entries []string) {
	dir := filepath.Dir(path)
	root := realPath(dir)
	user := make([]string, len(cfg.Tools.AllowedPaths))
	for i, u := range cfg.Tools.AllowedPaths {
		user[i] = realPath(u)
	}
	var out, theirs []string
	for _, e := range entries {
		p := realPath(absIn(dir, e))
		theirs = append(theirs, p)
		switch {
		case within(p, root):
		case slices.ContainsFunc(user, func(u string) bool { return within(p, u) }):
			out = append(out, p)
		default:
			cfg.warnAt(path, "tools.allowed_paths", fmt.Sprintf("%q ignored: a project's file may only narrow the directories the user's file allows, and this one is not inside them", e))
		}
	}
	for i, u := range user {
		if slices.ContainsFunc(theirs, func(p string) bool { return within(u, p) }) && !slices.Contains(out, u) {
			out = append(out, cfg.Tools.AllowedPaths[i])
		}
	}
	cfg.Tools.AllowedPaths = out
}

// absIn is p made absolute against dir, and cleaned.
func absIn(dir, p string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

// realPath resolves the symbolic links of the longest existing prefix of
// p and keeps the rest as written.
func realPath(p string) string {
	rest := ""
	for cur := filepath.Clean(p); ; {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return filepath.Clean(p)
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

func within(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
