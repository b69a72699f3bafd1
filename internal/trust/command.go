package trust

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Bounds of following a command into the files it runs.
const (
	maxFollow    = 64      // scripts and makefiles read per fingerprint
	maxDepth     = 8       // scripts running scripts
	maxScript    = 1 << 20 // bytes of one script or makefile
	maxWordForms = 16      // values one word may take (a variable set in two branches takes two)
)

// Command adds a command line run by `sh -c` in dir, and what it runs of
// the project (root and below):
//
//   - the files its words name (a script, a program, a file given to it);
//   - followed into them, at most maxFollow files and maxDepth deep: what
//     a shell script sources (`. ./lib.sh`, `source "$DIR/x.sh"`) and the
//     scripts it runs; the Makefile `make` reads (-f, -C, GNUmakefile,
//     makefile, Makefile), the files it includes and what its recipes run;
//     the script an interpreter is given.
//
// Words are read as a shell reads them (mvdan.cc/sh): quotes removed, $NAME
// and ${NAME} expanded from vars and from the script's own assignments
// (every value a variable is given anywhere counts, so that a branch
// cannot hide a file), $0, ${BASH_SOURCE[0]} and $(dirname "$0") as the
// script and its folder; `cd` counts every folder it goes to.
//
// Where the files the command reads cannot be known (a program Podcode does
// not know to read only the files it is given, such as npm, make's
// compilers or `python -m`; a word whose value cannot be worked out where a
// program, a script or a folder is expected; a variable set that changes
// where programs are looked up or what they load, such as PATH; an
// interpreter's imports),
// the item says "files this command reads cannot be known; the whole
// directory <dir> is fingerprinted" and Command returns that directory:
// the caller makes it an item of its own (ReadsItem). Files outside root
// are not the project's and are not added.
func (h *Hasher) Command(command, dir, root string, vars map[string]string) []string {
	h.add("command", command, nil)
	h.runs = append(h.runs, "$ "+command)
	s := h.scan(root)
	s.shell(command, s.scope(dir, vars), "")
	return s.done()
}

// Exec is Command for a program run directly, with its arguments, and no
// shell (a process handler, a hook with an args array). vars are the
// variables the program is given: one that changes which program runs or
// what it loads (PATH, LD_PRELOAD, PYTHONPATH...) makes dir an item of its
// own, as for a shell command that sets it.
func (h *Hasher) Exec(program string, args []string, dir, root string, vars map[string]string) []string {
	return h.exec(program, args, dir, root, vars, func(string) bool { return true })
}

// ExecTemplate is Exec for words the environment fills in when the program
// starts (${NAME} and ${NAME:-default} in a .mcp.json entry): the words
// are fingerprinted as written, and one that holds a ${ is taken for a
// value that cannot be known (its default may name any program or
// script of the project).
func (h *Hasher) ExecTemplate(program string, args []string, dir, root string, vars map[string]string) []string {
	return h.exec(program, args, dir, root, vars, func(w string) bool { return !strings.Contains(w, "${") })
}

func (h *Hasher) exec(program string, args []string, dir, root string, vars map[string]string, known func(string) bool) []string {
	line := strings.Join(append([]string{program}, args...), " ")
	h.add("exec", line, []byte(strings.Join(append([]string{program}, args...), "\x00")))
	h.runs = append(h.runs, "$ "+line)
	s := h.scan(root)
	sc := s.scope(dir, vars)
	for k, v := range vars {
		if !known(v) { // filled in at start: a script that reads it is unknown
			delete(sc.vars, k)
			sc.unset[k] = true
		}
	}
	if !known(program) {
		s.unknown(sc, "a program is named by a word whose value cannot be known")
		return s.done()
	}
	words := make([]arg, len(args))
	for i, a := range args {
		words[i] = arg{vals: []string{a}, ok: known(a)}
	}
	s.run(program, words, sc)
	return s.done()
}

func (h *Hasher) scan(root string) *scan {
	if h.followed == nil {
		h.followed = map[string]bool{}
	}
	return &scan{h: h, root: root}
}

// scan follows one command into what it runs.
type scan struct {
	h     *Hasher
	root  string
	reads []string
}

// scope is what a shell knows while reading one script or command line.
type scope struct {
	dirs   []string            // every folder the commands may run in: the first, then where cd goes
	vars   map[string][]string // every value each variable may have
	unset  map[string]bool     // variables whose value cannot be known
	zero   string              // $0: the script run ("" on a command line)
	source string              // ${BASH_SOURCE[0]}: the file being read
	funcs  map[string]bool     // functions the script defines
	depth  int
	inMake bool // a make recipe: a program in the project may be one make builds
}

func (s *scan) scope(dir string, vars map[string]string) *scope {
	sc := &scope{dirs: []string{dir}, vars: map[string][]string{}, unset: map[string]bool{}, funcs: map[string]bool{}}
	if home, err := os.UserHomeDir(); err == nil {
		sc.vars["HOME"] = []string{home}
	}
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		sc.vars[k] = []string{vars[k]}
		s.loaderVar(sc, k)
	}
	return sc
}

// child is the scope of a script sourced or run from sc.
func (sc *scope) child(file string, sourced bool) *scope {
	c := &scope{dirs: slices.Clone(sc.dirs), vars: map[string][]string{}, unset: map[string]bool{}, funcs: map[string]bool{},
		zero: file, source: file, depth: sc.depth + 1}
	if sourced {
		c.zero = sc.zero
	}
	for k, v := range sc.vars {
		c.vars[k] = slices.Clone(v)
	}
	for k := range sc.unset {
		c.unset[k] = true
	}
	return c
}

func (s *scan) done() []string {
	slices.Sort(s.reads)
	return slices.Compact(s.reads)
}

// unknown records that what sc's commands read cannot be known: the
// folder they run in is fingerprinted whole (or the project, when even
// that folder cannot be known).
func (s *scan) unknown(sc *scope, why string) {
	dir := s.root
	if len(sc.dirs) > 0 {
		dir = sc.dirs[0]
	}
	s.unknownDir(dir, why)
}

func (s *scan) unknownDir(dir, why string) {
	if _, ok := within(s.root, dir); !ok || slices.Contains(s.reads, dir) {
		return
	}
	s.reads = append(s.reads, dir)
	s.h.note(fmt.Sprintf("files this command reads cannot be known; the whole directory %s is fingerprinted (%s)", Shown(dir, s.root), why))
}

// shell reads src, a command line or a script's content, as sh would.
func (s *scan) shell(src string, sc *scope, name string) {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), name)
	if err != nil {
		s.unknown(sc, fmt.Sprintf("it does not parse as a shell command: %v", err))
		return
	}
	// First what the script defines, wherever it does: functions,
	// variables (again until nothing new is learnt, since one may be made
	// of another) and the folders cd goes to.
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			sc.funcs[fd.Name.Value] = true
		}
		return true
	})
	for range 4 {
		if !s.assignments(f, sc) {
			break
		}
	}
	// A cd anywhere counts, in a subshell too: a path is looked for in
	// every folder the script may be in, so no branch can hide a file.
	syntax.Walk(f, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) >= 1 {
			if p := c.Args[0].Lit(); p == "cd" || p == "pushd" {
				s.cd(c.Args[1:], sc)
			}
		}
		return true
	})
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			s.redirects(n, sc)
		case *syntax.CallExpr:
			if len(n.Args) > 0 {
				s.call(n.Args, sc)
			}
		}
		return true
	})
}

// assignments learns the values variables are given; it reports whether
// it learnt anything new.
func (s *scan) assignments(f *syntax.File, sc *scope) bool {
	grew := false
	var learn func(name string, vals []string, ok bool)
	learn = func(name string, vals []string, ok bool) {
		// However it is set (NAME=, for, read, printf -v...).
		s.loaderVar(sc, name)
		if !ok {
			if !sc.unset[name] {
				sc.unset[name], grew = true, true
			}
			return
		}
		for _, v := range vals {
			if !slices.Contains(sc.vars[name], v) {
				if len(sc.vars[name]) >= maxWordForms {
					learn(name, nil, false)
					return
				}
				sc.vars[name] = append(sc.vars[name], v)
				grew = true
			}
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Assign:
			if n.Name == nil {
				return true
			}
			if n.Value == nil || n.Array != nil || n.Append || n.Index != nil {
				learn(n.Name.Value, nil, n.Value == nil && n.Array == nil && n.Naked)
				return true
			}
			vals, ok := s.word(n.Value, sc)
			learn(n.Name.Value, vals, ok)
		case *syntax.ForClause:
			if it, ok := n.Loop.(*syntax.WordIter); ok && it.Name != nil {
				var all []string
				good := it.InPos.IsValid()
				for _, w := range it.Items {
					vals, ok := s.word(w, sc)
					good = good && ok
					all = append(all, vals...)
				}
				learn(it.Name.Value, all, good)
			}
		case *syntax.CallExpr:
			// Builtins that set variables from input.
			if len(n.Args) > 1 {
				switch n.Args[0].Lit() {
				case "read", "getopts", "mapfile", "readarray", "printf", "select":
					for _, w := range n.Args[1:] {
						if name := w.Lit(); isName(name) {
							learn(name, nil, false)
						}
					}
				}
			}
		}
		return true
	})
	return grew
}

// loaderVars change which program a name runs or what a program loads
// before it runs: set by a script, what it runs cannot be known.
var loaderVars = set("PATH", "IFS", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "CDPATH", "LD_PRELOAD", "LD_LIBRARY_PATH",
	"PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE", "NODE_OPTIONS", "NODE_PATH", "PERL5OPT", "PERL5LIB",
	"RUBYOPT", "RUBYLIB", "GIT_EXEC_PATH", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_PARAMETERS",
	"GIT_CONFIG_COUNT", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "EDITOR", "VISUAL",
	"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_TEMPLATE_DIR", "GIT_ASKPASS", "SSH_ASKPASS", "GIT_PROXY_COMMAND",
	"GIT_EDITOR", "GIT_SEQUENCE_EDITOR", "GIT_OBJECT_DIRECTORY", "HOME", "XDG_CONFIG_HOME", "CURL_HOME", "WGETRC",
	"JQ_LIBRARY_PATH", "AWKPATH", "MAKEFILES", "MAKEFLAGS")

// loaderVar reports whether name is one of loaderVars, and when it is,
// records that what sc's commands run cannot be known.
func (s *scan) loaderVar(sc *scope, name string) bool {
	if !loaderVars[name] {
		return false
	}
	s.unknown(sc, name+" is set: programs may be looked up or load code elsewhere")
	return true
}

func isName(s string) bool {
	if s == "" || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// cd adds the folders a cd goes to to the folders commands may run in.
func (s *scan) cd(args []*syntax.Word, sc *scope) {
	var target *syntax.Word
	for _, w := range args {
		if l := w.Lit(); l == "-P" || l == "-L" || l == "-e" || l == "--" {
			continue
		}
		target = w
		break
	}
	if target == nil || target.Lit() == "-" {
		return // cd to $HOME, or back where it was
	}
	vals, ok := s.word(target, sc)
	if !ok {
		s.unknownDir(s.root, "cd goes to a folder that cannot be known")
		return
	}
	for _, v := range vals {
		for _, d := range s.paths(v, sc) {
			if st, err := os.Stat(d); err != nil || !st.IsDir() {
				if _, in := within(s.root, d); in {
					s.unknownDir(s.root, "cd goes to "+Shown(d, s.root)+", which is not a folder")
				}
				continue
			}
			if !slices.Contains(sc.dirs, d) {
				sc.dirs = append(sc.dirs, d)
			}
		}
	}
}

// redirects adds the files a statement reads its input from.
func (s *scan) redirects(st *syntax.Stmt, sc *scope) {
	c, _ := st.Cmd.(*syntax.CallExpr)
	toShell := c != nil && len(c.Args) > 0 && shells[filepath.Base(c.Args[0].Lit())]
	for _, r := range st.Redirs {
		if toShell && (r.Op == syntax.Hdoc || r.Op == syntax.DashHdoc || r.Op == syntax.WordHdoc) {
			// A script written into the command: a shell reads it.
			w := r.Hdoc
			if r.Op == syntax.WordHdoc {
				w = r.Word
			}
			if w != nil {
				vals, ok := s.word(w, sc)
				s.shellOperand(arg{vals: vals, ok: ok}, true, sc)
			}
			continue
		}
		if r.Word == nil || r.Op != syntax.RdrIn && r.Op != syntax.RdrInOut {
			continue
		}
		vals, ok := s.word(r.Word, sc)
		if !ok {
			continue // data for the command, not code, unless the command is a shell: see call
		}
		for _, v := range vals {
			for _, p := range s.paths(v, sc) {
				if _, in := within(s.root, p); in && isFile(p) {
					s.h.File(Shown(p, s.root), p)
					if toShell {
						s.shellFile(p, sc, false)
					}
				}
			}
		}
	}
}

// arg is a word of a command: the values it may have, or !ok when they
// cannot be known.
type arg struct {
	vals []string
	ok   bool
}

func (s *scan) call(words []*syntax.Word, sc *scope) {
	args := make([]arg, len(words))
	for i, w := range words {
		args[i].vals, args[i].ok = s.word(w, sc)
	}
	if !args[0].ok {
		s.unknown(sc, "a program is named by a word whose value cannot be known")
		return
	}
	for _, p := range args[0].vals {
		s.run(p, args[1:], sc)
	}
}

// Programs, by their file name.
var (
	// shells read a script (or -c a command line) as sh does.
	shells = set("sh", "bash", "dash", "zsh", "ksh", "mksh", "ash")
	// wrappers run the rest of their command line.
	wrappers = set("exec", "command", "builtin", "nohup", "nice", "time", "timeout", "env", "stdbuf", "ionice", "chronic")
	// argsOnly are builtins and programs that run nothing of the project
	// but the files their command line names (added when they are in the
	// project), and read no configuration from the folder they run in
	// (but git, which reads its repository's: see gitRepos).
	argsOnly = set(
		":", "true", "false", "echo", "printf", "test", "[", "exit", "return", "shift", "set", "unset", "export",
		"readonly", "local", "declare", "typeset", "wait", "umask", "ulimit", "break", "continue", "cd",
		"pushd", "popd", "read", "getopts", "let", "shopt", "type", "kill", "sleep", "mapfile", "readarray",
		"cat", "tac", "head", "tail", "wc", "sort", "uniq", "cut", "tr", "tee", "paste", "fold", "fmt", "nl", "rev",
		"grep", "egrep", "fgrep", "rg", "jq", "sed", "awk", "gawk", "mawk", "nawk",
		"date", "mkdir", "rmdir", "touch", "rm", "cp", "mv", "ln", "ls", "stat", "du", "df", "chmod",
		"basename", "dirname", "realpath", "readlink", "pwd", "mktemp", "which",
		"diff", "cmp", "comm", "md5sum", "sha1sum", "sha256sum", "shasum", "base64", "od", "xxd", "hexdump", "file",
		"id", "whoami", "hostname", "uname", "tput", "tty", "stty", "seq", "expr", "yes",
		"logger", "curl", "wget", "notify-send", "osascript", "say", "afplay", "paplay", "aplay", "terminal-notifier",
		"git")
	// codeArgs of argsOnly take a program in their arguments: a word
	// whose value cannot be known may be one.
	codeArgs = set("awk", "gawk", "mawk", "nawk", "sed", "jq", "osascript")
	// Interpreters run the script they are given, which imports or
	// requires files beside it.
	interpreters = set("node", "nodejs", "bun", "deno", "tsx", "ts-node", "ruby", "perl", "php", "lua", "Rscript", "pypy", "pypy3")
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

func isPython(base string) bool {
	return base == "python" || strings.HasPrefix(base, "python2") || strings.HasPrefix(base, "python3")
}

// run follows one program run with args.
func (s *scan) run(p string, args []arg, sc *scope) {
	base := filepath.Base(p)
	if strings.Contains(p, "/") {
		found := false
		for _, c := range s.paths(p, sc) {
			if _, in := within(s.root, c); in {
				s.program(c, args, sc)
				found = true
			}
		}
		if found {
			return
		}
	} else if sc.funcs[p] {
		return // its body is part of the script being read
	}
	switch {
	case p == "." || p == "source":
		s.source(args, sc)
	case p == "trap":
		s.trap(args, sc)
	case wrappers[base]:
		s.wrapper(base, args, sc)
	case shells[base]:
		s.shellArgs(args, sc)
	case base == "make" || base == "gmake":
		s.make(args, sc)
	case isPython(base) || interpreters[base]:
		s.interpreter(base, args, sc)
	case argsOnly[base]:
		s.files(base, args, sc)
	default:
		s.unknown(sc, base+" reads files its command line does not name")
	}
}

// program follows a program of the project, named by its path.
func (s *scan) program(path string, args []arg, sc *scope) {
	s.h.File(Shown(path, s.root), path)
	head, err := readHead(path)
	switch {
	case errors.Is(err, ErrNotRegular):
		s.unknown(sc, Shown(path, s.root)+" is not a regular file")
	case err != nil && sc.inMake:
		s.unknown(sc, Shown(path, s.root)+" does not exist yet: make may build it from other files")
	case err != nil:
		// Missing, it counts as missing: made later, it changes the
		// fingerprint.
	case bytes.HasPrefix(head, []byte("#!")):
		line, _, _ := bytes.Cut(head[2:], []byte("\n"))
		f := strings.Fields(string(line))
		if len(f) > 0 && filepath.Base(f[0]) == "env" {
			f = slices.DeleteFunc(f[1:], func(w string) bool { return strings.HasPrefix(w, "-") })
		}
		if len(f) == 0 {
			s.unknown(sc, Shown(path, s.root)+" names no interpreter")
			return
		}
		interp := filepath.Base(f[0])
		rest := []arg{}
		for _, w := range f[1:] {
			rest = append(rest, arg{vals: []string{w}, ok: true})
		}
		rest = append(rest, arg{vals: []string{path}, ok: true})
		s.run(interp, append(rest, args...), sc)
	case bytes.IndexByte(head, 0) >= 0:
		if sc.inMake {
			s.unknown(sc, Shown(path, s.root)+" is a program make may build from other files")
		}
		// A compiled program: its file is what runs.
	default:
		s.shellFile(path, sc, false) // no #!: sh runs it
	}
}

// readHead reads the first bytes of a program: a FIFO or a device in its
// place is ErrNotRegular, and is not read.
func readHead(path string) ([]byte, error) {
	f, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 512)
	n, _ := f.Read(buf)
	return buf[:n], nil
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// files adds the project's files an argsOnly program is given.
func (s *scan) files(base string, args []arg, sc *scope) {
	if base == "git" {
		s.gitRepos(sc)
		s.gitOptions(args, sc)
	}
	for _, a := range args {
		if !a.ok {
			if codeArgs[base] {
				s.unknown(sc, base+" is given a program that cannot be known")
			}
			continue
		}
		for _, v := range a.vals {
			switch {
			case codeArgs[base] && (strings.Contains(v, "@include") || strings.Contains(v, "@load") || base == "jq" && (v == "-L" || strings.Contains(v, "import ") || strings.Contains(v, "include "))):
				s.unknown(sc, base+" loads files its command line does not name")
			}
			for _, p := range s.paths(v, sc) {
				if _, in := within(s.root, p); in && isFile(p) {
					s.h.File(Shown(p, s.root), p)
				}
			}
		}
	}
}

// gitOptions looks at git's own options, those before its command (in
// `git -C x log -C` only the first -C is git's; the second is log's): one
// that sets configuration (-c, --config-env) may name a program to run,
// and one that points git at another repository (-C, --git-dir,
// --work-tree) or at other programs (--exec-path=) makes it obey a
// configuration that the project may have committed (a bare repository
// as ordinary files: core.fsmonitor, core.sshCommand, aliases...).
func (s *scan) gitOptions(args []arg, sc *scope) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.ok {
			s.unknown(sc, "git is given an option that cannot be known")
			return
		}
		v := a.vals[0]
		name, _, joined := strings.Cut(v, "=")
		switch {
		case !strings.HasPrefix(v, "-"):
			return // the command: what follows is its own
		case name == "-c" || name == "--config-env" || name == "-C" || name == "--git-dir" || name == "--work-tree" ||
			name == "--exec-path" && joined:
			s.unknown(sc, "git "+name+" may point git at a configuration, a repository or programs the project holds")
			return
		case (name == "--namespace" || name == "--super-prefix" || name == "--attr-source" || name == "--list-cmds") && !joined:
			i++ // its value
		}
	}
}

// gitRepos fingerprints, whole, a bare repository of the project that git
// run in one of sc's folders would take for its own: the folder itself or
// one it is in, below the project's root, as written and as its links
// resolve (git walks up the real path). Its config is then part of the
// fingerprint. (A clone's .git/config is not the project's: cloning
// writes it.)
func (s *scan) gitRepos(sc *scope) {
	dirs := sc.dirs
	if len(dirs) == 0 {
		dirs = []string{s.root}
	}
	realRoot, err := filepath.EvalSymlinks(s.root)
	if err != nil {
		realRoot = s.root
	}
	// up walks from d to root; a repository found is named under s.root.
	up := func(d, root string) {
		for ; ; d = filepath.Dir(d) {
			rel, in := within(root, d)
			if !in {
				return
			}
			if bareRepo(d) {
				dir := filepath.Join(s.root, rel)
				s.unknownDir(dir, "git runs in "+Shown(dir, s.root)+", a repository whose config may run programs")
			}
			if d == root {
				return
			}
		}
	}
	for _, d := range dirs {
		up(d, s.root)
		if real, err := filepath.EvalSymlinks(d); err == nil && real != d {
			up(real, realRoot)
		}
	}
}

// bareRepo reports whether git would take d for a repository's own
// folder: a HEAD (a file, or a link, which git accepts without following)
// beside objects/ or refs/.
func bareRepo(d string) bool {
	st, err := os.Lstat(filepath.Join(d, "HEAD"))
	if err != nil || !st.Mode().IsRegular() && st.Mode()&os.ModeSymlink == 0 {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		if st, err := os.Stat(filepath.Join(d, sub)); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}

// wrapper follows the program a wrapper runs.
func (s *scan) wrapper(base string, args []arg, sc *scope) {
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if !a.ok {
			s.unknown(sc, base+" runs a program that cannot be known")
			return
		}
		v := a.vals[0]
		switch {
		case base == "command" && (v == "-v" || v == "-V"):
			return // looks the program up, runs nothing
		case base == "env" && (v == "-S" || strings.HasPrefix(v, "--split-string")):
			s.unknown(sc, "env -S splits a command line")
			return
		case base == "env" && (v == "-C" || v == "--chdir"):
			s.unknown(sc, "env -C runs the program in another folder")
			return
		case base == "env" && (v == "-u" || v == "--unset"):
			i++
		case base == "nice" && v == "-n", base == "ionice" && (v == "-c" || v == "-n"), base == "timeout" && (v == "-s" || v == "-k" || v == "--signal" || v == "--kill-after"):
			i++
		case strings.HasPrefix(v, "-"):
		case base == "env" && strings.Contains(v, "="):
			if name, _, _ := strings.Cut(v, "="); s.loaderVar(sc, name) {
				return
			}
		case base == "timeout" && len(v) > 0 && v[0] >= '0' && v[0] <= '9':
		default:
			goto found
		}
	}
	return
found:
	for _, p := range args[i].vals {
		s.run(p, args[i+1:], sc)
	}
}

// source follows `. file` and `source file`.
func (s *scan) source(args []arg, sc *scope) {
	if len(args) == 0 {
		return
	}
	if !args[0].ok {
		s.unknown(sc, "a script sources a file that cannot be known")
		return
	}
	for _, v := range args[0].vals {
		for _, p := range s.paths(v, sc) {
			if _, in := within(s.root, p); in {
				s.h.File(Shown(p, s.root), p)
				s.shellFile(p, sc, true)
			}
		}
	}
}

// trap follows the command line `trap 'command' SIGNALS` runs.
func (s *scan) trap(args []arg, sc *scope) {
	if len(args) == 0 || args[0].ok && len(args[0].vals) == 1 && (args[0].vals[0] == "-p" || args[0].vals[0] == "-l") {
		return
	}
	s.shellOperand(args[0], true, sc)
}

// shellArgs follows `sh [options] script` and `sh -c 'command line'`.
func (s *scan) shellArgs(args []arg, sc *scope) {
	command := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.ok {
			s.unknown(sc, "a shell is given a script or options that cannot be known")
			return
		}
		v := a.vals[0]
		switch {
		case v == "--":
			if i+1 < len(args) {
				s.shellOperand(args[i+1], command, sc)
			}
			return
		case v == "-o" || v == "+o" || v == "-O" || v == "+O":
			i++
		case v == "--rcfile" || v == "--init-file":
			s.unknown(sc, "a shell reads a start-up file")
			return
		case strings.HasPrefix(v, "--"):
		case strings.HasPrefix(v, "-") || strings.HasPrefix(v, "+"):
			if strings.Contains(v[1:], "c") {
				command = true
			}
			if strings.Contains(v[1:], "s") && !command {
				return // the script comes on stdin: the hook's payload, or a file redirected (see redirects)
			}
		default:
			s.shellOperand(a, command, sc)
			return
		}
	}
}

func (s *scan) shellOperand(a arg, command bool, sc *scope) {
	if !a.ok {
		s.unknown(sc, "a shell is given a script that cannot be known")
		return
	}
	for _, v := range a.vals {
		if command {
			if sc.depth >= maxDepth {
				s.unknown(sc, "commands nest too deep to follow")
				return
			}
			c := sc.child(sc.zero, true)
			c.source = sc.source
			s.shell(v, c, "")
			continue
		}
		for _, p := range s.paths(v, sc) {
			if _, in := within(s.root, p); in {
				s.h.File(Shown(p, s.root), p)
				s.shellFile(p, sc, false)
			} else {
				s.unknown(sc, "a shell runs "+p+", a script outside the project")
			}
		}
	}
}

// shellFile reads a script of the project as the shell that runs (or
// sources) it.
func (s *scan) shellFile(path string, sc *scope, sourced bool) {
	// Read again from other folders, a script may source other files.
	key := path + "\x00" + strings.Join(sc.dirs, "\x00")
	if s.h.followed[key] {
		return
	}
	if sc.depth >= maxDepth || len(s.h.followed) >= maxFollow {
		s.unknown(sc, "scripts run or source too many others to follow")
		return
	}
	s.h.followed[key] = true
	data, err := ReadFile(path, maxScript)
	switch {
	case errors.Is(err, ErrNotRegular):
		s.unknown(sc, Shown(path, s.root)+" is not a regular file")
		return
	case errors.Is(err, ErrTooLarge):
		s.unknown(sc, Shown(path, s.root)+" is too large to read")
		return
	case err != nil:
		return // File counted it as missing (or failed to read it)
	}
	c := sc.child(path, sourced)
	s.shell(string(data), c, path)
	for _, d := range c.dirs {
		if sourced && !slices.Contains(sc.dirs, d) {
			sc.dirs = append(sc.dirs, d) // a sourced file's cd stays
		}
	}
}

// interpreter follows a script given to an interpreter: the script, and
// the folder beside it, where its imports are looked up first.
func (s *scan) interpreter(base string, args []arg, sc *scope) {
	python := isPython(base)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !a.ok {
			s.unknown(sc, base+" is given a script or options that cannot be known")
			return
		}
		v := a.vals[0]
		switch {
		case python && (v == "-m" || v == "-c"), !python && (v == "-e" || v == "-p" || v == "--eval" || v == "--print" || v == "-r" || v == "--require" || v == "--import" || v == "--loader" || v == "-M" || v == "-I"):
			s.unknown(sc, base+" "+v+" loads code its command line does not name")
			return
		case python && (v == "-W" || v == "-X"):
			i++
		case (base == "deno" || base == "bun") && v == "run":
		case strings.HasPrefix(v, "-"):
			if python && strings.ContainsAny(strings.TrimPrefix(v, "-"), "mc") && !strings.HasPrefix(v, "--") {
				s.unknown(sc, base+" "+v+" loads code its command line does not name")
				return
			}
		default:
			for _, p := range s.paths(v, sc) {
				if _, in := within(s.root, p); !in {
					s.unknown(sc, base+" runs "+p+", a script outside the project")
					continue
				}
				if !isFile(p) {
					s.unknown(sc, base+" "+v+" is not a script file")
					continue
				}
				s.h.File(Shown(p, s.root), p)
				s.unknownDir(filepath.Dir(p), base+" imports modules from beside "+filepath.Base(p))
			}
			return
		}
	}
	s.unknown(sc, base+" is given no script file")
}

// paths resolves v against every folder the commands may run in.
func (s *scan) paths(v string, sc *scope) []string {
	if v == "" {
		return nil
	}
	if filepath.IsAbs(v) {
		return []string{filepath.Clean(v)}
	}
	out := make([]string, 0, len(sc.dirs))
	for _, d := range sc.dirs {
		out = append(out, filepath.Join(d, v))
	}
	return out
}

// word returns the values a word may have, or !ok when they cannot be
// known.
func (s *scan) word(w *syntax.Word, sc *scope) ([]string, bool) {
	return s.parts(w.Parts, sc, false)
}

func (s *scan) parts(parts []syntax.WordPart, sc *scope, quoted bool) ([]string, bool) {
	out := []string{""}
	for i, part := range parts {
		vals, ok := s.part(part, sc, quoted, i == 0)
		if !ok {
			return nil, false
		}
		next := make([]string, 0, len(out)*len(vals))
		for _, a := range out {
			for _, b := range vals {
				next = append(next, a+b)
			}
		}
		if len(next) > maxWordForms {
			return nil, false
		}
		out = next
	}
	return out, true
}

func (s *scan) part(p syntax.WordPart, sc *scope, quoted, first bool) ([]string, bool) {
	switch p := p.(type) {
	case *syntax.Lit:
		v := p.Value
		if !quoted && v != "[" && v != "[[" {
			if strings.ContainsAny(v, "*?[") {
				return nil, false // a glob: what it matches changes with the files
			}
			if first && strings.HasPrefix(v, "~") {
				home, err := os.UserHomeDir()
				if err != nil || strings.HasPrefix(v, "~") && len(v) > 1 && v[1] != '/' {
					return nil, false
				}
				v = home + v[1:]
			}
		}
		return []string{unescape(v, quoted)}, true
	case *syntax.SglQuoted:
		if p.Dollar {
			return nil, false
		}
		return []string{p.Value}, true
	case *syntax.DblQuoted:
		return s.parts(p.Parts, sc, true)
	case *syntax.ParamExp:
		return s.param(p, sc)
	case *syntax.CmdSubst:
		return s.subst(p, sc)
	}
	return nil, false
}

// unescape removes a shell's backslashes: before any character outside
// quotes, before $ ` " \ and a newline inside double quotes.
func unescape(v string, quoted bool) string {
	if !strings.Contains(v, `\`) {
		return v
	}
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		if v[i] == '\\' && i+1 < len(v) && (!quoted || strings.IndexByte("$`\"\\\n", v[i+1]) >= 0) {
			i++
		}
		b.WriteByte(v[i])
	}
	return b.String()
}

func (s *scan) param(p *syntax.ParamExp, sc *scope) ([]string, bool) {
	if p.Param == nil || p.Excl || p.Length || p.Width || p.IsSet || p.Slice != nil || p.Repl != nil || p.Names != 0 || p.NestedParam != nil || len(p.Modifiers) > 0 {
		return nil, false
	}
	name := p.Param.Value
	var vals []string
	known := false
	switch {
	case name == "0":
		vals, known = []string{sc.zero}, sc.zero != ""
	case name == "BASH_SOURCE":
		if p.Index != nil {
			if w, ok := p.Index.(*syntax.Word); !ok || w.Lit() != "0" {
				return nil, false
			}
		}
		vals, known = []string{sc.source}, sc.source != ""
	case name == "PWD":
		vals, known = slices.Clone(sc.dirs), true
	case p.Index != nil:
		return nil, false
	default:
		vals, known = sc.vars[name], len(sc.vars[name]) > 0 && !sc.unset[name]
	}
	if p.Exp == nil {
		return vals, known
	}
	switch p.Exp.Op {
	case syntax.RemSmallSuffix, syntax.RemLargeSuffix:
		if !known || p.Exp.Word == nil || p.Exp.Word.Lit() != "/*" {
			return nil, false
		}
		out := make([]string, len(vals))
		for i, v := range vals {
			out[i] = filepath.Dir(v)
		}
		return out, true
	case syntax.DefaultUnset, syntax.DefaultUnsetOrNull:
		if p.Exp.Word == nil {
			return vals, known
		}
		def, ok := s.word(p.Exp.Word, sc)
		if !ok {
			return nil, false
		}
		return append(slices.Clone(vals), def...), true
	}
	return nil, false
}

// subst works out the few command substitutions scripts use to find
// their folder: $(dirname X), $(pwd), $(cd X && pwd), $(realpath X),
// $(readlink -f X), $(git rev-parse --show-toplevel).
func (s *scan) subst(c *syntax.CmdSubst, sc *scope) ([]string, bool) {
	var calls [][]*syntax.Word
	var collect func(st *syntax.Stmt) bool
	collect = func(st *syntax.Stmt) bool {
		switch cmd := st.Cmd.(type) {
		case *syntax.CallExpr:
			calls = append(calls, cmd.Args)
			return len(cmd.Args) > 0
		case *syntax.BinaryCmd:
			return (cmd.Op == syntax.AndStmt) && collect(cmd.X) && collect(cmd.Y)
		}
		return false
	}
	for _, st := range c.Stmts {
		if !collect(st) {
			return nil, false
		}
	}
	lits := func(ws []*syntax.Word) []string {
		out := make([]string, len(ws))
		for i, w := range ws {
			out[i] = w.Lit()
		}
		return out
	}
	// The value of the last command, knowing where the ones before went.
	dirs := slices.Clone(sc.dirs)
	abs := func(vals []string) []string {
		var out []string
		for _, v := range vals {
			if filepath.IsAbs(v) {
				out = append(out, filepath.Clean(v))
				continue
			}
			for _, d := range dirs {
				out = append(out, filepath.Join(d, v))
			}
		}
		return out
	}
	var last []string
	for i, args := range calls {
		l := lits(args)
		operand := func() ([]string, bool) {
			for _, w := range args[1:] {
				if x := w.Lit(); strings.HasPrefix(x, "-") {
					continue
				}
				return s.word(w, sc)
			}
			return nil, false
		}
		switch {
		case l[0] == "cd" && i < len(calls)-1:
			vals, ok := operand()
			if !ok {
				return nil, false
			}
			dirs = abs(vals)
		case l[0] == "pwd" && i == len(calls)-1:
			last = dirs
		case l[0] == "dirname" && len(args) == 2 && i == len(calls)-1:
			vals, ok := s.word(args[1], sc)
			if !ok {
				return nil, false
			}
			for _, v := range vals {
				last = append(last, filepath.Dir(v))
			}
		case (l[0] == "realpath" || l[0] == "readlink" && slices.Contains(l, "-f")) && i == len(calls)-1:
			vals, ok := operand()
			if !ok {
				return nil, false
			}
			last = abs(vals)
		case l[0] == "git" && slices.Equal(l[1:], []string{"rev-parse", "--show-toplevel"}) && i == len(calls)-1:
			last = []string{s.root}
		default:
			return nil, false
		}
	}
	return last, len(last) > 0
}

// ReadsItem is the item of a directory in which commands of the item
// owner (its name, of that kind) read files that cannot be known (see
// Command): every file of it, as Dir adds them. A handler whose command
// reads there runs only while both its owner's item and this one are
// trusted.
func ReadsItem(kind, owner, dir, root string) (Item, error) {
	var h Hasher
	h.note(fmt.Sprintf("every file of %s, where commands of %s read files that cannot be known", Shown(dir, root), owner))
	h.Dir(dir, root)
	return h.Item(kind, owner+": directory "+Shown(dir, root))
}
