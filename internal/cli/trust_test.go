package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/trust"
	"github.com/podcode/podcode/plugin"
)

type listed struct {
	Plugins   []pluginInfo
	Lifecycle []plugin.HandlerInfo
	Warnings  []string
}

func list(t *testing.T, args ...string) listed {
	t.Helper()
	out, err := run(t, append([]string{"plugin", "list", "--json"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	var l listed
	if err := json.Unmarshal([]byte(out), &l); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return l
}

func (l listed) ids() string {
	var ids []string
	for _, p := range l.Plugins {
		ids = append(ids, p.ID)
	}
	for _, h := range l.Lifecycle {
		if h.Source == "config:permission" {
			continue
		}
		ids = append(ids, string(h.Event)+"@"+h.Source)
	}
	return strings.Join(ids, " ")
}

// Project code runs only once trusted, and again only after each change is
// trusted; --trust-all and disable_project_plugins override the store.
func TestTrust(t *testing.T) {
	dir := project(t, map[string]string{
		"podcode.json":                  `{"plugin": ["./plugins/glob.js"]}`,
		"plugins/glob.js":               glob,
		".podcode/plugins/observer.mjs": `export default { id: "observer", server: () => ({ lifecycle: { SessionStart: () => undefined } }) }`,
		".podcode/plugins/guard/podcode-plugin.json": `{"id": "guard", "contributes": {"hooks": [
			{"event": "PreToolUse", "matcher": "bash", "handler": {"command": "sh ./deny.sh"}}]}}`,
		".podcode/plugins/guard/deny.sh": "echo no >&2; exit 2\n",
	})
	l := list(t)
	if len(l.Plugins) != 0 || strings.Contains(l.ids(), "guard") {
		t.Fatalf("untrusted code loaded: %s", l.ids())
	}
	warn := strings.Join(l.Warnings, "\n")
	for _, name := range []string{"./plugins/glob.js", ".podcode/plugins/observer.mjs", "manifest plugin guard skipped"} {
		if !strings.Contains(warn, name) || !strings.Contains(warn, "never trusted") || !strings.Contains(warn, "podcode trust") {
			t.Errorf("warnings do not name %s and how to trust it:\n%s", name, warn)
		}
	}

	out, err := run(t, "trust", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var survey struct{ Items []trust.Asked }
	json.Unmarshal([]byte(out), &survey)
	if len(survey.Items) != 3 {
		t.Fatalf("trust --json: %s", out)
	}
	for _, it := range survey.Items {
		if it.State != trust.NeverTrusted || len(it.Runs) == 0 || !strings.HasPrefix(it.Fingerprint, "sha256:") {
			t.Errorf("item %+v", it)
		}
		if it.Kind == trust.KindManifest && !strings.Contains(strings.Join(it.Runs, "\n"), "deny.sh") {
			t.Errorf("the manifest's item does not cover the script it runs: %v", it.Runs)
		}
	}
	if _, err := run(t, "trust"); err == nil {
		t.Error("trust without a yes on stdin recorded it")
	}
	if _, err := run(t, "trust", "--yes"); err != nil {
		t.Fatal(err)
	}
	if got := list(t).ids(); got != "fast-glob observer PreToolUse@guard (sh ./deny.sh) SessionStart@observer" {
		t.Errorf("trusted: %s", got)
	}

	// An edit of one file untrusts that plugin only; so does an edit of a
	// script a manifest runs.
	os.WriteFile(filepath.Join(dir, ".podcode/plugins/observer.mjs"), []byte(`export default { id: "observer", server: () => ({}) }`), 0o644)
	os.WriteFile(filepath.Join(dir, ".podcode/plugins/guard/deny.sh"), []byte("exit 0\n"), 0o644)
	l = list(t)
	if got := l.ids(); got != "fast-glob" {
		t.Errorf("after edits: %s", got)
	}
	if w := strings.Join(l.Warnings, "\n"); strings.Count(w, "changed since it was trusted") != 2 {
		t.Errorf("warnings: %s", w)
	}
	if got := list(t, "--trust-all").ids(); got != "fast-glob observer PreToolUse@guard (sh ./deny.sh)" {
		t.Errorf("--trust-all: %s", got)
	}

	// The user's disable_project_plugins wins over trust and --trust-all.
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "podcode", "podcode.json")
	os.MkdirAll(filepath.Dir(user), 0o755)
	os.WriteFile(user, []byte(`{"disable_project_plugins": true}`), 0o644)
	if got := list(t, "--trust-all").ids(); got != "" {
		t.Errorf("disable_project_plugins: %s", got)
	}
}

// Project code that does not run is shown where the user looks: `podcode
// run` says so on stderr before the turn, `plugin list` lists it with its
// state, and what it means (skipped, or its guards denying).
func TestSkippedCodeShown(t *testing.T) {
	dir := project(t, map[string]string{
		".podcode/plugins/guard/podcode-plugin.json": `{"id": "rm-guard", "contributes": {"hooks": [
			{"event": "PreToolUse", "matcher": "bash", "failClosed": true, "handler": {"command": "sh ./deny.sh"}}]}}`,
		".podcode/plugins/guard/deny.sh": "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; }; exit 0\n",
		".podcode/plugins/audit/podcode-plugin.json": `{"id": "audit", "contributes": {"hooks": [
			{"event": "PostToolUse", "handler": {"command": "cat >/dev/null"}}]}}`,
		".claude/settings.json":  `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh .claude/hooks/check.sh"}]}]}}`,
		".claude/hooks/check.sh": "exit 0\n",
	})
	if _, err := run(t, "trust", "--yes"); err != nil {
		t.Fatal(err)
	}
	// The guard and the Claude hook change after they were trusted; the
	// audit plugin comes new.
	os.WriteFile(filepath.Join(dir, ".claude/hooks/check.sh"), []byte("exit 0 # reviewed\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".podcode/plugins/guard/deny.sh"), []byte("exit 0\n"), 0o644)
	os.WriteFile(filepath.Join(dir, ".podcode/plugins/audit/podcode-plugin.json"), []byte(`{"id": "audit", "version": "2", "contributes": {"hooks": [
			{"event": "PostToolUse", "handler": {"command": "cat >/dev/null"}}]}}`), 0o644)

	// The turn ends; its call was denied, which exit status 3 says.
	out, err := run(t, "run", `/tool bash {"command": "rm -rf x"}`)
	if exitCode(err) != exitProblems {
		t.Fatalf("%v\n%s", err, out)
	}
	notice, call := strings.Index(out, "Project code that does not run:"), strings.Index(out, "-> bash")
	if notice < 0 || call < 0 || notice > call {
		t.Fatalf("no notice before the turn:\n%s", out)
	}
	for _, want := range []string{
		"manifest .podcode/plugins/guard (changed since it was trusted): its fail-closed guards deny",
		"claude-hooks .claude/settings.json (changed since it was trusted): its fail-closed guards deny",
		"manifest .podcode/plugins/audit (changed since it was trusted): skipped until it is trusted",
		"run `podcode trust` in " + dir,
		"<- bash", "is a fail-closed guard and does not run",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("podcode run does not say %q:\n%s", want, out)
		}
	}

	text, _ := run(t, "plugin", "list")
	if !strings.Contains(text, "Project code that does not run:") || !strings.Contains(text, "manifest .podcode/plugins/audit (changed since it was trusted)") {
		t.Errorf("plugin list:\n%s", text)
	}
	var l struct {
		Skipped []struct{ Kind, Name, State, Effect string }
	}
	js, _ := run(t, "plugin", "list", "--json")
	if err := json.Unmarshal([]byte(js), &l); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, s := range l.Skipped {
		got[s.Kind+" "+s.Name] = s.State + ": " + s.Effect
	}
	want := map[string]string{
		"manifest .podcode/plugins/guard":    "changed since it was trusted: denying",
		"manifest .podcode/plugins/audit":    "changed since it was trusted: skipped",
		"claude-hooks .claude/settings.json": "changed since it was trusted: denying",
	}
	if len(got) != len(want) {
		t.Errorf("skipped: %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}

	// Never trusted, a fail-closed guard denies; a Claude hook is skipped.
	os.WriteFile(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "podcode", trust.FileName), []byte(`{"projects": {}}`), 0o600)
	js, _ = run(t, "plugin", "list", "--json")
	json.Unmarshal([]byte(js), &l)
	got = map[string]string{}
	for _, s := range l.Skipped {
		got[s.Kind+" "+s.Name] = s.State + ": " + s.Effect
	}
	if got["manifest .podcode/plugins/guard"] != "never trusted: denying" || got["claude-hooks .claude/settings.json"] != "never trusted: skipped" {
		t.Errorf("never trusted: %v", got)
	}

	// All project code refused by the user: disabled, nothing denies.
	user := filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "podcode", "podcode.json")
	os.WriteFile(user, []byte(`{"disable_project_plugins": true}`), 0o644)
	text, _ = run(t, "plugin", "list")
	if !strings.Contains(text, "manifest .podcode/plugins/guard (disabled): skipped: disable_project_plugins") {
		t.Errorf("disabled:\n%s", text)
	}
}

// The person who starts the server sees the project code that does not
// run, as `podcode run` shows it, before the server says it serves.
func TestServeShowsSkippedCode(t *testing.T) {
	project(t, map[string]string{
		".podcode/plugins/untrusted.js": `export default { id: "untrusted", server: () => ({}) }`,
	})
	userConfig(t, fmt.Sprintf(`{"server": {"addr": %q}}`, freeAddr(t)))
	_, out := serve(t)
	text := out.String()
	notice, serving := strings.Index(text, "Project code that does not run:"), strings.Index(text, "podcode serving on")
	if notice < 0 || notice > serving || !strings.Contains(text, "untrusted.js") {
		t.Errorf("podcode serve does not show the untrusted plugin before it serves:\n%s", text)
	}
}

// A guard the user trusted that the project then removed or weakened is
// not lost silently: `podcode run` is denied by it as trusted, and says
// so; `podcode trust` names each guard that trusting gives up (here a
// manifest guard whose failClosed was dropped along with what it runs, and
// a .claude hook whose
// settings file was deleted) before it asks. Trusting gives them up: the
// call runs, and the removed file is forgotten.
//
// covers the promises "a guard the project changed denies as trusted" and
// "`podcode trust` names each guard that trusting gives up" (docs/security.md)
func TestTrustShowsTheGuardsItGivesUp(t *testing.T) {
	dir := project(t, map[string]string{
		".podcode/plugins/guard/podcode-plugin.json": `{"id": "rm-guard", "contributes": {"hooks": [
			{"event": "PreToolUse", "matcher": "bash", "failClosed": true, "handler": {"command": "sh ./deny.sh"}}]}}`,
		".podcode/plugins/guard/deny.sh": "grep -q 'rm -rf' && { echo 'no rm -rf here' >&2; exit 2; }; exit 0\n",
		".claude/settings.json":          `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "sh .claude/hooks/check.sh"}]}]}}`,
		".claude/hooks/check.sh":         "exit 0\n",
	})
	if _, err := run(t, "trust", "--yes"); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".podcode/plugins/guard/podcode-plugin.json"), []byte(`{"id": "rm-guard", "contributes": {"hooks": [
			{"event": "PreToolUse", "matcher": "bash", "handler": {"command": "cat >/dev/null"}}]}}`), 0o644)
	os.Remove(filepath.Join(dir, ".claude/settings.json"))

	out, err := run(t, "run", `/tool bash {"command": "rm -rf x"}`)
	if exitCode(err) != exitProblems || !strings.Contains(err.Error(), "bash was denied") {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{
		"manifest .podcode/plugins/guard (changed since it was trusted): its fail-closed guards deny",
		"it no longer declares rm-guard (sh ./deny.sh) as you trusted it",
		"claude-hooks .claude/settings.json (changed since it was trusted): removed from the project since it was trusted",
		"rm-guard (sh ./deny.sh) is a guard you trusted, and the project changed it since",
		"claude: sh .claude/hooks/check.sh (.claude/settings.json) is a guard you trusted",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("podcode run does not say %q:\n%s", want, out)
		}
	}

	out, err = run(t, "trust")
	if err == nil {
		t.Fatal("trust without a yes on stdin recorded it")
	}
	for _, want := range []string{
		"! trusting this gives up the guard rm-guard (sh ./deny.sh) (PreToolUse on bash): this content no longer declares it as you trusted it",
		"guards it declares now: none",
		"claude-hooks .claude/settings.json (removed since it was trusted, or no longer loads)",
		"! trusting this gives up the guard claude: sh .claude/hooks/check.sh (.claude/settings.json) (PreToolUse on Bash): the project no longer has it",
		"Let 1 item (2 files to review) run? It can do what you can: run commands, read and change your files. Trusting it gives up 2 guards marked ! above. [y]es, [n]o, [s]how the files:",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("podcode trust does not say %q:\n%s", want, out)
		}
	}
	if i, j := strings.Index(out, "! trusting this gives up"), strings.Index(out, "[y]es, [n]o"); i < 0 || i > j {
		t.Errorf("the guards given up are not shown before the question:\n%s", out)
	}

	if out, err := run(t, "trust", "--yes"); err != nil || !strings.Contains(out, "Gave up 2 guards you had trusted.") {
		t.Fatalf("%v\n%s", err, out)
	}
	out, err = run(t, "run", `/tool bash {"command": "rm -rf x"}`)
	if err != nil || strings.Contains(out, "denied") || strings.Contains(out, "Project code that does not run") {
		t.Errorf("after trusting, the guards given up still deny: %v\n%s", err, out)
	}
	st, err := trust.Open(filepath.Join(os.Getenv("XDG_CONFIG_HOME"), "podcode"))
	if err != nil {
		t.Fatal(err)
	}
	for key := range st.Projects[dir] {
		if strings.HasPrefix(key, trust.KindClaude) {
			t.Errorf("the removed settings file is still recorded: %s", key)
		}
	}
	if out, _ := run(t, "trust"); !strings.Contains(out, "All of it is trusted.") {
		t.Errorf("trust afterwards:\n%s", out)
	}
}

// The question counts the files to review, and s shows them (escaped)
// before asking again; no answer trusts nothing.
func TestTrustShowsTheFilesToReview(t *testing.T) {
	project(t, map[string]string{
		".podcode/plugins/x.js": "export default { id: \"x\", server: () => ({}) } // \x1b[8mhidden\n",
	})
	out, _, err := runIn(t, strings.NewReader("s\nn\n"), "trust")
	if err == nil {
		t.Fatal("trusted without a yes")
	}
	for _, want := range []string{
		"Let 1 item (1 file to review) run? It can do what you can: run commands, read and change your files. [y]es, [n]o, [s]how the files: ",
		"==> .podcode/plugins/x.js <==\nexport default { id: \"x\", server: () => ({}) } // \\x1b[8mhidden\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("trust does not say %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "[s]how the files"); n != 2 {
		t.Errorf("asked %d times, want twice (before and after showing)", n)
	}
}
