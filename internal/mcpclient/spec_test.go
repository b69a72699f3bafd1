package mcpclient

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/config"
)

// .mcp.json in Claude Code's shape: stdio, http and sse servers, a url
// without a type taken as http; an entry that cannot be used is a warning
// that names it, and the others load.
func TestParseProjectFile(t *testing.T) {
	data := []byte(`{
  // comments are allowed, as in podcode.json
  "mcpServers": {
    "memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "env": {"MEMORY_FILE_PATH": "${HOME}/m.json"}},
    "remote": {"type": "http", "url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}},
    "old": {"type": "sse", "url": "https://old.example.com/sse"},
    "bare": {"url": "https://bare.example.com/mcp"},
    "weird": {"type": "websocket", "url": "wss://x"},
    "empty": {},
    "extra": {"command": "srv", "alwaysAllow": ["x"]},
  },
  "other": 1
}`)
	specs, warnings, err := ParseProjectFile("/p/.mcp.json", data)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Spec{}
	for _, s := range specs {
		got[s.Name] = s
	}
	if s := got["memory"]; s.Transport != Stdio || s.Command != "npx" || len(s.Args) != 2 || s.Env["MEMORY_FILE_PATH"] != "${HOME}/m.json" || !s.Project || s.Origin != "/p/.mcp.json:4" {
		t.Errorf("memory: %+v", s)
	}
	if s := got["remote"]; s.Transport != HTTP || s.Headers["Authorization"] != "Bearer ${TOKEN}" {
		t.Errorf("remote: %+v", s)
	}
	if got["old"].Transport != SSE || got["bare"].Transport != HTTP || got["extra"].Command != "srv" {
		t.Errorf("old %+v bare %+v extra %+v", got["old"], got["bare"], got["extra"])
	}
	if _, ok := got["weird"]; ok {
		t.Error("a websocket server was taken")
	}
	if _, ok := got["empty"]; ok {
		t.Error("an empty entry was taken")
	}
	want := []string{
		`/p/.mcp.json:8:5: mcpServers.weird: ignored: type "websocket" is not stdio, http or sse`,
		`/p/.mcp.json:9:5: mcpServers.empty: ignored: a stdio server needs a command`,
		`/p/.mcp.json:10:5: mcpServers.extra: json: unknown field "alwaysAllow"; the rest of the entry is used`,
		`/p/.mcp.json:12:3: key "other" ignored: Podcode reads mcpServers`,
	}
	if strings.Join(warnings, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant\n%s", strings.Join(warnings, "\n"), strings.Join(want, "\n"))
	}
}

// A file that is not JSON, or not of Claude Code's shape, is an error that
// names the file, line and column.
func TestParseProjectFileErrors(t *testing.T) {
	for _, c := range []struct{ data, want string }{
		{`{"mcpServers": {"a": {"command": "x"}}`, "/p/.mcp.json:1:"},
		{`[1]`, "/p/.mcp.json:1:1: not a JSON object"},
		{`{"mcpServers": [1]}`, `/p/.mcp.json:1:16: key "mcpServers": not an object of servers by name`},
	} {
		_, _, err := ParseProjectFile("/p/.mcp.json", []byte(c.data))
		var ce *config.Error
		if err == nil || !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s: %v, want %s…", c.data, err, c.want)
		}
	}
}

// Specs: the user's servers, then the project's; a project's .mcp.json
// server of a name podcode.json uses is left out with a warning; a disabled
// one is not started; {env:NAME} is expanded in the user's file.
func TestSpecs(t *testing.T) {
	t.Setenv("PODCODE_TEST_MCP_TOKEN", "s3cret")
	project := t.TempDir()
	user := t.TempDir()
	write := func(path, data string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(user, "podcode.json"), `{"mcp": {
		"docs": {"type": "remote", "url": "https://docs.example.com/mcp", "headers": {"Authorization": "Bearer {env:PODCODE_TEST_MCP_TOKEN}"}},
		"off": {"type": "local", "command": ["srv"], "enabled": false}}}`)
	write(filepath.Join(project, "podcode.json"), `{"mcp": {
		"docs": {"type": "local", "command": ["evil"]},
		"lint": {"type": "local", "command": ["node", "lint.js"]}}}`)
	write(filepath.Join(project, ".mcp.json"), `{"mcpServers": {"lint": {"command": "other"}, "memory": {"command": "npx"}}}`)
	cfg, err := config.LoadFrom(project, user)
	if err != nil {
		t.Fatal(err)
	}
	specs, warnings, err := Specs(cfg, project)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
		switch s.Name {
		case "docs":
			if s.Project || s.Transport != Remote || s.Headers["Authorization"] != "Bearer s3cret" {
				t.Errorf("docs: %+v", s)
			}
		case "lint":
			if !s.Project || s.Command != "node" || s.Args[0] != "lint.js" || s.Origin != filepath.Join(project, "podcode.json")+":3" {
				t.Errorf("lint: %+v", s)
			}
		case "memory":
			if !s.Project || s.Command != "npx" {
				t.Errorf("memory: %+v", s)
			}
		}
	}
	if strings.Join(names, " ") != "docs lint memory" {
		t.Errorf("servers %v", names)
	}
	if !strings.Contains(strings.Join(cfg.Warnings, "\n"), `mcp.docs": ignored: the user's file has an MCP server of that name`) {
		t.Errorf("config warnings: %q", cfg.Warnings)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], `MCP server "lint" ignored: podcode.json has a server of that name`) {
		t.Errorf("warnings: %q", warnings)
	}
}

// A project's podcode.json may not expand the user's environment into a
// server's values, trusted or not.
func TestProjectEnvNotExpanded(t *testing.T) {
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, "podcode.json"), []byte(`{"mcp": {"x": {"type": "remote", "url": "https://x.example.com", "headers": {"A": "{env:HOME}"}}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.LoadFrom(project, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	specs, _, err := Specs(cfg, project)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		if strings.Contains(s.Headers["A"], "/") {
			t.Fatalf("the project's header carries the user's environment: %+v", s)
		}
	}
	if !strings.Contains(strings.Join(cfg.Warnings, "\n"), "{env:…} is expanded in the user's file only") {
		t.Errorf("no warning: %q", cfg.Warnings)
	}
}

// ${NAME} and ${NAME:-default} in a trusted .mcp.json entry are expanded
// as Claude Code expands them; podcode.json's entries are not touched.
func TestExpand(t *testing.T) {
	env := map[string]string{"TOKEN": "t", "EMPTY": ""}
	getenv := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	s := Spec{file: "/p/.mcp.json", claude: true, Command: "${BIN:-npx}", Args: []string{"--token=${TOKEN}", "${EMPTY:-fallback}", "${EMPTY}", "${UNSET}", "$HOME", "${open"},
		URL: "https://x/${TOKEN}", Headers: map[string]string{"A": "Bearer ${TOKEN}"}, Env: map[string]string{"K": "${TOKEN}"}}
	got := s.Expand(getenv)
	if got.Command != "npx" || strings.Join(got.Args, " ") != "--token=t fallback   $HOME ${open" || got.URL != "https://x/t" || got.Headers["A"] != "Bearer t" || got.Env["K"] != "t" {
		t.Errorf("%+v", got)
	}
	if s.Args[0] != "--token=${TOKEN}" {
		t.Error("Expand changed the original")
	}
	s.file, s.claude = "/p/podcode.json", false
	if got := s.Expand(getenv); got.Command != "${BIN:-npx}" {
		t.Errorf("podcode.json's entry expanded: %+v", got)
	}
}

// Ids: <server>_<tool>, with what providers refuse replaced, and cut to 64
// characters with a hash that keeps two long names apart.
func TestToolID(t *testing.T) {
	if got := ToolID("memory", "create_entities"); got != "memory_create_entities" {
		t.Error(got)
	}
	if got := ToolID("gh", "repos/list.all"); got != "gh_repos_list_all" {
		t.Error(got)
	}
	long := strings.Repeat("x", 80)
	a, b := ToolID("s", long+"a"), ToolID("s", long+"b")
	if len(a) != 64 || len(b) != 64 || a == b {
		t.Errorf("%s %s", a, b)
	}
}

// FuzzParseProjectFile: whatever the file holds, parsing returns specs,
// warnings or an error, never panics, and every spec it returns is usable.
func FuzzParseProjectFile(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "args": ["1"]}, "b": {"type": "sse", "url": "http://x"}}}`))
	f.Add([]byte(`{"mcpServers": {"a": {"url": 1}}}`))
	f.Add([]byte(`{"mcpServers": {"": {"command": "x"}, "b c": {"command": "y"}}} // x`))
	f.Add([]byte(`[[[[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		specs, _, err := ParseProjectFile("/p/.mcp.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "/p/.mcp.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		for _, s := range specs {
			if err := s.check(); err != nil {
				t.Fatalf("spec %+v returned though %v", s, err)
			}
		}
	})
}

// A project's server is fingerprinted by what runs: a command or script
// named with ${NAME:-default} (filled in only at start) or an env that
// changes what the program loads makes the project's folder an item of
// its own, so that an edit of the file that really runs untrusts it.
func TestTrustItemCoversWhatRuns(t *testing.T) {
	project := t.TempDir()
	for name, content := range map[string]string{"srv/run": "#!/bin/sh\nexec python3 srv/main.py\n", "srv/main.py": "import helper\n", "lib/sitecustomize.py": "", "srv/plain": "#!/bin/sh\necho ready\n", "srv/solo.py": "print('ready')\n", "srv/with-lib": "#!/bin/sh\n. \"$LIB/lib.sh\"\n"} {
		os.MkdirAll(filepath.Dir(filepath.Join(project, name)), 0o755)
		if err := os.WriteFile(filepath.Join(project, name), []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mcpFile := filepath.Join(project, ProjectFile)
	for _, c := range []struct {
		name  string
		spec  Spec
		reads bool
	}{
		{"a program named by ${}", Spec{Name: "a", Transport: Stdio, file: mcpFile, claude: true, Command: "${PODCODE_NOPE:-.}/srv/run"}, true},
		{"a script named by ${}", Spec{Name: "b", Transport: Stdio, file: mcpFile, claude: true, Command: "sh", Args: []string{"${DIR:-srv}/run"}}, true},
		{"PYTHONPATH in env", Spec{Name: "c", Transport: Stdio, file: mcpFile, claude: true, Command: "./srv/plain", Env: map[string]string{"PYTHONPATH": "lib"}}, true},
		{"a folder a script reads named by ${} in env", Spec{Name: "f", Transport: Stdio, file: mcpFile, claude: true, Command: "./srv/with-lib", Env: map[string]string{"LIB": "${NOPE:-evil}"}}, true},
		{"LD_PRELOAD in env", Spec{Name: "d", Transport: Stdio, file: mcpFile, claude: true, Command: "./srv/plain", Env: map[string]string{"LD_PRELOAD": "./lib/evil.so"}}, true},
		{"a token by ${} for a named script", Spec{Name: "e", Transport: Stdio, file: mcpFile, claude: true, Command: "./srv/plain", Args: []string{"--token", "${TOKEN}"}, Env: map[string]string{"API_TOKEN": "${TOKEN}"}}, false},
	} {
		_, reads, err := c.spec.TrustItem(project)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(reads) > 0; got != c.reads {
			t.Errorf("%s: reads %v, want the project's folder: %v", c.name, reads, c.reads)
		}
	}
}

// A Claude Code plugin's servers: .mcp.json in either shape, then
// plugin.json's mcpServers (inline or a file of the plugin), named as
// Claude Code names them, ${CLAUDE_PLUGIN_ROOT} the plugin's folder.
func TestPluginSpecs(t *testing.T) {
	write := func(dir, rel, text string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bare := t.TempDir()
	write(bare, ".mcp.json", `{"srv": {"command": "${CLAUDE_PLUGIN_ROOT}/bin/srv", "args": ["--root", "${CLAUDE_PLUGIN_ROOT}"], "env": {"T": "${TOKEN:-x}"}}}`)
	write(bare, ".claude-plugin/plugin.json", `{"name": "my.plugin", "mcpServers": {"web": {"type": "http", "url": "https://example.com/mcp"}}}`)
	specs, warnings := PluginSpecs(bare, "my.plugin", true)
	if len(warnings) != 0 || len(specs) != 2 {
		t.Fatalf("specs %+v, warnings %q", specs, warnings)
	}
	s := specs[0]
	if s.Name != "plugin_my_plugin_srv" || s.Command != bare+"/bin/srv" || s.Args[1] != bare || !s.Project || s.Transport != Stdio {
		t.Errorf("srv: %+v", s)
	}
	if got := s.Expand(func(string) (string, bool) { return "", false }); got.Env["T"] != "x" {
		t.Errorf("${TOKEN:-x} in a plugin's entry: %q", got.Env["T"])
	}
	if specs[1].Name != "plugin_my_plugin_web" || specs[1].Transport != HTTP || specs[1].URL != "https://example.com/mcp" ||
		specs[1].Origin != filepath.Join(bare, ".claude-plugin", "plugin.json")+":1" {
		t.Errorf("web: %+v", specs[1])
	}
	// A mistake in plugin.json's servers is said at its line.
	write(bare, ".claude-plugin/plugin.json", "{\"name\": \"my.plugin\",\n \"mcpServers\": {\n  \"bad\": {\"type\": \"ws\", \"url\": \"x\"}}}")
	if _, warnings := PluginSpecs(bare, "my.plugin", true); len(warnings) != 1 || !strings.Contains(warnings[0], "plugin.json:3:3: mcpServers.bad: ignored") {
		t.Errorf("warnings %q", warnings)
	}

	byPath := t.TempDir()
	write(byPath, ".claude-plugin/plugin.json", `{"name": "p", "mcpServers": "./config/servers.json"}`)
	write(byPath, "config/servers.json", `{"mcpServers": {"a": {"command": "node", "args": ["${CLAUDE_PLUGIN_ROOT}/a.js"]}}}`)
	specs, warnings = PluginSpecs(byPath, "p", false)
	if len(warnings) != 0 || len(specs) != 1 || specs[0].Name != "plugin_p_a" || specs[0].Args[0] != byPath+"/a.js" || specs[0].Project {
		t.Errorf("by path: %+v %q", specs, warnings)
	}

	outside := t.TempDir()
	write(outside, ".claude-plugin/plugin.json", `{"name": "o", "mcpServers": "../elsewhere.json"}`)
	write(outside, ".mcp.json", `{"mcpServers": {"bad": {"type": "ws", "url": "x"}}}`)
	specs, warnings = PluginSpecs(outside, "o", true)
	if len(specs) != 0 || len(warnings) != 2 || !strings.Contains(warnings[0], `type "ws" is not stdio, http or sse`) ||
		!strings.Contains(warnings[1], `mcpServers "../elsewhere.json" is outside the plugin; ignored`) {
		t.Errorf("outside: %+v %q", specs, warnings)
	}
}
