package jsplugin

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/evanw/esbuild/pkg/api"
)

// tsWithMap is TypeScript compiled by esbuild with an inline source map.
func tsWithMap(t *testing.T, src string) string {
	t.Helper()
	res := api.Transform(src, api.TransformOptions{Loader: api.LoaderTS, Sourcemap: api.SourceMapInline, Sourcefile: "lib/x.ts"})
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors[0].Text)
	}
	return string(res.Code)
}

func TestSourceMapRoundTrip(t *testing.T) {
	code, sm := splitSourceMap(tsWithMap(t, "type A = number\nconst a: A = 1\n\nfunction f(x: A) {\n  return x + a\n}\nexport { f }\n"))
	if sm == nil || strings.Contains(code, sourceMapPrefix) {
		t.Fatal("no source map read")
	}
	var mappings string
	if err := json.Unmarshal(sm.raw["mappings"], &mappings); err != nil {
		t.Fatal(err)
	}
	if got := encodeMappings(sm.mappings); got != mappings {
		t.Errorf("re-encoded %q, want %q", got, mappings)
	}
}

// A parse error of a plugin bundle names the plugin's file and line, not
// the bundle's.
func TestSyntaxErrorNamesTheSourceLine(t *testing.T) {
	code := tsWithMap(t, "type A = number\n\nconst a: A = 1\nconst b: A = 2\nexport { a, b }\n")
	code = strings.Replace(code, "const b = 2", "const b b = 2", 1) // what goja cannot parse, on source line 4
	_, sm := splitSourceMap(code)
	_, err := compile("/p/plugin.ts", code, sm)
	if err == nil || !strings.HasPrefix(err.Error(), "/p/lib/x.ts:4:") || !strings.Contains(err.Error(), "SyntaxError: ") {
		t.Errorf("error %v, want one naming /p/lib/x.ts:4", err)
	}
}

// The source map is esbuild's output, but read without trusting it.
func FuzzDecodeMappings(f *testing.F) {
	f.Add("AAAA;AACA,EAAE;;AAGF")
	f.Add("gBAAgB,CAAC")
	f.Add("A,,;;//+")
	f.Fuzz(func(t *testing.T, s string) {
		lines, err := decodeMappings(s)
		if err != nil {
			return
		}
		again, err := decodeMappings(encodeMappings(lines))
		if err != nil || len(again) != len(lines) {
			t.Fatalf("re-encoding %q: %v", s, err)
		}
		sm := &sourceMap{mappings: lines, sources: []string{"a"}}
		sm.lookup(1, 5)
	})
}
