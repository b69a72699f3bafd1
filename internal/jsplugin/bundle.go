package jsplugin

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/podcode/podcode/internal/jsrt"
	"github.com/podcode/podcode/internal/trust"
)

// bundleFormat changes whenever the way bundles are built changes, so that
// cached bundles from an older Podcode are not reused.
const bundleFormat = "podcode-bundle-8"

// A bundle is one CommonJS script made by esbuild: a plugin's own code (its
// files, TypeScript included, with the npm packages it imports left as
// require calls), or one npm package with everything it imports.
//
// Plugins share package bundles: twenty plugins that import zod compile zod
// once (see Programs) and evaluate it in each plugin's runtime.
type bundle struct {
	Code     string   `json:"code"`
	Packages []string `json:"packages,omitempty"` // bare specifiers the code requires (plugin bundles only)
	// Importers says where each of Packages is first imported, as
	// "file:line", so that a missing package names the importing file.
	Importers map[string]string `json:"importers,omitempty"`
	Inputs    []input           `json:"inputs"` // the files that went in, with their content hashes
}

type input struct {
	Path string `json:"path"`
	Hash string `json:"hash"`
}

// maxSourceFile is the largest file a bundle takes in: the largest files
// of popular npm packages are a few MiB.
const maxSourceFile = 32 << 20

// resolverFiles are the files esbuild's resolver reads, on its own, in the
// directories it resolves from and their parents.
var resolverFiles = []string{"package.json", "tsconfig.json", "jsconfig.json", ".pnp.data.json", ".pnp.cjs", ".pnp.js"}

// bounded is the esbuild plugin through which a bundle reads what it
// takes in. esbuild on its own reads whatever an import names, whole, and
// a plugin's import of a link to /dev/zero, of a FIFO or of a file of
// gigabytes would grow the server without end or hang its start-up (and
// bundling happens before the user trusted the code, to fingerprint it).
// So every file loaded is read here: a regular file of at most
// maxSourceFile bytes. The resolver's own reads cannot be routed here;
// before each resolution, the files it may read (resolverFiles in the
// importer's and the target's directories and their parents, and the
// package.json of a package imported by name) are checked to be regular
// files of at most that size. Not covered: files a tsconfig.json's
// "extends" names.
//
// The hash of each file's bytes, as they were given to esbuild, is kept in
// loaded: a bundle's inputs, hence the plugin's trust fingerprint, are
// those of the code bundled, even when a file changes while it builds.
func (b *Bundler) bounded(loaded *loadedFiles) api.Plugin {
	return api.Plugin{Name: "podcode", Setup: func(build api.PluginBuild) {
		build.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
			return api.OnResolveResult{}, b.checkResolve(args)
		})
		build.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: "file"}, func(args api.OnLoadArgs) (api.OnLoadResult, error) {
			data, err := trust.ReadFile(args.Path, maxSourceFile)
			if err != nil {
				return api.OnLoadResult{}, err
			}
			loaded.add(args.Path, data)
			text := withImportMeta(args.Path, string(data))
			return api.OnLoadResult{Contents: &text, Loader: api.LoaderDefault}, nil
		})
	}}
}

// importMeta is what import.meta becomes in a bundle (buildOnce defines
// it): each file that reads it declares its own, first thing on its
// first line (line numbers, hence source maps, stay as they were).
const importMeta = "__podcode_import_meta"

// withImportMeta gives the module at path its import.meta, as Node's:
// url (its file: URL), filename and dirname. A bundle is CommonJS, where
// import.meta is empty; published plugins read fileURLToPath(import.meta.url)
// to find their own files.
func withImportMeta(path, text string) string {
	if !scriptExt[strings.ToLower(filepath.Ext(path))] || !strings.Contains(text, "import.meta") {
		return text // a JSON or text file is data, whatever it says
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path)}
	decl := fmt.Sprintf("var %s = { url: %s, filename: %s, dirname: %s };", importMeta,
		strconvQuote(u.String()), strconvQuote(path), strconvQuote(filepath.Dir(path)))
	if strings.HasPrefix(text, "#!") { // a shebang must stay first
		nl := strings.IndexByte(text, '\n')
		if nl < 0 {
			return text
		}
		return text[:nl+1] + decl + text[nl+1:]
	}
	return decl + text
}

// scriptExt are the extensions of the files esbuild reads as modules.
var scriptExt = map[string]bool{".js": true, ".mjs": true, ".cjs": true, ".jsx": true, ".ts": true, ".mts": true, ".cts": true, ".tsx": true}

// loadedFiles are the hashes of the files a build loaded, by path.
type loadedFiles struct {
	mu     sync.Mutex
	hashes map[string]string
}

func (l *loadedFiles) add(path string, data []byte) {
	h := contentHash(data)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.hashes == nil {
		l.hashes = map[string]string{}
	}
	l.hashes[filepath.Clean(path)] = h
}

// contentHash is the hash a bundle's input is known by.
func contentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func (l *loadedFiles) get(path string) (string, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h, ok := l.hashes[filepath.Clean(path)]
	return h, ok
}

// checkResolve checks the files esbuild's resolver may read to resolve
// args (see bounded).
func (b *Bundler) checkResolve(args api.OnResolveArgs) error {
	var dirs []string
	if args.ResolveDir != "" {
		dirs = append(dirs, args.ResolveDir)
	}
	spec := args.Path
	switch {
	case filepath.IsAbs(spec) || strings.HasPrefix(spec, "."):
		target := spec
		if !filepath.IsAbs(target) {
			target = filepath.Join(args.ResolveDir, target)
		}
		dirs = append(dirs, target, filepath.Dir(target)) // the target may be a folder, with a package.json
	case args.ResolveDir != "" && !isBuiltin(spec):
		name := packageName(spec)
		for d := args.ResolveDir; ; d = filepath.Dir(d) {
			if err := b.checkFile(filepath.Join(d, "node_modules", name, "package.json")); err != nil {
				return err
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	for _, start := range dirs {
		for d := start; ; d = filepath.Dir(d) {
			for _, f := range resolverFiles {
				if err := b.checkFile(filepath.Join(d, f)); err != nil {
					return err
				}
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	return nil
}

// packageName is the npm package a bare specifier names: "zod" for
// "zod/v4", "@scope/pkg" for "@scope/pkg/sub".
func packageName(spec string) string {
	parts := strings.SplitN(spec, "/", 3)
	if strings.HasPrefix(spec, "@") && len(parts) > 1 {
		return parts[0] + "/" + parts[1]
	}
	return parts[0]
}

// checkFile is nil when path does not exist or is a regular file of at
// most maxSourceFile bytes (following links), once per Bundler.
func (b *Bundler) checkFile(path string) error {
	b.mu.Lock()
	err, seen := b.checked[path]
	b.mu.Unlock()
	if seen {
		return err
	}
	if fi, serr := os.Stat(path); serr == nil {
		switch {
		case !fi.Mode().IsRegular():
			err = fmt.Errorf("%s: %w", path, trust.ErrNotRegular)
		case fi.Size() > maxSourceFile:
			err = fmt.Errorf("%s: %w (more than %d bytes)", path, trust.ErrTooLarge, maxSourceFile)
		}
	}
	b.mu.Lock()
	b.checked[path] = err
	b.mu.Unlock()
	return err
}

// Bundler builds bundles with esbuild and keeps them in a cache keyed by the
// content hash of every input file: a bundle is reused only when no input
// changed. It is safe for concurrent use.
type Bundler struct {
	dir string // the disk cache; "" for none

	mu      sync.Mutex
	files   map[string]string       // path → content hash, once per Bundler (one boot)
	checked map[string]error        // path → what checkFile found, once per Bundler
	bundles map[string]*bundleEntry // key → bundle, once per Bundler: plugins share package bundles
}

type bundleEntry struct {
	once sync.Once
	b    *bundle
	err  error
}

// NewBundler returns a Bundler that caches in dir ("" disables the disk
// cache).
func NewBundler(dir string) *Bundler {
	return &Bundler{dir: dir, files: map[string]string{}, checked: map[string]error{}, bundles: map[string]*bundleEntry{}}
}

// DefaultCacheDir is the user's cache folder for Podcode's bundles.
func DefaultCacheDir() string {
	d, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "podcode", "bundles")
}

// Plugin bundles the plugin at entry (an absolute path).
//
// A plugin bundle is compiled as the body of an async function of module,
// exports and require (see programs.get), so that top-level awaits are
// awaited. It is CommonJS, with the packages and Node modules it imports
// left as require calls, unless the plugin awaits at its top level: esbuild
// keeps top-level await only in ESM output, so such a plugin is an ES module
// whose would-be import and export statements are calls instead: its
// default export goes to __podcode_module.exports (the entry is imported by
// a small module of ours), and every package and Node module it imports is
// a small CommonJS module of ours calling __podcode_require(spec) (see
// externals). CommonJS is the usual form because importing such a stand-in
// copies every export of the package (esbuild's __toESM): 0.3 MiB more per
// plugin that imports zod.
func (b *Bundler) Plugin(entry string) (*bundle, error) {
	dir := filepath.Dir(entry)
	opts := api.BuildOptions{
		EntryPoints: []string{entry},
		Plugins:     []api.Plugin{b.externals(false)},
		// goja reads an inline source map: stack traces name the plugin's
		// own files and lines, TypeScript included, not the bundle's.
		// Its sources are relative to the entry's folder (the bundle's
		// outfile is there), where goja resolves them against the
		// program's name, the entry.
		Sourcemap:     api.SourceMapInline,
		AbsWorkingDir: dir,
	}
	bu, err := b.build("plugin\x00"+entry, opts)
	if err == nil || !strings.Contains(err.Error(), "Top-level await is currently not supported") {
		return bu, err
	}
	opts.EntryPoints = nil
	opts.Stdin = &api.StdinOptions{
		Contents: "import * as m from " + strconvQuote(entry) + ";\n" +
			"__podcode_module.exports = { __esModule: true, default: m.default };\n",
		ResolveDir: dir,
		Sourcefile: "podcode:entry",
		Loader:     api.LoaderJS,
	}
	opts.Format = api.FormatESModule
	opts.Plugins = []api.Plugin{b.externals(true)}
	return b.build("plugin-esm\x00"+entry, opts)
}

// Namespaces of the modules externals makes.
const (
	nsPackage = "podcode-npm"
	nsBuiltin = "podcode-node"
)

// externals leaves the npm packages and the Node modules a plugin imports
// to the runtime: each import stays a require call, or, for ESM output
// (esm), becomes a CommonJS module of one line,
// module.exports = __podcode_require(spec); the module system answers
// with the package's own bundle or the runtime's module. A Node module the
// runtime does not provide, or Bun's, is an error at bundling, where
// esbuild names the importing file and line. An import path that looks
// like a package but resolves to a file of the project (tsconfig paths) is
// bundled.
func (b *Bundler) externals(esm bool) api.Plugin {
	type marker struct{}
	return api.Plugin{Name: "podcode-externals", Setup: func(build api.PluginBuild) {
		build.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
			spec := args.Path
			if _, again := args.PluginData.(marker); again || args.Namespace != "file" && args.Namespace != "" ||
				strings.HasPrefix(spec, ".") || strings.HasPrefix(spec, "<") || filepath.IsAbs(spec) {
				return api.OnResolveResult{}, nil
			}
			if strings.HasPrefix(spec, "bun:") {
				return api.OnResolveResult{}, fmt.Errorf("module %q is Bun's and not available to Podcode plugins (Podcode provides the module \"bun\": $, file, write, Glob)", spec)
			}
			if isBuiltin(spec) {
				if !jsrt.IsBuiltinModule(spec) {
					return api.OnResolveResult{}, fmt.Errorf("module %q is not available to Podcode plugins (docs/plugins.md, \"What a plugin may use\", lists the Node modules it provides)", spec)
				}
				if !esm {
					return api.OnResolveResult{Path: spec, External: true}, nil
				}
				return api.OnResolveResult{Path: spec, Namespace: nsBuiltin}, nil
			}
			// tsconfig paths may map a package-like path to a file of the project.
			res := build.Resolve(spec, api.ResolveOptions{Kind: args.Kind, ResolveDir: args.ResolveDir, Importer: args.Importer, PluginData: marker{}})
			if len(res.Errors) == 0 && res.Path != "" && !strings.Contains(filepath.ToSlash(res.Path), "/node_modules/") {
				return api.OnResolveResult{Path: res.Path, Namespace: res.Namespace}, nil
			}
			if !esm {
				return api.OnResolveResult{Path: spec, External: true}, nil
			}
			return api.OnResolveResult{Path: spec, Namespace: nsPackage}, nil
		})
		build.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: nsPackage}, loadExternal)
		build.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: nsBuiltin}, loadExternal)
	}}
}

func loadExternal(args api.OnLoadArgs) (api.OnLoadResult, error) {
	code := "module.exports = __podcode_require(" + strconvQuote(args.Path) + ");\n"
	return api.OnLoadResult{Contents: &code, Loader: api.LoaderJS}, nil
}

// Package bundles the npm package spec as imported from dir.
func (b *Bundler) Package(spec, dir string) (*bundle, error) {
	bu, err := b.build("package\x00"+spec+"\x00"+dir, api.BuildOptions{
		Stdin: &api.StdinOptions{
			Contents:   "module.exports = require(" + strconvQuote(spec) + ");",
			ResolveDir: dir,
			Sourcefile: "podcode:" + spec,
			Loader:     api.LoaderJS,
		},
	})
	if err != nil {
		if strings.Contains(err.Error(), "Could not resolve "+strconvQuote(spec)) {
			// esbuild's position is that of the one-line shim above: the
			// loader names the plugin file that imports the package instead.
			return nil, fmt.Errorf("npm package %q is not installed (run npm install in %s)", spec, dir)
		}
		return nil, fmt.Errorf("npm package %q: %w", spec, err)
	}
	return bu, nil
}

func strconvQuote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// build returns the bundle for key, building (or reading from the disk
// cache) at most once per Bundler; concurrent callers of one key wait for
// the first.
func (b *Bundler) build(key string, opts api.BuildOptions) (*bundle, error) {
	b.mu.Lock()
	e := b.bundles[key]
	if e == nil {
		e = &bundleEntry{}
		b.bundles[key] = e
	}
	b.mu.Unlock()
	e.once.Do(func() { e.b, e.err = b.buildOnce(key, opts) })
	return e.b, e.err
}

func (b *Bundler) buildOnce(key string, opts api.BuildOptions) (*bundle, error) {
	sum := sha256.Sum256([]byte(bundleFormat + "\x00" + key))
	cacheFile := ""
	if b.dir != "" {
		cacheFile = filepath.Join(b.dir, hex.EncodeToString(sum[:16])+".json")
		if bu := b.cached(cacheFile); bu != nil {
			return bu, nil
		}
	}
	opts.Bundle = true
	opts.Write = false
	opts.Metafile = true
	if opts.Format == api.FormatDefault {
		opts.Format = api.FormatCommonJS
	}
	opts.Platform = api.PlatformNode // node builtins stay require calls; the runtime provides some
	opts.Target = api.ESNext
	opts.MainFields = []string{"module", "main"}
	opts.Conditions = []string{"import", "require", "default"}
	opts.LogLevel = api.LogLevelSilent
	opts.Outfile = "bundle.js"
	// goja has async functions and generators but not async generators
	// or for await: esbuild lowers them. Nor does it parse explicit
	// resource management
	// using declarations and import.meta neither ("import.meta" becomes an
	// empty object, as esbuild does for CommonJS).
	opts.Supported = map[string]bool{"async-generator": false, "for-await": false, "using": false, "import-meta": false, "dynamic-import": false}
	opts.Define = map[string]string{"import.meta": importMeta}
	var loaded loadedFiles
	opts.Plugins = append([]api.Plugin{b.bounded(&loaded)}, opts.Plugins...)
	res := api.Build(opts)
	if len(res.Errors) > 0 {
		return nil, buildError(res.Errors, opts.AbsWorkingDir)
	}
	var meta struct {
		Inputs map[string]struct {
			Imports []struct {
				Path     string `json:"path"`
				External bool   `json:"external"`
			} `json:"imports"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal([]byte(res.Metafile), &meta); err != nil {
		return nil, fmt.Errorf("bundle: reading esbuild's metafile: %w", err)
	}
	bu := &bundle{}
	for _, f := range res.OutputFiles {
		if strings.HasSuffix(f.Path, ".js") {
			// A package's exports are read through its namespaces; a
			// plugin's only through the helpers (see namespace.go).
			bu.Code = rewriteInterop(string(f.Contents), strings.HasPrefix(key, "package\x00"))
		}
	}
	cwd := opts.AbsWorkingDir
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	for path, in := range meta.Inputs {
		if spec, ok := strings.CutPrefix(path, nsPackage+":"); ok {
			if !slices.Contains(bu.Packages, spec) {
				bu.Packages = append(bu.Packages, spec)
			}
			continue
		}
		if strings.HasPrefix(path, "<stdin>") || strings.Contains(path, ":") && !filepath.IsAbs(path) {
			continue
		}
		abs := path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, path)
		}
		h, ok := loaded.get(abs)
		if !ok {
			var err error
			if h, err = b.hash(abs); err != nil {
				return nil, err
			}
		}
		bu.Inputs = append(bu.Inputs, input{Path: abs, Hash: h})
		for _, imp := range in.Imports {
			spec, isPkg := strings.CutPrefix(imp.Path, nsPackage+":")
			if !isPkg && imp.External && !isBuiltin(imp.Path) && !strings.HasPrefix(imp.Path, "<") {
				spec, isPkg = imp.Path, true
			}
			if !isPkg {
				continue
			}
			if !slices.Contains(bu.Packages, spec) {
				bu.Packages = append(bu.Packages, spec)
			}
			if bu.Importers == nil {
				bu.Importers = map[string]string{}
			}
			// The least position, so the same files always name the same one.
			if at := importPosition(abs, spec); at < bu.Importers[spec] || bu.Importers[spec] == "" {
				bu.Importers[spec] = at
			}
		}
	}
	slices.SortFunc(bu.Inputs, func(a, b input) int { return strings.Compare(a.Path, b.Path) })
	slices.Sort(bu.Packages)
	if cacheFile != "" {
		b.store(cacheFile, bu)
	}
	return bu, nil
}

// buildError turns esbuild's messages into one error naming file (by its
// absolute path: esbuild's are relative to dir, its working directory, or
// the process's), line and what went wrong ("Could not resolve "zod"" for a
// missing package).
func buildError(msgs []api.Message, dir string) error {
	var parts []string
	for _, m := range msgs {
		s := m.Text
		if l := m.Location; l != nil && !internalFile(l.File) {
			file := l.File
			if !filepath.IsAbs(file) && !strings.Contains(file, ":") {
				if dir == "" {
					dir, _ = os.Getwd()
				}
				file = filepath.Join(dir, file)
			}
			s = fmt.Sprintf("%s:%d:%d: %s", file, l.Line, l.Column+1, m.Text)
		}
		parts = append(parts, s)
	}
	return errors.New(strings.Join(parts, "; "))
}

// hash returns the content hash of a file, read once per Bundler.
func (b *Bundler) hash(path string) (string, error) {
	b.mu.Lock()
	h, ok := b.files[path]
	b.mu.Unlock()
	if ok {
		return h, nil
	}
	data, err := trust.ReadFile(path, maxSourceFile)
	if err != nil {
		return "", err
	}
	h = contentHash(data)
	b.mu.Lock()
	b.files[path] = h
	b.mu.Unlock()
	return h, nil
}

// cached returns the bundle stored in file if every input still has the
// content it had when the bundle was made.
func (b *Bundler) cached(file string) *bundle {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var bu bundle
	if json.Unmarshal(data, &bu) != nil || bu.Code == "" || len(bu.Inputs) == 0 {
		return nil
	}
	for _, in := range bu.Inputs {
		if h, err := b.hash(in.Path); err != nil || h != in.Hash {
			return nil
		}
	}
	return &bu
}

// store writes bu to file atomically; a failure only costs the next boot
// a rebuild.
func (b *Bundler) store(file string, bu *bundle) {
	data, err := json.Marshal(bu)
	if err != nil {
		return
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".tmp-*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return
	}
	if err := os.Rename(tmp.Name(), file); err != nil && !errors.Is(err, fs.ErrExist) {
		os.Remove(tmp.Name())
	}
}

// internalFile reports whether an esbuild location is a module of ours
// (the entry importer, a package's or a Node module's stand-in).
func internalFile(name string) bool {
	for _, p := range []string{"podcode:", nsPackage + ":", nsBuiltin + ":", "<stdin>"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// importPosition is "file:line" of the first line of file that names spec
// in quotes (an import or a require), or the file alone when none does.
func importPosition(file, spec string) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return file
	}
	for i, line := range strings.Split(string(data), "\n") {
		for _, q := range []string{`"`, `'`, "`"} {
			if strings.Contains(line, q+spec+q) {
				return fmt.Sprintf("%s:%d", file, i+1)
			}
		}
	}
	return file
}
