package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/manifest"
)

// block is one fenced block of a docs page.
type block struct {
	lang, text string
	line       int // of the opening fence
}

// fenced returns the fenced blocks of a docs page, indented ones included.
func fenced(t *testing.T, page string) []block {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", page))
	if err != nil {
		t.Fatal(err)
	}
	var out []block
	var cur *block
	var indent string
	for i, l := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(l, " ")
		if cur == nil {
			if lang, ok := strings.CutPrefix(trimmed, "```"); ok {
				cur, indent = &block{lang: strings.TrimSpace(lang), line: i + 1}, l[:len(l)-len(trimmed)]
			}
			continue
		}
		if strings.HasPrefix(trimmed, "```") {
			out = append(out, *cur)
			cur = nil
			continue
		}
		cur.text += strings.TrimPrefix(l, indent) + "\n"
	}
	return out
}

// words splits a shell line into words: quotes, a trailing # comment and
// pipes (each segment a command) as sh reads them.
func words(line string) [][]string {
	var cmds [][]string
	var cur []string
	var w strings.Builder
	inWord := false
	var quote rune
	flush := func() {
		if inWord {
			cur = append(cur, w.String())
			w.Reset()
			inWord = false
		}
	}
	for i, r := range line {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				w.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == '#' && !inWord && (i == 0 || line[i-1] == ' '):
			flush()
			return append(cmds, cur)
		case r == '|':
			flush()
			cmds, cur = append(cmds, cur), nil
		case r == ' ' || r == '\t':
			flush()
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	flush()
	return append(cmds, cur)
}

// checkCommand checks that args (after "podcode") name a command that
// takes those flags and arguments.
func checkCommand(t *testing.T, where string, args []string) {
	t.Helper()
	root := newRoot()
	cmd, rest, err := root.Find(args)
	if err != nil {
		t.Errorf("%s: podcode %s: %v", where, strings.Join(args, " "), err)
		return
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Errorf("%s: podcode %s: %v", where, strings.Join(args, " "), err)
		return
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		t.Errorf("%s: podcode %s: %v", where, strings.Join(args, " "), err)
	}
	if !cmd.Runnable() {
		t.Errorf("%s: podcode %s runs nothing", where, strings.Join(args, " "))
	}
}

// The commands of the docs' examples exist with the flags and arguments
// they are given: each line of a fenced block that runs podcode (at its
// start, after "$ " or after a pipe).
func TestDocsCommandsExist(t *testing.T) {
	n := 0
	for _, page := range []string{"cli.md", "manifest-plugins.md"} {
		for _, b := range fenced(t, page) {
			for i, l := range strings.Split(b.text, "\n") {
				l = strings.TrimPrefix(strings.TrimSpace(l), "$ ")
				for _, c := range words(l) {
					if len(c) > 0 && c[0] == "podcode" {
						n++
						checkCommand(t, page+":"+strconv.Itoa(b.line+1+i), c[1:])
					}
				}
			}
		}
	}
	if n < 10 {
		t.Errorf("only %d podcode commands found in the docs' examples", n)
	}
}

// The manifests of manifest-plugins.md parse as written (comments
// included), its JSON-RPC lines are JSON, and its command handler script
// denies as it says.
func TestDocsManifestExamples(t *testing.T) {
	manifests, lines := 0, 0
	for _, b := range fenced(t, "manifest-plugins.md") {
		where := "manifest-plugins.md:" + strconv.Itoa(b.line)
		switch {
		case (b.lang == "json" || b.lang == "jsonc") && strings.Contains(b.text, `"contributes"`):
			manifests++
			if _, err := manifest.Parse(where, []byte(b.text)); err != nil {
				t.Errorf("%s: %v", where, err)
			}
		case b.lang == "json":
			for _, l := range strings.Split(strings.TrimSpace(b.text), "\n") {
				lines++
				if !json.Valid([]byte(l)) {
					t.Errorf("%s: not JSON: %s", where, l)
				}
			}
		case b.lang == "sh" && strings.Contains(b.text, "#!/bin/sh"):
			for input, wantCode := range map[string]int{
				`{"event":"PreToolUse","tool_name":"bash","tool_input":"{\"command\":\"rm -rf /\"}"}`: 2,
				`{"event":"PreToolUse","tool_name":"bash","tool_input":"{\"command\":\"ls\"}"}`:       0,
			} {
				c := exec.Command("sh", "-c", b.text)
				c.Stdin = strings.NewReader(input)
				var stderr bytes.Buffer
				c.Stderr = &stderr
				err := c.Run()
				code := 0
				if ee, ok := err.(*exec.ExitError); ok {
					code = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				if code != wantCode || (code == 2 && !strings.Contains(stderr.String(), "not allowed")) {
					t.Errorf("%s: the script exits %d (%q) on %s, want %d", where, code, stderr.String(), input, wantCode)
				}
			}
		}
	}
	if manifests == 0 || lines < 4 {
		t.Errorf("found %d manifests and %d JSON-RPC lines", manifests, lines)
	}
}

// The documented shape of `plugin list --json` is what it prints: the
// same keys, at the top and for a plugin.
func TestDocsPluginListShape(t *testing.T) {
	var doc map[string]any
	for _, b := range fenced(t, "cli.md") {
		if b.lang == "json" && strings.Contains(b.text, `"plugins"`) {
			if err := json.Unmarshal([]byte(b.text), &doc); err != nil {
				t.Fatalf("cli.md:%d: %v", b.line, err)
			}
		}
	}
	if doc == nil {
		t.Fatal("cli.md shows no plugin list --json")
	}
	project(t, map[string]string{
		"podcode.json":    `{"plugin": ["./plugins/glob.js"]}`,
		"plugins/glob.js": glob,
	})
	out, err := run(t, "--trust-all", "plugin", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if k1, k2 := keys(doc), keys(got); k1 != k2 {
		t.Errorf("top keys: documented %s, printed %s", k1, k2)
	}
	dp := doc["plugins"].([]any)[0].(map[string]any)
	gp := got["plugins"].([]any)[0].(map[string]any)
	if k1, k2 := keys(dp), keys(gp); k1 != k2 {
		t.Errorf("plugin keys: documented %s, printed %s", k1, k2)
	}
}

func keys(m map[string]any) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return strings.Join(ks, ",")
}
