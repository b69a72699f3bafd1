package claudehooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestLoadWithoutSettings(t *testing.T) {
	s, err := Load(t.TempDir())
	if err != nil || s == nil || len(s.Hooks) != 0 || len(s.Files) != 0 || len(s.Warnings) != 0 {
		t.Fatalf("a project without .claude/ should load empty settings, got %+v, %v", s, err)
	}
}

func TestLoadAppendsLocalSettings(t *testing.T) {
	dir := project(t, `{
	  "permissions": {"allow": ["Bash(npm test)"]},
	  "env": {"FOO": "bar"},
	  "model": "opus",
	  "hooks": {
	    "PreToolUse": [{"matcher": "Bash", "hooks": [
	      {"type": "command", "command": "./first.sh", "timeout": 30},
	      {"type": "command", "command": "./shared.sh"}]}],
	    "Stop": [{"hooks": [{"type": "command", "command": "./stop.sh"}]}]
	  }
	}`)
	writeFile(t, filepath.Join(dir, ".claude", "settings.local.json"), `{
	  "hooks": {
	    "PreToolUse": [{"matcher": "Bash", "hooks": [
	      {"type": "command", "command": "./shared.sh"},
	      {"type": "command", "command": "./local.sh", "statusMessage": "checking", "once": true}]}]
	  }
	}`)
	s, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, h := range s.Hooks {
		got = append(got, h.Event+" "+h.Command+" "+h.File+" "+h.Where)
	}
	want := []string{
		"PreToolUse ./first.sh .claude/settings.json hooks.PreToolUse[0].hooks[0]",
		"PreToolUse ./shared.sh .claude/settings.json hooks.PreToolUse[0].hooks[1]",
		"Stop ./stop.sh .claude/settings.json hooks.Stop[0].hooks[0]",
		// the local copy of ./shared.sh runs once, as in Claude Code
		"PreToolUse ./local.sh .claude/settings.local.json hooks.PreToolUse[0].hooks[1]",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("hooks:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s.Hooks[0].Timeout != 30*time.Second || s.Hooks[1].Timeout != 0 {
		t.Fatalf("timeouts: %v %v", s.Hooks[0].Timeout, s.Hooks[1].Timeout)
	}
	if strings.Join(s.Files, ",") != SettingsFile+","+LocalSettingsFile {
		t.Fatalf("files: %v", s.Files)
	}
	if got := s.Hooks[0].Source(); got != "claude: ./first.sh (.claude/settings.json)" {
		t.Fatalf("source: %q", got)
	}
}

func TestLoadOnlyLocalSettings(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, ".claude"), 0o755)
	writeFile(t, filepath.Join(dir, ".claude", "settings.local.json"), `{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "echo bye"}]}]}}`)
	s, err := Load(dir)
	if err != nil || len(s.Hooks) != 1 || s.Hooks[0].File != LocalSettingsFile {
		t.Fatalf("%+v %v", s, err)
	}
}

func TestParseWithoutHooks(t *testing.T) {
	for _, data := range []string{"", "  \n", `{}`, `{"hooks": null}`, `{"permissions": {"deny": ["Read(.env)"]}}`, `{"hooks": {}}`} {
		s, err := Parse(SettingsFile, []byte(data))
		if err != nil || len(s.Hooks) != 0 || len(s.Warnings) != 0 {
			t.Errorf("%q: %+v %v", data, s, err)
		}
	}
}

// covers L2: event names are checked when the settings are read, not when a
// hook would fire; every mistake names the file and the entry.
func TestParseErrorsNameFileAndEntry(t *testing.T) {
	cases := []struct{ settings, want string }{
		{`{"hooks": {"PreToolUse": [`, ".claude/settings.json:1:"},
		{"{\n  \"hooks\": {\n    \"Stop\": [}\n}", ".claude/settings.json:3:14: invalid character '}'"},
		{`[1, 2]`, ".claude/settings.json: the settings must be a JSON object, not array"},
		{`{"hooks": []}`, ".claude/settings.json: hooks: must be an object of event names, not an array"},
		{`{"hooks": {"PreToolUs": []}}`, `.claude/settings.json: hooks.PreToolUs: unknown event "PreToolUs"`},
		{`{"hooks": {"PreToolUse": {"matcher": "Bash"}}}`, ".claude/settings.json: hooks.PreToolUse: must be an array of matcher groups, not an object"},
		{`{"hooks": {"Stop": ["./stop.sh"]}}`, ".claude/settings.json: hooks.Stop[0]: must be an object"},
		{`{"hooks": {"PreToolUse": [{"matcher": ["Bash"], "hooks": []}]}}`, ".claude/settings.json: hooks.PreToolUse[0]: matcher must be a string, not an array"},
		{`{"hooks": {"PreToolUse": [{"matcher": "(", "hooks": []}]}}`, `.claude/settings.json: hooks.PreToolUse[0]: matcher "(": does not compile`},
		{`{"hooks": {"PreToolUse": [{"matcher": "(?=Bash)", "hooks": []}]}}`, `hooks.PreToolUse[0]: matcher "(?=Bash)": does not compile`},
		{`{"hooks": {"PreToolUse": [{"matcher": "Bash"}]}}`, ".claude/settings.json: hooks.PreToolUse[0]: hooks is missing"},
		{`{"hooks": {"PreToolUse": [{"hooks": {"type": "command"}}]}}`, "hooks.PreToolUse[0]: hooks must be an array of hook handlers, not an object"},
		{`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "./a.sh"}, {"type": "prompt", "prompt": "ok?"}]}]}}`,
			`.claude/settings.json: hooks.PreToolUse[0].hooks[1]: type "prompt" is not supported`},
		{`{"hooks": {"Stop": [{"hooks": [{"type": "http", "url": "http://localhost"}]}]}}`, `hooks.Stop[0].hooks[0]: type "http" is not supported`},
		{`{"hooks": {"Stop": [{"hooks": [{"command": "./a.sh"}]}]}}`, "hooks.Stop[0].hooks[0]: type is missing"},
		{`{"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}`, "hooks.Stop[0].hooks[0]: command is missing"},
		{`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "  "}]}]}}`, "hooks.Stop[0].hooks[0]: command is missing"},
		{`{"hooks": {"Stop": [{"hooks": [{"type": 1, "command": "x"}]}]}}`, "hooks.Stop[0].hooks[0]: type must be a string, not a number"},
		{`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]}}`, "hooks.Stop[0].hooks[0]: timeout -1: must be a number of seconds above 0"},
		{`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": "30"}]}]}}`, "hooks.Stop[0].hooks[0]: timeout must be a number of seconds, not a string"},
		{`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 1e400}]}]}}`, "hooks.Stop[0].hooks[0]: timeout 1e400: must be"},
		{`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "args": "-v"}]}]}}`, "hooks.Stop[0].hooks[0]: args must be an array of strings, not a string"},
		{`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "shell": "powershell"}]}]}}`, `hooks.Stop[0].hooks[0]: shell "powershell" is not supported`},
		{`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "async": "yes"}]}]}}`, "hooks.Stop[0].hooks[0]: async must be true or false, not a string"},
		{`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "if": "Bash(git *"}]}]}}`, `hooks.PreToolUse[0].hooks[0]: if "Bash(git *": a permission rule is Tool or Tool(pattern)`},
		{`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "if": "git push"}]}]}}`, `hooks.PreToolUse[0].hooks[0]: if "git push"`},
	}
	for _, c := range cases {
		s, err := Parse(SettingsFile, []byte(c.settings))
		if err == nil {
			t.Errorf("%s: no error, got %+v", c.settings, s)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s:\n got  %v\n want %s", c.settings, err, c.want)
		}
	}
}

func TestLoadErrorNamesTheLocalFile(t *testing.T) {
	dir := project(t, `{"hooks": {}}`)
	writeFile(t, filepath.Join(dir, ".claude", "settings.local.json"), `{"hooks": {"Stop": [{"hooks": [{"type": "agent", "prompt": "done?"}]}]}}`)
	_, err := Load(dir)
	if err == nil || !strings.HasPrefix(err.Error(), `.claude/settings.local.json: hooks.Stop[0].hooks[0]: type "agent" is not supported`) {
		t.Fatalf("got %v", err)
	}
}

// Events Claude Code has and Podcode cannot honour, and hooks that could
// never run here, are warnings, and those hooks are left out.
func TestParseWarnings(t *testing.T) {
	s, err := Parse(SettingsFile, []byte(`{"hooks": {
	  "Notification": [{"matcher": "permission_prompt", "hooks": [{"type": "command", "command": "notify-send hi"}, {"type": "prompt", "prompt": "?"}]}],
	  "PermissionRequest": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./approve.sh"}]}],
	  "SessionStart": [
	    {"matcher": "resume", "hooks": [{"type": "command", "command": "./resume.sh"}]},
	    {"matcher": "startup|clear", "hooks": [{"type": "command", "command": "./start.sh"}]}],
	  "PreCompact": [{"matcher": "manual", "hooks": [{"type": "command", "command": "./manual.sh"}]}],
	  "Stop": [{"hooks": [{"type": "command", "command": "./stop.sh", "if": "Bash(git *)"}]}],
	  "UserPromptSubmit": [{"matcher": "(ignored", "hooks": [{"type": "command", "command": "./prompt.sh"}]}],
	  "PreToolUse": [{"hooks": [{"type": "command", "command": "./bg.sh", "asyncRewake": true}]}]
	}}`))
	if err != nil {
		t.Fatal(err)
	}
	var cmds []string
	for _, h := range s.Hooks {
		cmds = append(cmds, h.Command)
	}
	if got := strings.Join(cmds, " "); got != "./start.sh ./prompt.sh ./bg.sh" {
		t.Fatalf("hooks: %s", got)
	}
	if s.Hooks[1].Matcher != "" || !s.Hooks[2].Async {
		t.Fatalf("UserPromptSubmit takes no matcher, asyncRewake runs in the background: %+v", s.Hooks)
	}
	want := []string{
		".claude/settings.json: hooks.Notification: Podcode does not run Notification hooks (Podcode sends no notifications); 2 hooks ignored",
		".claude/settings.json: hooks.PermissionRequest: Podcode does not run PermissionRequest hooks",
		`.claude/settings.json: hooks.SessionStart[0]: matcher "resume" never matches in Podcode, where SessionStart's source is always "startup"; 1 hook ignored`,
		`.claude/settings.json: hooks.PreCompact[0]: matcher "manual" never matches`,
		`.claude/settings.json: hooks.Stop[0].hooks[0]: if "Bash(git *)" is set on Stop`,
		".claude/settings.json: hooks.PreToolUse[0].hooks[0]: asyncRewake is not supported",
	}
	if len(s.Warnings) != len(want) {
		t.Fatalf("warnings:\n%s", strings.Join(s.Warnings, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(s.Warnings[i], w) {
			t.Errorf("warning %d:\n got  %s\n want %s", i, s.Warnings[i], w)
		}
	}
}

func TestMatcher(t *testing.T) {
	cases := []struct {
		matcher string
		match   []string
		nomatch []string
	}{
		{"", []string{"Bash", "mcp__x__y"}, nil},
		{"*", []string{"Bash", "Write"}, nil},
		{"Bash", []string{"Bash"}, []string{"bash", "Bash2", "BashOutput"}},
		{"Edit|Write", []string{"Edit", "Write"}, []string{"NotebookEdit", "Read"}},
		{"Edit, Write", []string{"Edit", "Write"}, []string{"Edit, Write"}},
		{" Edit | Write ", []string{"Edit", "Write"}, nil},
		// a regular expression is unanchored, as JavaScript's RegExp.test
		{"Edit.*", []string{"Edit", "NotebookEdit"}, []string{"Write"}},
		{"^Edit$", []string{"Edit"}, []string{"NotebookEdit"}},
		{"mcp__memory__.*", []string{"mcp__memory__create_entities"}, []string{"mcp__github__search"}},
		{"mcp__.*__write.*", []string{"mcp__fs__write_file"}, []string{"mcp__fs__read_file"}},
		// only exact-match characters: an exact name, which no MCP tool has
		{"mcp__memory", nil, []string{"mcp__memory__create_entities"}},
		{"mcp__brave-search__.*", []string{"mcp__brave-search__web"}, nil},
	}
	for _, c := range cases {
		m, err := compileMatcher(c.matcher)
		if err != nil {
			t.Fatalf("%q: %v", c.matcher, err)
		}
		for _, n := range c.match {
			if !m.match(n) {
				t.Errorf("%q should match %q", c.matcher, n)
			}
		}
		for _, n := range c.nomatch {
			if m.match(n) {
				t.Errorf("%q should not match %q", c.matcher, n)
			}
		}
	}
}

// The dispatcher tests its matcher on Podcode's tool ids; the translated
// expression must select the same tools the Claude Code matcher names.
func TestMatcherOverPodcodeIDs(t *testing.T) {
	cases := []struct {
		matcher string
		match   []string
		nomatch []string
	}{
		// a plugin tool whose id is "Bash" keeps that name, so "Bash" names it too
		{"Bash", []string{"bash", "Bash"}, []string{"write", "bashful"}},
		{"Edit|Write", []string{"edit", "write"}, []string{"read", "notebookedit"}},
		{"Task", []string{"task"}, []string{"bash"}},
		{"Agent", []string{"task"}, []string{"bash"}},
		{"WebFetch,Read", []string{"webfetch", "read"}, []string{"grep"}},
		{"my_plugin_tool|Bash", []string{"my_plugin_tool", "bash"}, []string{"write"}},
		{"bash", nil, []string{"bash"}}, // Claude Code's name is Bash
		{"Notebook.*|^Gr", []string{"grep"}, []string{"glob"}},
		{"mcp__.*", []string{"mcp__fs__read"}, []string{"bash", "read"}},
		{".*", []string{"bash", "anything"}, nil},
	}
	for _, c := range cases {
		m, err := compileMatcher(c.matcher)
		if err != nil {
			t.Fatal(err)
		}
		re := m.podcodeRegexp()
		// selected: the dispatcher runs the handler and the handler's own
		// test over Claude Code's names passes.
		selected := func(id string) bool {
			return (re == nil || re.MatchString(id)) && m.match(claudeNames(id)...)
		}
		for _, id := range c.match {
			if !selected(id) {
				t.Errorf("%q (%v) should select %q", c.matcher, re, id)
			}
		}
		for _, id := range c.nomatch {
			if selected(id) {
				t.Errorf("%q (%v) should not select %q", c.matcher, re, id)
			}
		}
		if m.re == nil && re != nil {
			// a list of names translates exactly: the handler never has to
			// abstain for a tool the dispatcher let through
			for _, id := range append(append([]string{}, c.match...), c.nomatch...) {
				if re.MatchString(id) != m.match(claudeNames(id)...) {
					t.Errorf("%q (%s) is not exact for %q", c.matcher, re, id)
				}
			}
		}
	}
}

func TestIfRule(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		rule  string
		tool  string
		input map[string]any
		want  bool
	}{
		{"Bash", "bash", map[string]any{"command": "ls"}, true},
		{"Bash(rm *)", "bash", map[string]any{"command": "rm -rf build"}, true},
		{"Bash(rm *)", "bash", map[string]any{"command": "rm"}, true},
		{"Bash(rm *)", "bash", map[string]any{"command": "ls -la"}, false},
		{"Bash(rm *)", "bash", map[string]any{"command": "rmdir x"}, false},
		{"Bash(rm *)", "bash", map[string]any{"command": "npm test && rm -rf dist"}, true},
		{"Bash(rm *)", "bash", map[string]any{"command": "FOO=bar rm x"}, true},
		{"Bash(rm *)", "bash", map[string]any{"command": "echo 'a && rm b'"}, false},
		{"Bash(rm *)", "bash", map[string]any{"command": "echo $(date)"}, true}, // cannot tell: runs
		{"Bash(git push *)", "bash", map[string]any{"command": "git status; git push origin"}, true},
		{"Bash(npm run test:*)", "bash", map[string]any{"command": "npm run test -- -v"}, true},
		{"Bash(npm run test:*)", "bash", map[string]any{"command": "npm run build"}, false},
		{"Bash(rm *)", "write", map[string]any{"file_path": "rm x"}, false},
		{"Edit(*.ts)", "edit", map[string]any{"file_path": filepath.Join(dir, "src", "a.ts")}, true},
		{"Edit(*.ts)", "edit", map[string]any{"file_path": filepath.Join(dir, "src", "a.go")}, false},
		{"Edit(src/**)", "edit", map[string]any{"file_path": filepath.Join(dir, "src", "x", "y.go")}, true},
		{"Edit(src/**)", "edit", map[string]any{"file_path": filepath.Join(dir, "lib", "src", "y.go")}, false},
		{"Edit(/src/**)", "edit", map[string]any{"file_path": filepath.Join(dir, "src", "y.go")}, true},
		{"Write(//etc/**)", "write", map[string]any{"file_path": "/etc/passwd"}, true},
		{"Read(*.env)", "read", map[string]any{"file_path": filepath.Join(dir, ".env")}, true},
		{"WebFetch(domain:example.com)", "webfetch", map[string]any{"url": "https://other.org"}, true}, // not evaluated: runs
		{"Task", "task", map[string]any{"prompt": "x"}, true},
		{"Agent", "task", map[string]any{"prompt": "x"}, true},
		{"mcp__memory", "mcp__memory__create", map[string]any{}, true},
		{"mcp__memory", "mcp__github__create", map[string]any{}, false},
	}
	for _, c := range cases {
		r, err := parseIf(c.rule)
		if err != nil {
			t.Fatalf("%s: %v", c.rule, err)
		}
		if got := r.matches(claudeNames(c.tool), c.input, dir); got != c.want {
			t.Errorf("if %q on %s %v: got %v, want %v", c.rule, c.tool, c.input, got, c.want)
		}
	}
}

// disableAllHooks: the last file that sets it decides, as in Claude Code's
// settings precedence.
func TestDisableAllHooks(t *testing.T) {
	hooks := `"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "exit 2"}]}]}`
	for _, c := range []struct {
		project, local string
		disabled       bool
	}{
		{`{"disableAllHooks": true, ` + hooks + `}`, ``, true},
		{`{"disableAllHooks": true, ` + hooks + `}`, `{"disableAllHooks": false}`, false},
		{`{` + hooks + `}`, `{"disableAllHooks": true}`, true},
		{`{"disableAllHooks": false, ` + hooks + `}`, `{"permissions": {}}`, false},
	} {
		dir := project(t, c.project)
		if c.local != "" {
			writeFile(t, filepath.Join(dir, ".claude", "settings.local.json"), c.local)
		}
		d, s := load(t, dir)
		if s.DisableAllHooks != c.disabled || len(s.Hooks) != 1 {
			t.Errorf("%s + %s: disabled %v, %d hooks", c.project, c.local, s.DisableAllHooks, len(s.Hooks))
		}
		rep := dispatch(t, d, bashCall("ls"))
		if ran := len(rep.Handlers) == 1; ran == c.disabled {
			t.Errorf("%s + %s: %d handlers registered", c.project, c.local, len(rep.Handlers))
		}
	}
	if _, err := Parse(SettingsFile, []byte(`{"disableAllHooks": "yes"}`)); err == nil || err.Error() != ".claude/settings.json: disableAllHooks must be true or false, not a string" {
		t.Errorf("got %v", err)
	}
}
