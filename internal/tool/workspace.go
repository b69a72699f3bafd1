package tool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Workspace is where file tools and bash may work: the project directory and
// the directories the config allows (tools.allowed_paths).
type Workspace struct {
	Root    string   // the project directory, absolute
	Allowed []string // more directories, absolute
}

type workspaceKey struct{}

// WithWorkspace returns ctx whose built-in tool calls work in w rather than
// in the workspace the tools were made with: a tenant's turn carries its
// tenant's workspace this way, and sub-agents inherit it with the context.
func WithWorkspace(ctx context.Context, w Workspace) context.Context {
	return context.WithValue(ctx, workspaceKey{}, w)
}

// WorkspaceFrom returns the workspace ctx carries, or def when it carries
// none.
func WorkspaceFrom(ctx context.Context, def Workspace) Workspace {
	if w, ok := ctx.Value(workspaceKey{}).(Workspace); ok {
		return w
	}
	return def
}

// Resolve returns the absolute form of path (relative paths are relative to
// Root), refusing a path outside the workspace. Symbolic links are followed
// as far as the path exists, so a link inside the project cannot lead out.
func (w Workspace) Resolve(path string) (string, error) {
	if path == "" {
		return "", errors.New("empty path")
	}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.Root, p)
	}
	p = filepath.Clean(p)
	real, err := evalExisting(p)
	if err != nil {
		return "", err
	}
	for _, root := range append([]string{w.Root}, w.Allowed...) {
		r, err := evalExisting(filepath.Clean(root))
		if err != nil {
			continue
		}
		if within(real, r) {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is outside the project (%s); list its directory in tools.allowed_paths to allow it", path, w.Root)
}

func within(p, root string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// evalExisting resolves symbolic links in the longest existing prefix of p
// and appends the rest unchanged.
func evalExisting(p string) (string, error) {
	rest := ""
	cur := p
	for {
		real, err := filepath.EvalSymlinks(cur)
		if err == nil {
			return filepath.Join(real, rest), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p, nil
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// rel shows path relative to the project when it is inside it.
func (w Workspace) rel(path string) string {
	if r, err := filepath.Rel(w.Root, path); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return path
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
