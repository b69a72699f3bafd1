package config

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// setup makes a user config folder and a project folder.
func setup(t *testing.T, user, project string) (cwd string) {
	t.Helper()
	root := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(root, "xdg"))
	cwd = filepath.Join(root, "project")
	os.MkdirAll(cwd, 0o755)
	if user != "" {
		write(t, filepath.Join(root, "xdg", "podcode", FileName), user)
	}
	if project != "" {
		write(t, filepath.Join(cwd, FileName), project)
	}
	return cwd
}

// covers H2 P9
func TestLoadMergesUserThenProject(t *testing.T) {
	cwd := setup(t, `{
		// the user's plugins load first
		"plugin": ["./u1.ts", "u-pkg"],
		"plugin_config": {"a": {"level": "warn"}, "b": {"x": 1}},
		"disabled_plugins": ["old"],
		"model": "offline/echo",
		"provider": {"openai": {"options": {"baseURL": "u", "timeout": 5},
			"models": {"gpt": {"limit": {"context": 1000, "output": 100}, "options": {"a": 1}}}}},
		"tools": {"allowed_paths": ["/opt/shared"], "bash_timeout_ms": 1000},
	}`, `{
		/* project */
		"plugin": ["./p1.ts"],
		"plugin_config": {"a": {"level": "debug"}},
		"disabled_plugins": ["old", "other"],
		"model": "openai/gpt",
		"provider": {"openai": {"options": {"baseURL": "p"},
			"models": {"gpt": {"limit": {"output": 50}}, "mini": {"limit": {"context": 10, "output": 5}}}}},
		"tools": {"allowed_paths": ["../lib"], "plugin_timeout_ms": 2000},
	}`)
	cfg, err := Load(cwd)
	if err != nil {
		t.Fatal(err)
	}
	var specs []string
	for _, p := range cfg.Plugin {
		specs = append(specs, p.Spec)
	}
	if got := strings.Join(specs, " "); got != "./u1.ts u-pkg ./p1.ts" {
		t.Errorf("plugin order %q", got)
	}
	if cfg.Plugin[0].Project || !cfg.Plugin[2].Project || cfg.Plugin[2].Dir != cwd || cfg.Plugin[1].Line != 3 {
		t.Errorf("plugin refs %+v", cfg.Plugin)
	}
	// Each plugin reads the block of its own layer.
	if string(cfg.PluginConfig["a"]) != `{"level":"warn"}` || string(cfg.PluginConfig["b"]) != `{"x":1}` || string(cfg.ProjectPluginConfig["a"]) != `{"level":"debug"}` {
		t.Errorf("plugin_config %s %s, project's %s", cfg.PluginConfig["a"], cfg.PluginConfig["b"], cfg.ProjectPluginConfig["a"])
	}
	if strings.Join(cfg.DisabledPlugins, ",") != "old,other" || cfg.Model != "offline/echo" || cfg.ProjectModel != "openai/gpt" {
		t.Errorf("disabled %v model %q, project's %q", cfg.DisabledPlugins, cfg.Model, cfg.ProjectModel)
	}
	// The user's endpoint stands; the project may lower a limit of the
	// user's model; its new model waits for trust.
	p := cfg.Provider["openai"]
	if p.Options["baseURL"] != "u" || p.Options["timeout"] != float64(5) {
		t.Errorf("provider options %v", p.Options)
	}
	if g := p.Models["gpt"]; g.Limit != (Limit{1000, 50}) || g.Options["a"] != float64(1) {
		t.Errorf("gpt %+v", g)
	}
	pending := cfg.Pending()
	if _, ok := p.Models["mini"]; ok || len(pending) != 2 || !strings.HasPrefix(pending[0].Key, "provider.openai.models.mini.limit.") {
		t.Errorf("mini before trust %+v, pending %+v", p.Models["mini"], pending)
	}
	// ../lib is outside the user's directories: a project's list narrows
	// the user's to what both allow, here nothing.
	if len(cfg.Tools.AllowedPaths) != 0 || cfg.Tools.BashTimeoutMs != 1000 || cfg.Tools.PluginTimeoutMs != 2000 {
		t.Errorf("tools %+v", cfg.Tools)
	}
	w := strings.Join(cfg.Warnings, "\n")
	for _, want := range []string{`podcode.json:7:39: key "provider.openai.options.baseURL": ignored in a project's file`,
		`podcode.json:9:13: key "tools.allowed_paths": "../lib" ignored`} {
		if !strings.Contains(w, want) {
			t.Errorf("no warning %q in:\n%s", want, w)
		}
	}
	if err := cfg.ApplyTrusted(); err != nil {
		t.Fatal(err)
	}
	if m := cfg.Provider["openai"].Models["mini"]; m.Limit.Context != 10 {
		t.Errorf("mini once trusted %+v", m)
	}
	if len(cfg.Files) != 2 {
		t.Errorf("files %v", cfg.Files)
	}
}

func TestLoadWithoutFiles(t *testing.T) {
	cfg, err := Load(setup(t, "", ""))
	if err != nil || len(cfg.Files) != 0 || cfg.Model != "" {
		t.Fatalf("%+v, %v", cfg, err)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "/home/someone")
	if dir, _ := UserDir(); dir != filepath.Join("/home/someone", ".config", "podcode") {
		t.Errorf("UserDir without XDG = %s", dir)
	}
}

// A bad config is reported with its file, line and key; never a panic.
func TestErrorsNameFileLineAndKey(t *testing.T) {
	cases := []struct {
		name, content string
		line          int
		key, msg      string
	}{
		{"syntax", "{\n  \"model\": \"a/b\",\n  \"plugin\": [\"x\" \"y\"]\n}", 3, "", "invalid character"},
		{"type", "{\n  \"plugin\": \"./one.ts\"\n}", 2, "plugin", "want an array, found a JSON string"},
		{"nested type", "{\n \"provider\": {\"o\": {\"models\": {\"m\": {\n   \"limit\": {\"output\": \"lots\"}}}}}\n}", 3, "provider.o.models.m.limit.output", "want a number"},
		{"model form", "{\n\n  \"model\": \"gpt-4\"\n}", 3, "model", `"provider/model"`},
		{"limits", "{\"provider\": {\"o\": {\"models\": {\"m\": {\n\"limit\": {\"context\": 10, \"output\": 20}}}}}}", 2, "provider.o.models.m.limit", "exceeds"},
		{"empty plugin", "{\"plugin\": [\n\"\"]}", 1, "plugin", "empty"},
		{"not an object", "[1, 2]", 1, "", "one JSON object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("/p/podcode.json", []byte(c.content), true)
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v (%T), want *Error", err, err)
			}
			if ce.File != "/p/podcode.json" || ce.Line != c.line || ce.Key != c.key || !strings.Contains(ce.Msg, c.msg) {
				t.Errorf("got %+v (%q), want line %d key %q msg ~%q", *ce, err, c.line, c.key, c.msg)
			}
			if !strings.HasPrefix(err.Error(), "/p/podcode.json:") {
				t.Errorf("message %q does not start with the file", err)
			}
		})
	}
}

func TestUnknownKeyWarns(t *testing.T) {
	cfg, err := Parse("podcode.json", []byte("{\n  \"plugins\": [\"a.ts\"]\n}"), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Warnings) != 1 || !strings.Contains(cfg.Warnings[0], `podcode.json:2:3: key "plugins": unknown key`) {
		t.Errorf("warnings %q", cfg.Warnings)
	}
}

func TestProjectInUserFolderReadOnce(t *testing.T) {
	root := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", root)
	dir := filepath.Join(root, "podcode")
	write(t, filepath.Join(dir, FileName), `{"plugin": ["a.ts"]}`)
	cfg, err := Load(dir)
	if err != nil || len(cfg.Plugin) != 1 {
		t.Fatalf("%+v %v", cfg, err)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{`{}`, `{"plugin": ["a", 1]}`, `{"model": "x/y", /* c */ "provider": {"p": {"models": {"m": {"limit": {"context": 1, "output": 2}}}}},}`,
		`{"plugin_config": {"": 1}}`, "{\n\"tools\": {\"bash_timeout_ms\": -1}}", `{"a":`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := Parse("podcode.json", data, true)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) || ce.File != "podcode.json" {
				t.Fatalf("error without a position: %v", err)
			}
			return
		}
		if _, err := json.Marshal(cfg.Provider); err != nil {
			t.Fatalf("decoded an unencodable provider: %v", err)
		}
	})
}

// A project's file cannot switch on what the user's forbids, switch off
// the user's guards, replace the user's jobs and webhooks, nor grant API
// access.
func TestProjectCannotOverrideUserGuards(t *testing.T) {
	cwd := setup(t, `{
		"disable_project_plugins": true,
		"disabled_plugins": ["old"],
		"permission": {"bash": "deny", "edit": "ask"},
		"hooks": {"audit/PreToolUse": {"enabled": false}},
		"server": {"tokens": [{"token": "{env:T1}", "tenant_id": 1, "user_id": "ann"}]},
		"cron": [{"name": "daily", "schedule": "0 9 * * *", "prompt": "user's"}],
		"webhooks": {"ci": {"secret": "s", "prompt": "user's"}},
	}`, `{
		"disable_project_plugins": false,
		"disabled_plugins": ["user-guard"],
		"permission": {"bash": "allow", "edit": "deny", "read": "allow"},
		"hooks": {"audit/PreToolUse": {"enabled": true}, "user-guard/PreToolUse": {"enabled": false}},
		"server": {"tokens": [{"token": "mine", "tenant_id": 9, "user_id": "eve"}]},
		"cron": [{"name": "daily", "schedule": "0 10 * * 1-5", "prompt": "project's"}, {"name": "weekly", "schedule": "@weekly", "prompt": "w"}],
		"webhooks": {"ci": {"secret": "p", "prompt": "project's"}, "deploy": {"secret": "d", "prompt": "p"}},
	}`)
	cfg, err := Load(cwd)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.DisableProjectPlugins {
		t.Error("the project's file switched disable_project_plugins off")
	}
	if user, project := cfg.HookOverridesFor(false), cfg.HookOverridesFor(true); len(user) != 1 || user["audit/PreToolUse"] ||
		project["audit/PreToolUse"] || project["user-guard/PreToolUse"] {
		t.Errorf("hooks: for the user's handlers %v, for the project's %v", user, project)
	}
	if d := cfg.DisabledFor(false); strings.Join(d, ",") != "old" {
		t.Errorf("the project's disabled_plugins reach the user's plugins: %v", d)
	}
	if d := cfg.DisabledFor(true); strings.Join(d, ",") != "old,user-guard" {
		t.Errorf("disabled for project code: %v", d)
	}
	// The rules stay apart: the guard keeps, per tool, the stricter.
	if p, pp := cfg.Permission, cfg.ProjectPermission; len(p) != 2 || p["bash"] != "deny" || p["edit"] != "ask" ||
		len(pp) != 3 || pp["bash"] != "allow" || pp["edit"] != "deny" || pp["read"] != "allow" {
		t.Errorf("permission %v, project's %v", p, pp)
	}
	if len(cfg.Server.Tokens) != 1 || cfg.Server.Tokens[0].UserID != "ann" {
		t.Errorf("tokens %+v", cfg.Server.Tokens)
	}
	if len(cfg.Cron) != 1 || len(cfg.Webhooks) != 1 {
		t.Errorf("the project's jobs merged before trust: %+v %+v", cfg.Cron, cfg.Webhooks)
	}
	if err := cfg.ApplyTrusted(); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Cron) != 2 || cfg.Cron[0].Prompt != "user's" || cfg.Cron[0].Project || !cfg.Cron[1].Project {
		t.Errorf("cron %+v", cfg.Cron)
	}
	if cfg.Webhooks["ci"].Secret != "s" || cfg.Webhooks["ci"].Project || !cfg.Webhooks["deploy"].Project {
		t.Errorf("webhooks %+v", cfg.Webhooks)
	}
	w := strings.Join(cfg.Warnings, "\n")
	for _, want := range []string{`"server.tokens": ignored`, `"disable_project_plugins": ignored`, `"permission.bash": "allow" ignored`,
		`job "daily" ignored`, `"webhooks.ci": ignored`} {
		if !strings.Contains(w, want) {
			t.Errorf("no warning %q in:\n%s", want, w)
		}
	}
}

func TestExpandEnvOnePass(t *testing.T) {
	t.Setenv("SELF", "a{env:SELF}b")
	t.Setenv("K", "v")
	if got := ExpandEnv("x{env:SELF}y{env:K}{env:"); got != "xa{env:SELF}byv{env:" {
		t.Errorf("%q", got)
	}
}

// An unset variable expands to nothing, and is named; a set one, even
// empty, is not.
func TestExpandEnvNamesUnsetVariables(t *testing.T) {
	t.Setenv("SET_BUT_EMPTY", "")
	t.Setenv("NOT_SET_AT_ALL", "x")
	os.Unsetenv("NOT_SET_AT_ALL")
	got, unset := ExpandEnvUnset("Bearer {env:NOT_SET_AT_ALL}{env:SET_BUT_EMPTY}/{env:NOT_SET_AT_ALL}")
	if got != "Bearer /" || strings.Join(unset, ",") != "NOT_SET_AT_ALL" {
		t.Errorf("%q %q", got, unset)
	}
}

func TestBadCronWebhookTokenHooks(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"cron": [{"name": "x", "schedule": "* * *", "prompt": "p"}]}`, `key "cron": job "x": schedule "* * *" does not have five fields`},
		{`{"cron": [{"name": "x", "schedule": "* * * * *"}]}`, `job "x" has no prompt`},
		{`{"webhooks": {"gh": {"prompt": "p"}}}`, `key "webhooks.gh.secret": a webhook needs a secret`},
		{`{"server": {"tokens": [{"token": "t"}]}}`, `tenant_id must be a positive number`},
		{`{"hooks": {"PreToolUse": {"enabled": false}}}`, `"PreToolUse" is not of the form`},
	} {
		_, err := Parse("p.json", []byte(c.in), false)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		}
	}
}
