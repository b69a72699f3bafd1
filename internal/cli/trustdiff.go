package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/safetext"
	"github.com/podcode/podcode/internal/trust"
)

// digestsFile, in the user's config folder next to the trust store, keeps
// a digest of each file (and each command line) of the items `podcode
// trust` recorded, so that a later change can be told file by file. The
// trust store keeps only an item's fingerprint; an item trusted without
// podcode trust (plugin init) or before this file existed has no digests,
// and its change is told as a whole.
const digestsFile = "trust-files.json"

// digests maps a project's directory to item keys to each entry of the
// item's Runs and its digest: "sha256:…" for a file, "" for a command or a
// setting (only its presence is compared) or a file that cannot be read.
type digests struct {
	path     string
	Projects map[string]map[string]map[string]string `json:"projects"`
}

func openDigests() (*digests, error) {
	dir := bootOptions.UserDir
	if dir == "" {
		var err error
		if dir, err = config.UserDir(); err != nil {
			return nil, err
		}
	}
	d := &digests{path: filepath.Join(dir, digestsFile), Projects: map[string]map[string]map[string]string{}}
	data, err := os.ReadFile(d.path)
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err != nil {
		return d, err
	}
	if err := json.Unmarshal(data, d); err != nil {
		return &digests{path: d.path, Projects: map[string]map[string]map[string]string{}}, fmt.Errorf("%s: %w", d.path, err)
	}
	if d.Projects == nil {
		d.Projects = map[string]map[string]map[string]string{}
	}
	return d, nil
}

// snapshot is the digest of each entry of it.Runs.
func snapshot(project string, it trust.Item) map[string]string {
	m := make(map[string]string, len(it.Runs))
	for _, r := range it.Runs {
		m[r] = ""
		if !isFileEntry(r) {
			continue
		}
		p := r
		if !filepath.IsAbs(p) {
			p = filepath.Join(project, p)
		}
		if f, err := os.Open(p); err == nil {
			h := sha256.New()
			if _, err := io.Copy(h, f); err == nil {
				m[r] = "sha256:" + hex.EncodeToString(h.Sum(nil))
			}
			f.Close()
		}
	}
	return m
}

// record keeps the digests of the items just trusted and forgets those
// just forgotten.
func (d *digests) record(project string, items []trust.Item, forget []string) error {
	p := d.Projects[project]
	if p == nil {
		p = map[string]map[string]string{}
		d.Projects[project] = p
	}
	for _, it := range items {
		p[it.Key()] = snapshot(project, it)
	}
	for _, k := range forget {
		delete(p, k)
	}
	data, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(d.path), 0o700); err != nil {
		return err
	}
	tmp := d.path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, d.path)
}

// change is what differs in an item since it was trusted.
type change struct {
	known                   bool // false: no digests were kept for the item
	added, removed, changed []string
}

func (d *digests) diff(project string, it trust.Item) change {
	if d == nil {
		return change{}
	}
	old, ok := d.Projects[project][it.Key()]
	if !ok {
		return change{}
	}
	now := snapshot(project, it)
	c := change{known: true}
	for r, h := range now {
		switch oh, was := old[r]; {
		case !was:
			c.added = append(c.added, r)
		case oh != h:
			c.changed = append(c.changed, r)
		}
	}
	for r := range old {
		if _, ok := now[r]; !ok {
			c.removed = append(c.removed, r)
		}
	}
	slices.Sort(c.added)
	slices.Sort(c.removed)
	slices.Sort(c.changed)
	return c
}

func printChanges(w io.Writer, c change) {
	if !c.known {
		fmt.Fprintln(w, "      changed since it was trusted; which files changed is not known (it was not trusted with podcode trust)")
		return
	}
	if len(c.added)+len(c.removed)+len(c.changed) == 0 {
		// Same files, same content: what changed is something the
		// fingerprint covers beyond them (a setting, a guard's shape).
		fmt.Fprintln(w, "      changed since it was trusted, though none of its files did")
		return
	}
	for _, l := range []struct {
		mark  string
		paths []string
	}{{"+", c.added}, {"-", c.removed}, {"~", c.changed}} {
		for _, p := range l.paths {
			fmt.Fprintf(w, "      %s %s\n", l.mark, safetext.Line(p))
		}
	}
}

// isFileEntry tells a file of an item's Runs from a command line ("$ …")
// or a setting ("key = value").
func isFileEntry(r string) bool {
	return !strings.HasPrefix(r, "$ ") && !strings.Contains(r, " = ")
}

// splitRuns splits an item's Runs into files and the rest, each in order.
func splitRuns(runs []string) (files, other []string) {
	for _, r := range runs {
		if isFileEntry(r) {
			files = append(files, r)
		} else {
			other = append(other, r)
		}
	}
	return files, other
}

// packageFiles is how many files make a plugin a folder told as one line.
const packageFiles = 4

// isPackage reports whether the item is a package, told as one line with
// its file count: a plugin or manifest plugin folder with a package.json,
// a package from node_modules, or one of packageFiles files or more.
func isPackage(project string, it trust.Item, files []string) bool {
	if it.Kind != trust.KindPlugin && it.Kind != trust.KindManifest {
		return false
	}
	if len(files) >= packageFiles {
		return true
	}
	for _, f := range files {
		if strings.Contains(filepath.ToSlash(f), "node_modules/") {
			return true
		}
	}
	dir := it.Name
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(project, dir)
	}
	st, err := os.Stat(filepath.Join(dir, "package.json"))
	return err == nil && st.Mode().IsRegular()
}

// selectItems is the items named by paths (an item's name or a file it
// runs), or all of them when there are none; a path that names nothing is
// an error that lists the names.
func selectItems(project string, asked []trust.Asked, paths []string) ([]trust.Asked, error) {
	if len(paths) == 0 {
		return asked, nil
	}
	norm := func(p string) string {
		if filepath.IsAbs(p) {
			if rel, err := filepath.Rel(project, p); err == nil && !strings.HasPrefix(rel, "..") {
				p = rel
			}
		}
		return filepath.ToSlash(filepath.Clean(p))
	}
	var out []trust.Asked
	for _, p := range paths {
		want := norm(p)
		found := false
		for _, it := range asked {
			hit := norm(it.Name) == want
			for _, r := range it.Runs {
				hit = hit || (isFileEntry(r) && norm(r) == want)
			}
			if hit {
				found = true
				if !slices.ContainsFunc(out, func(o trust.Asked) bool { return o.Key() == it.Key() }) {
					out = append(out, it)
				}
			}
		}
		if !found {
			var names []string
			for _, it := range asked {
				names = append(names, it.Name)
			}
			return nil, fmt.Errorf("%s is none of the code this project runs (%s)", p, orNone(names))
		}
	}
	return out, nil
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "it runs none"
	}
	return "it runs " + strings.Join(s, ", ")
}
