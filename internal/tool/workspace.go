package tool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// Workspace is where file tools and bash may work: the project directory and
// the directories the config allows (tools.allowed_paths).
type Workspace struct {
	Root    string   // the project directory, absolute
	Allowed []string // more directories, absolute
	// Sandbox, when set, runs bash confined by the operating system to
	// Root and Allowed (see Confine); nil runs it as the server's user.
	Sandbox *Sandbox
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
//
// Resolve checks a path at one moment: what is then done with it by name
// can be redirected by a concurrent change. The file tools do not open
// what Resolve returns; they open beneath the workspace's directories (see
// files).
func (w Workspace) Resolve(path string) (string, error) {
	p, _, _, err := w.resolve(path)
	return p, err
}

// resolve is Resolve that also returns the path with its symbolic links
// resolved and the resolved directory of the workspace it lies beneath.
func (w Workspace) resolve(path string) (p, real, root string, err error) {
	if path == "" {
		return "", "", "", errors.New("empty path")
	}
	p = path
	if !filepath.IsAbs(p) {
		p = filepath.Join(w.Root, p)
	}
	p = filepath.Clean(p)
	if real, err = evalExisting(p); err != nil {
		return "", "", "", err
	}
	for _, dir := range w.dirs() {
		r, err := evalExisting(filepath.Clean(dir))
		if err != nil {
			continue
		}
		if within(real, r) {
			return p, real, r, nil
		}
	}
	return "", "", "", fmt.Errorf("%s is outside the project (%s); list its directory in tools.allowed_paths to allow it", path, w.Root)
}

// dirs are the directories of the workspace: Root, then Allowed.
func (w Workspace) dirs() []string { return append([]string{w.Root}, w.Allowed...) }

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
