package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxCompletions is the most values one completion/complete answers (the
// protocol's bound); hasMore and total say when there were more.
const maxCompletions = 100

// complete is the CompletionHandler:
//
//   - ref/prompt: an argument whose argument-hint token gives alternatives
//     ("[major|minor|patch]") is completed with those that start with the
//     value (any case); one that names a file (its token says file, path,
//     dir or starts with "@") with the project's paths (completePath).
//     Other arguments have no values to offer: an empty list.
//   - ref/resource: the project's template (resources/templates/list) and
//     its variable "path", with the project's paths.
//
// A prompt or template that does not exist, or an argument it does not
// have, is invalid params (-32602), as the protocol says.
func (f *features) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	ref, arg := req.Params.Ref, req.Params.Argument
	_, root, err := f.root(ctx)
	if err != nil {
		return nil, f.refusal(err)
	}
	var values []string
	switch ref.Type {
	case "ref/prompt":
		p := f.prompts[ref.Name]
		if p == nil {
			return nil, invalid(fmt.Errorf("unknown prompt %q", ref.Name))
		}
		a := p.arg(arg.Name)
		if a == nil {
			return nil, invalid(fmt.Errorf("prompt %s has no argument %q", ref.Name, arg.Name))
		}
		switch {
		case len(a.choices) > 0:
			for _, c := range a.choices {
				if strings.HasPrefix(strings.ToLower(c), strings.ToLower(arg.Value)) {
					values = append(values, c)
				}
			}
		case a.paths:
			values = completePath(root, arg.Value)
		}
	case "ref/resource":
		if ref.URI != projectTemplate(root) {
			return nil, invalid(fmt.Errorf("no resource template %q here (the project's is %s)", ref.URI, projectTemplate(root)))
		}
		if arg.Name != "path" {
			return nil, invalid(fmt.Errorf("the template %s has no variable %q (it has: path)", ref.URI, arg.Name))
		}
		values = completePath(root, arg.Value)
	default:
		return nil, invalid(fmt.Errorf("a completion's ref is ref/prompt or ref/resource, not %q", ref.Type))
	}
	res := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	if len(values) > maxCompletions {
		res.Completion.HasMore, res.Completion.Total = true, len(values)
		values = values[:maxCompletions]
	}
	res.Completion.Values = append(res.Completion.Values, values...)
	return res, nil
}

// completePath is the paths of the project (beneath root) that start with
// prefix, a slash-separated path relative to it: the entries of prefix's
// directory whose names start with its last part, directories with a "/"
// after them, in name order. Dot files only for a last part that starts
// with "."; .git, node_modules and .podcode never. The directory is read
// through an os.Root (no step leads out of the project), at most
// maxDirEntries entries of it; a prefix out of the project has none.
func completePath(root, prefix string) []string {
	dir, base := path.Split(prefix)
	if dir != "" && (path.IsAbs(dir) || !filepath.IsLocal(filepath.FromSlash(strings.TrimSuffix(dir, "/")))) {
		return nil
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil
	}
	defer r.Close()
	where := "."
	if dir != "" {
		where = filepath.FromSlash(strings.TrimSuffix(dir, "/"))
	}
	entries, err := readDir(r, where)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, base) || skipDir(name) || strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".") {
			continue
		}
		v := dir + name
		if isDir(r, filepath.Join(where, name), e) {
			v += "/"
		}
		out = append(out, v)
	}
	return out
}

// isDir reports a directory entry that is, or links to, a directory
// beneath r.
func isDir(r *os.Root, rel string, e os.DirEntry) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&os.ModeSymlink == 0 {
		return false
	}
	fi, err := r.Stat(rel)
	return err == nil && fi.IsDir()
}
