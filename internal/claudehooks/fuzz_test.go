package claudehooks

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/plugin"
)

// Settings files are written by hand and come with cloned repositories:
// decoding one must never panic, and must either fail with an error that
// names the file or give hooks that can be registered.
func FuzzLoadSettings(f *testing.F) {
	f.Add([]byte(`{"hooks": {"PreToolUse": [{"matcher": "Bash|Write", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]}]}}`))
	f.Add([]byte(`{"permissions": {"allow": ["Bash(npm test)"]}, "hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "echo hi"}]}]}}`))
	f.Add([]byte(`{"hooks": {"Notification": [{"matcher": "", "hooks": [{"type": "command", "command": "x"}]}], "Stop": null}}`))
	f.Add([]byte(`{"hooks": {"PreToolUse": [{"matcher": "mcp__.*__write.*", "hooks": [{"type": "command", "command": "sh", "args": ["${CLAUDE_PROJECT_DIR}/a.sh"], "if": "Bash(rm *)", "async": true}]}]}}`))
	f.Add([]byte(`{"hooks": {"SessionStart": [{"matcher": "resume", "hooks": [{"type": "command", "command": "x"}]}]}}`))
	f.Add([]byte(`{"hooks": {"PreToolUse": [{"matcher": "(", "hooks": [{"type": "prompt"}]}]}}`))
	f.Add([]byte(`{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 1e999}]}]}}`))
	f.Add([]byte(`{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "if": "Edit(src/**)", "shell": "bash"}]}]}}`))
	f.Add([]byte("{\"hooks\": {\"A\": 1, \"A\": [], \"\xff\": {}}}"))
	f.Add([]byte(`[]`))
	f.Add([]byte(`null`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(SettingsFile, data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), SettingsFile) {
				t.Fatalf("the error does not name the file: %v", err)
			}
			return
		}
		for _, w := range s.Warnings {
			if !strings.HasPrefix(w, SettingsFile+": hooks") {
				t.Fatalf("the warning does not name the file and entry: %s", w)
			}
		}
		for _, h := range s.Hooks {
			if h.File != SettingsFile || !strings.HasPrefix(h.Where, "hooks."+h.Event+"[") {
				t.Fatalf("hook without its place: %+v", h)
			}
			if _, ok := events[h.Event]; !ok {
				t.Fatalf("hook for an event Podcode does not run: %+v", h)
			}
			if strings.TrimSpace(h.Command) == "" || h.Timeout < 0 || h.Timeout > maxTimeout*1e9 {
				t.Fatalf("bad hook: %+v", h)
			}
			h.match.podcodeRegexp() // must compile whatever the matcher
			h.match.match("Bash", "")
			if h.cond != nil {
				h.cond.matches([]string{"Bash"}, map[string]any{"command": h.Command, "file_path": h.Command}, "/p")
			}
		}
		d := plugin.NewDispatcher(plugin.WithLogger(quietLog()))
		if _, err := Register(d, s, Options{ProjectDir: "/p", Log: quietLog(), Env: []string{}}); err != nil {
			t.Fatalf("parsed hooks must register: %v", err)
		}
	})
}

// A hook's stdout and stderr are whatever the script printed: decoding its
// answer must never panic, and must respect the exit-code contract.
func FuzzClaudeOutput(f *testing.F) {
	f.Add("PreToolUse", 0, []byte(`{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"no"}}`), []byte(""))
	f.Add("PreToolUse", 2, []byte(`{"hookSpecificOutput":{"permissionDecision":"allow"}}`), []byte("blocked"))
	f.Add("PreToolUse", 0, []byte(`{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls"}}}`), []byte(""))
	f.Add("UserPromptSubmit", 0, []byte("plain context\n"), []byte(""))
	f.Add("UserPromptSubmit", 0, []byte("{\"a\":1}\n{\"b\":[2]}"), []byte(""))
	f.Add("Stop", 0, []byte(`{"continue":false,"stopReason":"done","decision":"block"}`), []byte(""))
	f.Add("Stop", 0, []byte(`{"hookSpecificOutput":{"additionalContext":"more"}}`), []byte(""))
	f.Add("PostToolUse", 1, []byte(`{"decision":"block","reason":"r","hookSpecificOutput":{"updatedToolOutput":[1,{"x":null}]}}`), []byte("e"))
	f.Add("SessionStart", 2, []byte(""), []byte("x\ny"))
	f.Add("SessionEnd", 0, []byte(`{"systemMessage":7}`), []byte(""))
	f.Add("PreCompact", 127, []byte(`{`), []byte("sh: not found"))
	f.Fuzz(func(t *testing.T, event string, code int, stdout, stderr []byte) {
		res, err := fromClaudeOutput(event, code, stdout, stderr)
		ctl, known := controls[event]
		if !known {
			if err == nil {
				t.Fatalf("%q is not an event Podcode runs, yet no error", event)
			}
			return
		}
		if err != nil {
			if res != nil {
				t.Fatal("an error and a result")
			}
			return
		}
		if res == nil {
			return
		}
		if res.Decision != "" && !res.Decision.Valid() {
			t.Fatalf("invalid decision %q", res.Decision)
		}
		if res.Decision == "" && len(res.Data) == 0 {
			t.Fatal("an empty result should be nil")
		}
		if res.Decision == plugin.DecisionDeny && res.Message == "" {
			t.Fatal("a deny without a message")
		}
		if code == 2 && ctl != contexts && ctl != none && res.Decision != plugin.DecisionDeny {
			t.Fatalf("exit 2 on %s must deny, got %+v", event, res)
		}
		if ctl == none && res.Decision != "" {
			t.Fatalf("%s cannot vote, got %+v", event, res)
		}
		if ctl == contexts && res.Decision != "" && res.Decision != plugin.DecisionDeny {
			t.Fatalf("%s only ever denies (continue: false), got %+v", event, res)
		}
	})
}

// A Claude Code plugin a project names brings its own manifest: reading
// it must never panic, and must either fail with an error that names the
// plugin or give hooks rooted in the plugin's folder.
func FuzzLoadPlugin(f *testing.F) {
	f.Add([]byte(`{"name": "guards", "version": "1.0.0"}`))
	f.Add([]byte(`{"name": "guards", "hooks": "./more.json"}`))
	f.Add([]byte(`{"name": "guards", "hooks": ["./more.json", "../../x.json"]}`))
	f.Add([]byte(`{"name": "guards", "hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x"}]}]}}`))
	f.Add([]byte(`{"name": "guards", "hooks": {"hooks": {"PreToolUse": null}}}`))
	f.Add([]byte(`{"name": "../x", "hooks": 3}`))
	f.Add([]byte(`[]`))
	dir := f.TempDir()
	manifest := filepath.Join(dir, filepath.FromSlash(PluginManifest))
	if err := os.MkdirAll(filepath.Dir(manifest), 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(manifest, data, 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := LoadPlugin(dir, "")
		if err != nil {
			if !strings.Contains(err.Error(), "claude plugin ") {
				t.Fatalf("the error does not name the plugin: %v", err)
			}
			return
		}
		for _, h := range s.Hooks {
			if h.PluginRoot != dir || !strings.HasPrefix(h.File, s.Plugin.ItemName()+": ") {
				t.Fatalf("hook %+v", h)
			}
		}
	})
}
