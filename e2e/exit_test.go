package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
)

// result is one run of the binary: what it wrote where, and how it ended.
type result struct {
	stdout, stderr string
	code           int
}

// podcodeRun runs the binary in dir with --trust-all (the projects here are
// the tests' own) and keeps stdout and stderr apart.
func podcodeRun(t *testing.T, dir string, args ...string) result {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"--trust-all"}, args...)...)
	cmd.Dir, cmd.Env = dir, env(t.TempDir())
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errOut.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

func (r result) want(t *testing.T, what string, code int, stdout, stderr []string) {
	t.Helper()
	if r.code != code {
		t.Errorf("%s: exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", what, r.code, code, r.stdout, r.stderr)
	}
	for _, w := range stdout {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("%s: stdout lacks %q:\n%s", what, w, r.stdout)
		}
	}
	for _, w := range stderr {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("%s: stderr lacks %q:\n%s", what, w, r.stderr)
		}
	}
}

// One rule for every command (docs/cli.md, "Exit status"): 0 done, 1
// failed, 2 a wrong command line, 3 done with something you should see.
// (The binary embeds a Go guard: one more lifecycle handler.)
func TestExitStatuses(t *testing.T) {
	broken := apptest.Dir(t, apptest.Project{Files: map[string]string{
		"bad.js":     `export default { id: "bad", server: () => { throw new Error("boom in server") } }`,
		"thrower.js": `export default { id: "thrower", server: () => ({ "tool.execute.before": () => { throw new Error("before threw") } }) }`,
		"typo.js":    `export default { id: "typo", server: () => ({ "tool.before": () => {}, "chat.params": (p) => p }) }`,
		"deny.json":  `{"tool_name": "bash", "tool_input": {"command": "rm -rf /"}}`,
	}, Plugins: []string{"./bad.js", "./thrower.js", "./typo.js"}, Config: map[string]any{"permission": map[string]any{"bash": "deny"}}})
	clean := apptest.Dir(t, apptest.Project{Files: map[string]string{
		"ok.js": `export default { id: "ok", server: () => ({ "tool.execute.before": (i) => i }) }`,
	}, Plugins: []string{"./ok.js"}})

	r := podcodeRun(t, broken, "plugin", "list")
	r.want(t, "plugin list with a plugin that did not load", 3,
		[]string{"bad      config  failed: server() threw: Error: boom in server", "\nbad failed: server() threw: Error: boom in server\n    at server (",
			`warning: plugin typo: "tool.before" is not a hook and is never called; did you mean "tool.execute.before"?`},
		[]string{"podcode: 1 of 3 plugins did not load: bad\n"})
	if regexp.MustCompile(`\\n\\tat|\\t`).MatchString(r.stdout) {
		t.Errorf("plugin list shows an escaped stack:\n%s", r.stdout)
	}
	r = podcodeRun(t, broken, "plugin", "list", "--json")
	var list struct {
		Plugins []struct {
			ID, Status string
			Stack      []string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil || r.code != 3 {
		t.Fatalf("plugin list --json: %v, exit status %d\n%s", err, r.code, r.stdout)
	}
	if p := list.Plugins[len(list.Plugins)-1]; p.ID != "bad" || p.Status != "failed: server() threw: Error: boom in server" ||
		len(p.Stack) != 1 || !strings.HasSuffix(p.Stack[0], "bad.js:1:51)") {
		t.Errorf("the plugin that did not load: %+v", p)
	}
	// What the last line quotes of a plugin is escaped.
	evil := apptest.Dir(t, apptest.Project{Files: map[string]string{
		"evil.js": "export default { id: \"evil\\u001b[31mred\", server: () => { throw new Error(\"x\\u001b[2Jy\") } }",
	}, Plugins: []string{"./evil.js"}})
	r = podcodeRun(t, evil, "plugin", "list")
	r.want(t, "plugin list of a plugin with an escape in its id", 3, nil, []string{`podcode: 1 of 1 plugins did not load: evil\x1b[31mred`})
	if strings.ContainsRune(r.stdout+r.stderr, 0x1b) {
		t.Errorf("an escape character reached the terminal:\n%q\n%q", r.stdout, r.stderr)
	}
	podcodeRun(t, broken, "plugin", "check").want(t, "plugin check of a broken project", 3,
		[]string{"bad failed: server() threw", `did you mean "tool.execute.before"?`}, []string{"podcode: 2 problems in 3 plugins"})
	podcodeRun(t, clean, "plugin", "check").want(t, "plugin check of a clean project", 0,
		[]string{"ok: 1 plugin, 2 lifecycle handlers, 0 Claude Code commands, agents and skills; nothing to say"}, nil)
	podcodeRun(t, clean, "plugin", "list").want(t, "plugin list of a clean project", 0, []string{"ok  config  running  tool.execute.before"}, nil)

	podcodeRun(t, broken, "hook", "fire", "tool.execute.before", "--input", `{"toolID": "bash", "args": {"command": "ls"}}`).want(t,
		"hook fire of a hook a plugin throws in", 3, []string{`"toolID": "bash"`}, []string{"podcode: tool.execute.before: plugin thrower threw: Error: before threw"})
	podcodeRun(t, broken, "hook", "fire", "PreToolUse", "--input-file", "deny.json").want(t,
		"hook fire of a deny", 3, []string{"PreToolUse: deny"}, []string{"podcode: PreToolUse: denied"})
	podcodeRun(t, clean, "hook", "fire", "tool.execute.before", "--input", `{"toolID": "bash", "args": {}}`).want(t,
		"hook fire that goes well", 0, []string{`"toolID": "bash"`}, nil)

	podcodeRun(t, broken, "run", `/tool bash {"command": "rm -rf /"}`).want(t, "run with a denied call", 3,
		[]string{"Tool bash failed"}, []string{"podcode: the turn ended, but 1 of its 1 tool calls failed (bash: bash was denied"})
	podcodeRun(t, clean, "run", `/tool nope {}`).want(t, "run with an unknown tool", 3, nil,
		[]string{`podcode: the turn ended, but 1 of its 1 tool calls failed (nope: unknown tool "nope")`})
	podcodeRun(t, clean, "run", `/tool glob {"pattern": 1}`).want(t, "run with arguments the schema refuses", 3, nil,
		[]string{"1 of its 1 tool calls failed (glob: invalid arguments for glob"})
	podcodeRun(t, clean, "run", `/tool glob {"pattern": "*.js"}`).want(t, "run that goes well", 0, []string{"ok.js"}, nil)

	podcodeRun(t, clean, "run").want(t, "run without a prompt", 2, nil,
		[]string{"podcode: run needs a prompt: podcode run summarise README.md, or podcode run - to read it from standard input\nRun 'podcode run --help' for usage."})
	podcodeRun(t, clean, "nope").want(t, "an unknown command", 2, nil, []string{`podcode: unknown command "nope" for "podcode"`})
	podcodeRun(t, clean, "plugin", "list", "--bogus").want(t, "an unknown flag", 2, nil, []string{"unknown flag: --bogus"})
	podcodeRun(t, clean, "--version").want(t, "--version", 0, []string{"podcode ", "(plugin runtime "}, nil)
	podcodeRun(t, clean, "completion", "bash").want(t, "shell completion", 0, []string{"bash completion V2 for podcode"}, nil)
	r = podcodeRun(t, clean, "version", "--json")
	var v struct{ Version, Plugin_runtime string }
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || r.code != 0 || v.Version == "" {
		t.Errorf("version --json: %v %d %s", err, r.code, r.stdout)
	}
}

// A default model whose provider has no key is said before anything runs,
// where to put one included; the turn then fails (exit status 1).
func TestMissingKeyWarnedAtStart(t *testing.T) {
	dir := apptest.Dir(t, apptest.Project{})
	home := userHome(t, `{"model": "anthropic/claude-sonnet-4-6"}`)
	cmd := exec.Command(binary, "run", "hi")
	cmd.Dir, cmd.Env = dir, append(env(home), "ANTHROPIC_API_KEY=")
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("exit: %v\n%s", err, errOut.String())
	}
	warning := "warning: model anthropic/claude-sonnet-4-6: no API key for anthropic: set ANTHROPIC_API_KEY, or provider.anthropic.options.apiKey in your podcode.json; until then its turns fail\n"
	if !strings.HasPrefix(errOut.String(), warning) {
		t.Errorf("stderr does not begin with the warning:\n%s", errOut.String())
	}
}
