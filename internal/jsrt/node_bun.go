package jsrt

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/dop251/goja"
)

// The Go half of Bun's module (node/bun.js): Glob's matching and scan.

// MaxGlobResults bounds what one Glob scan returns.
const MaxGlobResults = 100_000

func init() {
	nodeHosts["bun"] = func(r *Runtime) (*goja.Object, error) {
		h := r.vm.NewObject()
		h.Set("globValid", doublestar.ValidatePattern)
		h.Set("globMatch", doublestar.MatchUnvalidated)
		h.Set("globScan", r.globScan)
		// which(cmd, PATH, cwd) → the program's path, or null
		h.Set("which", func(cmd, path, cwd string) goja.Value {
			dir := r.abs(cwd)
			p := cmd
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			if !strings.Contains(cmd, "/") {
				p = lookProgram(cmd, path, dir)
			} else if !isProgram(p) {
				p = ""
			}
			if p == "" {
				return goja.Null()
			}
			return r.vm.ToValue(p)
		})
		return h, nil
	}
}

// globScan lists, off the loop, the paths under cwd that match pattern
// (relative to cwd, "/"-separated), at most MaxGlobResults.
func (r *Runtime) globScan(cwd, pattern string, onlyFiles, dot, follow bool) *goja.Promise {
	dir := r.abs(cwd)
	return r.async(r.host.filePool, 0, func() (any, error) {
		if _, err := os.Stat(dir); err != nil {
			return nil, sysErr("scandir", dir, err)
		}
		var opts []doublestar.GlobOption
		if onlyFiles {
			opts = append(opts, doublestar.WithFilesOnly())
		}
		if !dot {
			opts = append(opts, doublestar.WithNoHidden())
		}
		if !follow {
			opts = append(opts, doublestar.WithNoFollow())
		}
		var out []any
		err := doublestar.GlobWalk(os.DirFS(dir), pattern, func(p string, _ fs.DirEntry) error {
			if len(out) >= MaxGlobResults {
				return fmt.Errorf("more than %d matches of %q under %s, the most Glob.scan returns", MaxGlobResults, pattern, dir)
			}
			out = append(out, filepath.FromSlash(p))
			return nil
		}, opts...)
		return out, err
	}, func(v any) goja.Value { return r.vm.NewArray(v.([]any)...) })
}
