package jsplugin

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/podcode/podcode/internal/config"
)

// Where a plugin came from.
const (
	FromConfig     = "config"
	FromDiscovered = "discovered"
)

// extensions of plugin files found by auto-discovery (SPEC H2).
var extensions = []string{".ts", ".mts", ".js", ".mjs", ".cjs"}

// source is one plugin to load, in pipeline order.
type source struct {
	spec    string // as written, or the file's path when discovered
	from    string // FromConfig or FromDiscovered
	dir     string // where relative specifiers and packages resolve
	where   string // file:line of the config entry, for messages
	project bool
}

// sources lists the plugins to load in pipeline order (SPEC H2): every
// config-listed plugin in array order, then the files directly in each
// plugin folder, each folder alphabetically: Podcode's own first
// (<cwd>/.podcode/plugins, then the user's config folder's plugins), then
// opencode's, where opencode finds them (opencodeFolders). A file the
// config already names is not loaded again from its folder. A folder of
// opencode's that cannot be read (one up the tree, not the user's to
// read) is skipped with a warning; Podcode's own is an error.
func sources(cwd string, cfg *config.Config, log *slog.Logger) ([]source, error) {
	var out []source
	named := map[string]bool{}
	for _, ref := range cfg.Plugin {
		src := source{spec: ref.Spec, from: FromConfig, dir: ref.Dir,
			where: fmt.Sprintf("%s:%d", ref.File, ref.Line), project: ref.Project}
		out = append(out, src)
		if p, ok := src.filePath(); ok {
			named[p] = true
		}
	}
	userDir := cfg.UserDir
	if userDir == "" {
		var err error
		if userDir, err = config.UserDir(); err != nil {
			return nil, err
		}
	}
	folders := append([]folder{{dir: filepath.Join(cwd, ".podcode", "plugins"), project: true}, {dir: filepath.Join(userDir, "plugins")}},
		opencodeFolders(cwd, userDir)...)
	for _, d := range folders {
		entries, err := os.ReadDir(d.dir)
		switch {
		case errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR):
			continue
		case err != nil && d.opencode:
			log.Warn("plugins: an opencode plugin folder cannot be read; its plugins are not loaded", "folder", d.dir, "error", err.Error())
			continue
		case err != nil:
			return nil, fmt.Errorf("plugins: reading %s: %w", d.dir, err)
		}
		var names []string
		for _, e := range entries {
			if !e.IsDir() && slices.Contains(extensions, filepath.Ext(e.Name())) && !strings.HasSuffix(e.Name(), ".d.ts") {
				names = append(names, e.Name())
			}
		}
		slices.Sort(names) // byte order: the same on every machine and every start
		for _, n := range names {
			p := filepath.Join(d.dir, n)
			if named[p] {
				continue
			}
			out = append(out, source{spec: p, from: FromDiscovered, dir: d.dir, where: p, project: d.project})
		}
	}
	return out, nil
}

// folder is a folder of plugin files, whether it is the project's, and
// whether it is opencode's.
type folder struct {
	dir      string
	project  bool
	opencode bool
}

// opencodeFolders are the folders opencode loads plugins from, in its
// order: plugin and plugins of every .opencode folder from cwd up to the
// root of the git worktree holding it (cwd alone outside git), the
// project's; then those of the user's opencode config folder
// ($XDG_CONFIG_HOME/opencode, beside Podcode's own), the user's.
func opencodeFolders(cwd, userDir string) []folder {
	var out []folder
	top := cwd
	for d := cwd; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			top = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	for d := cwd; ; d = filepath.Dir(d) {
		for _, sub := range []string{"plugin", "plugins"} {
			out = append(out, folder{dir: filepath.Join(d, ".opencode", sub), project: true, opencode: true})
		}
		if d == top || filepath.Dir(d) == d {
			break
		}
	}
	oc := filepath.Join(filepath.Dir(userDir), "opencode")
	for _, sub := range []string{"plugin", "plugins"} {
		out = append(out, folder{dir: filepath.Join(oc, sub), opencode: true})
	}
	return out
}

// disabledName returns the entry of disabled that names this source before
// it is imported: its specifier as written, its npm package name, or its
// file name without the extension. A plugin disabled by id only is skipped
// after import (its id is known only then), before server() runs.
func (s source) disabledName(disabled []string) string {
	names := []string{s.spec, strings.TrimSuffix(filepath.Base(s.spec), filepath.Ext(s.spec))}
	if !strings.HasPrefix(s.spec, ".") && !filepath.IsAbs(s.spec) && !strings.HasPrefix(s.spec, "file://") {
		name, _ := splitPackage(s.spec)
		names = append(names, name)
	}
	for _, d := range disabled {
		if slices.Contains(names, d) {
			return d
		}
	}
	return ""
}

// filePath is the file a path specifier names (file:// URL, absolute, or
// relative to the config that names it), before it is resolved; ok is
// false for a package.
func (s source) filePath() (string, bool) {
	switch {
	case strings.HasPrefix(s.spec, "file://"):
		u, err := url.Parse(s.spec)
		if err != nil {
			return "", false
		}
		return filepath.Clean(u.Path), true
	case filepath.IsAbs(s.spec):
		return filepath.Clean(s.spec), true
	case strings.HasPrefix(s.spec, "."):
		return filepath.Join(s.dir, s.spec), true
	}
	return "", false
}

// resolve returns the entry file of a plugin specifier: a file:// URL, an
// absolute path, a path starting with . (relative to the config file that
// names it), or an npm package name (with an optional subpath) resolved from
// the node_modules beside that config file or above it.
func (s source) resolve() (string, error) {
	spec := s.spec
	if strings.HasPrefix(spec, "file://") {
		if _, err := url.Parse(spec); err != nil {
			return "", fmt.Errorf("bad file URL %q: %w", spec, err)
		}
	}
	if p, ok := s.filePath(); ok {
		return existingFile(p)
	}
	entry, err := resolvePackage(spec, s.dir)
	if err != nil {
		// "plugins/x.ts" reads as an npm package; when a file or folder of
		// that name is there, the author meant the path.
		if _, statErr := os.Stat(filepath.Join(s.dir, spec)); statErr == nil {
			return "", fmt.Errorf("%q is read as an npm package name, but %s exists: a relative path must start with \"./\"; write \"./%s\"",
				spec, filepath.Join(s.dir, spec), filepath.ToSlash(spec))
		}
	}
	return entry, err
}

func existingFile(p string) (string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return "", fmt.Errorf("no plugin file at %s", p)
	}
	if st.IsDir() {
		for _, idx := range []string{"index.ts", "index.js", "index.mjs"} {
			if q := filepath.Join(p, idx); fileExists(q) {
				return q, nil
			}
		}
		return "", fmt.Errorf("%s is a directory without an index.ts or index.js", p)
	}
	return filepath.Clean(p), nil
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// splitPackage splits "@scope/name/sub/path" into the package name and the
// subpath ("" or "./sub/path").
func splitPackage(spec string) (name, sub string) {
	parts := strings.SplitN(spec, "/", 3)
	n := 1
	if strings.HasPrefix(spec, "@") && len(parts) > 1 {
		n = 2
	}
	name = strings.Join(parts[:min(n, len(parts))], "/")
	if rest := strings.TrimPrefix(spec, name); rest != "" {
		sub = "." + rest
	}
	return name, sub
}

// resolvePackage finds an npm package's entry as Node would for an import:
// node_modules in dir and its parents, then package.json's exports, module
// or main.
func resolvePackage(spec, dir string) (string, error) {
	name, sub := splitPackage(spec)
	for d := dir; ; d = filepath.Dir(d) {
		pkgDir := filepath.Join(d, "node_modules", name)
		if data, err := os.ReadFile(filepath.Join(pkgDir, "package.json")); err == nil {
			return packageEntry(pkgDir, data, sub)
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("npm package %q is not installed in node_modules beside %s (run npm install there)", name, dir)
		}
	}
}

func packageEntry(pkgDir string, data []byte, sub string) (string, error) {
	var pkg struct {
		Exports json.RawMessage `json:"exports"`
		Module  string          `json:"module"`
		Main    string          `json:"main"`
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return "", fmt.Errorf("%s: bad package.json: %w", pkgDir, err)
	}
	key := "."
	if sub != "" {
		key = sub
	}
	if len(pkg.Exports) > 0 {
		if target := exportTarget(pkg.Exports, key); target != "" {
			return inPackage(pkgDir, target)
		}
		if sub != "" {
			return "", fmt.Errorf("%s does not export %q", pkgDir, sub)
		}
	}
	if sub != "" {
		return inPackage(pkgDir, sub)
	}
	for _, m := range []string{pkg.Module, pkg.Main} {
		if m != "" {
			return inPackage(pkgDir, m)
		}
	}
	return existingFile(pkgDir)
}

// inPackage resolves target inside pkgDir; like Node, it refuses a target
// that leads out of the package.
func inPackage(pkgDir, target string) (string, error) {
	p := filepath.Join(pkgDir, target)
	if rel, err := filepath.Rel(pkgDir, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s: entry %q is outside the package", pkgDir, target)
	}
	return existingFile(p)
}

// exportTarget reads package.json "exports" for key, preferring the import
// condition, then default, then require.
func exportTarget(raw json.RawMessage, key string) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if key == "." {
			return s
		}
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	if v, ok := m[key]; ok {
		return conditionTarget(v)
	}
	if key == "." {
		for k := range m {
			if strings.HasPrefix(k, ".") {
				return ""
			}
		}
		return conditionTarget(raw) // {"import": ..., "default": ...} for "."
	}
	return ""
}

func conditionTarget(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return ""
	}
	for _, c := range []string{"import", "node", "default", "require"} {
		if v, ok := m[c]; ok {
			if t := conditionTarget(v); t != "" {
				return t
			}
		}
	}
	return ""
}
