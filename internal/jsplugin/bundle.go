package jsplugin

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/evanw/esbuild/pkg/api"

	"github.com/podcode/podcode/internal/trust"
)

// bundleFormat changes whenever the way bundles are built changes, so that
// cached bundles from an older Podcode are not reused.
const bundleFormat = "podcode-bundle-2"

// A bundle is one CommonJS script made by esbuild: a plugin's own code (its
// files, TypeScript included, with the npm packages it imports left as
// require calls), or one npm package with everything it imports.
//
// Plugins share package bundles: twenty plugins that import zod compile zod
// once (see Programs) and evaluate it in each plugin's runtime.
type bundle struct {
	Code     string   `json:"code"`
	Packages []string `json:"packages,omitempty"` // bare specifiers the code requires (plugin bundles only)
	Inputs   []input  `json:"inputs"`             // the files that went in, with their content hashes
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
func (b *Bundler) bounded() api.Plugin {
	return api.Plugin{Name: "podcode", Setup: func(build api.PluginBuild) {
		build.OnResolve(api.OnResolveOptions{Filter: ".*"}, func(args api.OnResolveArgs) (api.OnResolveResult, error) {
			return api.OnResolveResult{}, b.checkResolve(args)
		})
		build.OnLoad(api.OnLoadOptions{Filter: ".*", Namespace: "file"}, func(args api.OnLoadArgs) (api.OnLoadResult, error) {
			data, err := trust.ReadFile(args.Path, maxSourceFile)
			if err != nil {
				return api.OnLoadResult{}, err
			}
			text := string(data)
			return api.OnLoadResult{Contents: &text, Loader: api.LoaderDefault}, nil
		})
	}}
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
func (b *Bundler) Plugin(entry string) (*bundle, error) {
	return b.build("plugin\x00"+entry, api.BuildOptions{
		EntryPoints: []string{entry},
		Packages:    api.PackagesExternal,
		// goja reads an inline source map: stack traces name the plugin's
		// own files and lines, TypeScript included, not the bundle's.
		Sourcemap: api.SourceMapInline,
	})
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
		hint := ""
		if strings.Contains(err.Error(), "Could not resolve "+strconvQuote(spec)) {
			hint = " (is it installed? run npm install in " + dir + ")"
		}
		return nil, fmt.Errorf("npm package %q: %w%s", spec, err, hint)
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
	opts.Format = api.FormatCommonJS
	opts.Platform = api.PlatformNode // node builtins stay require calls; the runtime provides some
	opts.Target = api.ESNext
	opts.MainFields = []string{"module", "main"}
	opts.Conditions = []string{"import", "require", "default"}
	opts.LogLevel = api.LogLevelSilent
	opts.Outfile = "bundle.js"
	opts.Plugins = append(opts.Plugins, b.bounded())
	res := api.Build(opts)
	if len(res.Errors) > 0 {
		return nil, buildError(res.Errors)
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
			bu.Code = string(f.Contents)
		}
	}
	cwd, _ := os.Getwd()
	for path, in := range meta.Inputs {
		if strings.HasPrefix(path, "<stdin>") || strings.Contains(path, ":") && !filepath.IsAbs(path) {
			continue
		}
		abs := path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, path)
		}
		h, err := b.hash(abs)
		if err != nil {
			return nil, err
		}
		bu.Inputs = append(bu.Inputs, input{Path: abs, Hash: h})
		for _, imp := range in.Imports {
			if imp.External && !isBuiltin(imp.Path) && !slices.Contains(bu.Packages, imp.Path) {
				bu.Packages = append(bu.Packages, imp.Path)
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

// buildError turns esbuild's messages into one error naming file, line and
// what went wrong ("Could not resolve "zod"" for a missing package).
func buildError(msgs []api.Message) error {
	var parts []string
	for _, m := range msgs {
		s := m.Text
		if l := m.Location; l != nil && !strings.HasPrefix(l.File, "podcode:") {
			s = fmt.Sprintf("%s:%d:%d: %s", l.File, l.Line, l.Column+1, m.Text)
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
	sum := sha256.Sum256(data)
	h = hex.EncodeToString(sum[:])
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
