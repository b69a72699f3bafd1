package trust

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// make follows `make [options] [targets]`: the makefile it reads, the
// files that includes, and what the recipes run, read as make does before
// it hands each recipe line to sh. What make could run that the makefiles
// do not say (its built-in rules building a program, $(shell ...) at read
// time, a SHELL of the project's) cannot be known.
func (s *scan) make(args []arg, sc *scope) {
	dirs := sc.dirs
	var files []string
	mv := map[string][]string{}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.ok || len(a.vals) != 1 {
			s.unknown(sc, "make is given options that cannot be known")
			return
		}
		v := a.vals[0]
		next := func() (string, bool) {
			if i+1 < len(args) && args[i+1].ok && len(args[i+1].vals) == 1 {
				i++
				return args[i].vals[0], true
			}
			return "", false
		}
		switch {
		case v == "-f" || v == "--file" || v == "--makefile":
			f, ok := next()
			if !ok {
				s.unknown(sc, "make -f names a file that cannot be known")
				return
			}
			files = append(files, f)
		case strings.HasPrefix(v, "--file=") || strings.HasPrefix(v, "--makefile="):
			files = append(files, v[strings.IndexByte(v, '=')+1:])
		case strings.HasPrefix(v, "-f") && len(v) > 2 && !strings.HasPrefix(v, "--"):
			files = append(files, v[2:])
		case v == "-C" || v == "--directory" || strings.HasPrefix(v, "--directory=") || strings.HasPrefix(v, "-C") && len(v) > 2:
			d := strings.TrimPrefix(strings.TrimPrefix(v, "--directory="), "-C")
			if v == "-C" || v == "--directory" {
				var ok bool
				if d, ok = next(); !ok {
					s.unknown(sc, "make -C names a folder that cannot be known")
					return
				}
			}
			var moved []string
			for _, base := range dirs {
				if filepath.IsAbs(d) {
					moved = append(moved, filepath.Clean(d))
				} else {
					moved = append(moved, filepath.Join(base, d))
				}
			}
			dirs = slices.Compact(moved)
		case v == "-I" || v == "-o" || v == "-W" || v == "--include-dir" || v == "--old-file" || v == "--what-if" || v == "--assume-old" || v == "--assume-new" || v == "--new-file":
			next()
		case v == "-E" || v == "--eval" || strings.HasPrefix(v, "--eval="):
			s.unknown(sc, "make --eval reads more makefile text")
			return
		case strings.HasPrefix(v, "-"):
		case strings.Contains(v, "="):
			name, val, _ := strings.Cut(v, "=")
			mv[strings.TrimSuffix(strings.TrimSpace(name), ":")] = []string{val}
		}
	}
	for _, d := range dirs {
		ms := &makeScan{s: s, dir: d, vars: map[string][]string{}, unknownVars: map[string]bool{}}
		for k, v := range mv {
			ms.vars[k] = v
		}
		ms.sc = sc.child(sc.zero, true)
		ms.sc.dirs, ms.sc.source, ms.sc.inMake = []string{d}, sc.source, true
		if len(files) > 0 {
			for _, f := range files {
				ms.read(ms.path(f), 0)
			}
		} else {
			found := false
			for _, name := range []string{"GNUmakefile", "makefile", "Makefile"} {
				p := filepath.Join(d, name)
				if _, in := within(s.root, p); !in {
					continue
				}
				if _, err := os.Stat(p); !found && err == nil {
					found = true
					ms.read(p, 0) // a FIFO or a device in its place is said so there
				} else {
					s.h.File(Shown(p, s.root), p) // made later, it would be read first
				}
			}
		}
		ms.recipes()
	}
}

// makeScan reads the makefiles of one make run.
type makeScan struct {
	s           *scan
	sc          *scope
	dir         string
	vars        map[string][]string // make variables: every value each is given
	unknownVars map[string]bool
	recipe      []string // recipe lines, in order read
}

func (m *makeScan) path(f string) string {
	if filepath.IsAbs(f) {
		return filepath.Clean(f)
	}
	return filepath.Join(m.dir, f)
}

var (
	makeAssign = regexp.MustCompile(`^(?:(?:export|override|private)\s+)*([A-Za-z0-9_.-]+)\s*(::?=|:::=|\?=|\+=|!=|=)\s*(.*)$`)
	makeRisky  = regexp.MustCompile(`[$][({](?:shell|eval|guile|file|call|value)[\s)}]|^\s*-?load\s|^\s*(?:export\s+|override\s+)*(?:SHELL|\.SHELLFLAGS|MAKEFILES|MAKEFLAGS|PATH|BASH_ENV|ENV|LD_PRELOAD|LD_LIBRARY_PATH|PYTHONPATH|NODE_OPTIONS|NODE_PATH)\s*[:?+!]?=|^\s*(?:export\s+)?define\s`)
)

// read reads one makefile and the files it includes.
func (m *makeScan) read(path string, depth int) {
	s := m.s
	if _, in := within(s.root, path); !in {
		s.unknown(m.sc, "make reads "+path+", a makefile outside the project")
		return
	}
	s.h.File(Shown(path, s.root), path)
	key := "make\x00" + path + "\x00" + m.dir
	if s.h.followed[key] {
		return
	}
	if depth >= maxDepth || len(s.h.followed) >= maxFollow {
		s.unknown(m.sc, "makefiles include too many others to follow")
		return
	}
	s.h.followed[key] = true
	data, err := ReadFile(path, maxScript)
	switch {
	case errors.Is(err, ErrNotRegular):
		s.unknown(m.sc, Shown(path, s.root)+" is not a regular file")
		return
	case errors.Is(err, ErrTooLarge):
		s.unknown(m.sc, Shown(path, s.root)+" is too large to read")
		return
	case err != nil:
		return // File counted it as missing (or failed to read it)
	}
	text := strings.ReplaceAll(string(data), "\\\n", " ")
	for _, line := range strings.Split(text, "\n") {
		if makeRisky.MatchString(line) {
			s.unknown(m.sc, "a makefile runs or defines commands as it is read")
			return
		}
		if strings.HasPrefix(line, "\t") {
			m.recipe = append(m.recipe, line[1:])
			continue
		}
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			continue
		}
		if kw, rest, _ := strings.Cut(trimmed, " "); kw == "include" || kw == "-include" || kw == "sinclude" {
			for _, f := range strings.Fields(rest) {
				f, ok := m.expand(f)
				if !ok || strings.ContainsAny(f, "*?[") {
					s.unknown(m.sc, "a makefile includes files that cannot be known")
					continue
				}
				m.read(m.path(f), depth+1)
			}
			continue
		}
		if g := makeAssign.FindStringSubmatch(trimmed); g != nil && !strings.Contains(g[1], ":") {
			name, op, val := g[1], g[2], strings.TrimSpace(g[3])
			if op == "+=" || op == "!=" {
				m.unknownVars[name] = true
			} else if !slices.Contains(m.vars[name], val) {
				m.vars[name] = append(m.vars[name], val)
			}
			continue
		}
		// A rule; what follows a ';' is its first recipe line.
		if i := strings.IndexByte(trimmed, ';'); i >= 0 && strings.Contains(trimmed[:i], ":") {
			m.recipe = append(m.recipe, trimmed[i+1:])
		}
	}
}

// recipes follows every recipe line as the shell command make runs.
func (m *makeScan) recipes() {
	for _, line := range m.recipe {
		line = strings.TrimLeft(line, " \t@-+")
		cmd, ok := m.expand(line)
		if !ok {
			cmd = strings.ReplaceAll(cmd, unknownRef, "${__podcode_unknown}")
		}
		m.s.shell(cmd, m.sc, "")
	}
}

// unknownRef stands for a reference whose value cannot be known; in a
// recipe it becomes an unset shell variable, unknown where it matters.
const unknownRef = "\x00unknown\x00"

// expand replaces make's references in s: $$ by $, $(NAME) and ${NAME} by
// the variable's one value when known; anything else by unknownRef, with
// !ok.
func (m *makeScan) expand(s string) (string, bool) {
	return m.expandDepth(s, 0)
}

func (m *makeScan) expandDepth(s string, depth int) (string, bool) {
	var b strings.Builder
	ok := true
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch c := s[i]; c {
		case '$':
			b.WriteByte('$')
		case '(', '{':
			closing := byte(')')
			if c == '{' {
				closing = '}'
			}
			end, nest := -1, 0
			for j := i + 1; j < len(s); j++ {
				if s[j] == c {
					nest++
				} else if s[j] == closing {
					if nest == 0 {
						end = j
						break
					}
					nest--
				}
			}
			if end < 0 {
				b.WriteString(unknownRef)
				return b.String(), false
			}
			name := s[i+1 : end]
			i = end
			vals := m.vars[name]
			if m.unknownVars[name] || len(vals) != 1 || depth > 8 {
				b.WriteString(unknownRef)
				ok = false
				continue
			}
			v, vok := m.expandDepth(vals[0], depth+1)
			b.WriteString(v)
			ok = ok && vok
		default:
			b.WriteString(unknownRef) // $@, $<, $^ ...: what make is building
			ok = false
		}
	}
	return b.String(), ok
}
