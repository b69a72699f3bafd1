package jsplugin

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A bundle's inputs, which the plugin's trust fingerprint is made of, are
// the hashes of the bytes esbuild bundled, not of a read at another time:
// a file that changed between the two (another writer at boot) would give
// code from one content under the fingerprint of another. A stale hash
// the Bundler holds for the file stands for that other read here.
func TestBundleInputsAreWhatWasBundled(t *testing.T) {
	dir := t.TempDir()
	entry := filepath.Join(dir, "p.js")
	helper := filepath.Join(dir, "helper.js")
	src := `export const greet = () => "hello from the helper";`
	if err := os.WriteFile(entry, []byte(`import {greet} from "./helper.js"; export default {id: "p", server: async () => ({})}; greet();`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(helper, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	b := NewBundler("")
	b.files[helper] = strings.Repeat("0", 64) // the content of another moment
	bu, err := b.Plugin(entry)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(bu.Code, "hello from the helper") {
		t.Fatalf("the helper is not in the bundle:\n%s", bu.Code)
	}
	sum := sha256.Sum256([]byte(src))
	found := false
	for _, in := range bu.Inputs {
		if in.Path == helper {
			found = true
			if in.Hash != hex.EncodeToString(sum[:]) {
				t.Errorf("the helper's input hash %s is not that of the bytes bundled", in.Hash)
			}
		}
	}
	if !found {
		t.Errorf("the helper is not among the inputs: %+v", bu.Inputs)
	}
}

// import.meta is declared in a module that reads it, after its shebang;
// a JSON or text file that merely says "import.meta" stays as it is.
func TestImportMetaOnlyInModules(t *testing.T) {
	const decl = "var " + importMeta + " = "
	for _, c := range []struct {
		path, text string
		declared   bool
		prefix     string
	}{
		{"/p/a.js", "console.log(import.meta.url)", true, decl},
		{"/p/a.MTS", "export const u = import.meta.dirname", true, decl},
		{"/p/cli.js", "#!/usr/bin/env node\nimport.meta.url", true, "#!/usr/bin/env node\n" + decl},
		{"/p/cli.js", "#!/usr/bin/env node import.meta", false, "#!"},
		{"/p/a.js", "export const x = 1", false, "export"},
		{"/p/data.json", `{"doc": "import.meta.url is a file: URL"}`, false, "{"},
		{"/p/notes.txt", "import.meta", false, "import.meta"},
	} {
		got := withImportMeta(c.path, c.text)
		body := c.text // what follows the declaration, as it was
		if i := strings.IndexByte(c.text, '\n'); i >= 0 {
			body = c.text[i+1:]
		}
		if strings.Contains(got, decl) != c.declared || !strings.HasPrefix(got, c.prefix) || !strings.HasSuffix(got, body) {
			t.Errorf("%s %q:\n%s", c.path, c.text, got)
		}
	}
	if got := withImportMeta("/p/a.js", "import.meta.url"); !strings.Contains(got, `url: "file:///p/a.js"`) || !strings.Contains(got, `dirname: "/p"`) {
		t.Errorf("the declaration: %s", got)
	}
}
