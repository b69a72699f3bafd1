// Tests of the example plugins: each boots Podcode in a throw-away project
// that lists one plugin by absolute path, then drives the code path the
// server uses (Runner.CallTool, Runner.ChatParams).
package plugins_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/pipeline"
	"github.com/podcode/podcode/internal/provider"
	"github.com/podcode/podcode/internal/tool"
)

// project is a booted throw-away project.
type project struct {
	dir  string
	app  *app.App
	logs *apptest.Logs
}

// boot boots Podcode, as the server would, in a project whose podcode.json
// lists the plugin file (in this folder) by absolute path, with config as its
// plugin_config block unless config is nil, plus files.
func boot(t *testing.T, pluginFile, id string, config any, files map[string]string) *project {
	t.Helper()
	entry, err := filepath.Abs(pluginFile)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(entry); err != nil {
		t.Fatal(err)
	}
	var pc map[string]any
	if config != nil {
		pc = map[string]any{id: config}
	}
	a, logs := apptest.Boot(t, apptest.Project{Plugins: []string{entry}, PluginConfig: pc, Files: files})
	return &project{dir: a.Cwd, app: a, logs: logs}
}

// plugin returns the loaded plugin id, or nil.
func (p *project) plugin(id string) *jsplugin.Plugin {
	for _, pl := range p.app.Plugins.Plugins {
		if pl.ID == id {
			return pl
		}
	}
	return nil
}

// mustLoad fails t unless plugin id loaded.
func (p *project) mustLoad(t *testing.T, id string) *jsplugin.Plugin {
	t.Helper()
	pl := p.plugin(id)
	if pl == nil {
		t.Fatalf("plugin %s did not load; warnings: %q\nlogs:\n%s", id, p.app.Plugins.Warnings, strings.Join(p.logs.Lines(), "\n"))
	}
	return pl
}

func (p *project) call() tool.Call {
	return tool.Call{SessionID: "ses_test", MessageID: "msg_test", CallID: "call_test", Agent: "build", Cwd: p.dir}
}

// outcome returns the outcome of plugin's step in steps ("" if it did not run).
func outcome(steps []pipeline.Step, plugin, hook string) string {
	for _, s := range steps {
		if s.Plugin == plugin && s.Hook == hook {
			return s.Outcome
		}
	}
	return ""
}

// mustSkip fails t unless booting with config made the plugin remove itself
// with "plugin: server() threw" and a message containing want.
func mustSkip(t *testing.T, p *project, id, want string) {
	t.Helper()
	if p.plugin(id) != nil {
		t.Fatalf("plugin %s loaded despite a malformed config", id)
	}
	if _, ok := p.logs.Find("plugin: server() threw", "plugin="+id, want); !ok {
		t.Fatalf("no log line says server() threw with %q; logs:\n%s", want, strings.Join(p.logs.Lines(), "\n"))
	}
}

// Fake secrets, assembled at run time so that no secret scanner flags this
// file. The AWS key id is the example from AWS's own documentation.
var (
	fakeAWS    = "AKIA" + "IOSFODNN7EXAMPLE"
	fakeOpenAI = "sk-" + "proj-" + strings.Repeat("x1Y2", 8)
	fakeGitHub = "gh" + "p_" + strings.Repeat("aB3d", 9)
	fakePass   = "hunter2-correct-horse"
	fakePEM    = []string{"-----BEGIN " + "RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEA7yn3bRHQ5FHMQ", "q1cLmJ2ppXXjT0k", "-----END " + "RSA PRIVATE KEY-----"}
)

// covers H17
func TestRedactSecrets(t *testing.T) {
	const id = "redact-secrets"
	p := boot(t, "redact-secrets.ts", id, nil, map[string]string{".env": "DEBUG=1\nAPI_TOKEN=abc123def456\n"})
	p.mustLoad(t, id)
	ctx := context.Background()

	// Five secrets: one per kind. GITHUB_TOKEN is both a NAME=value line and
	// a GitHub token, and must count once; SESSION_TOKEN was redacted
	// upstream and must not count at all.
	lines := append([]string{
		"build ok",
		"SESSION_TOKEN=[REDACTED]",
		"aws_access_key_id = " + fakeAWS,
		"OPENAI_API_KEY=" + fakeOpenAI,
		"GITHUB_TOKEN=" + fakeGitHub,
		"DB_PASSWORD=" + fakePass,
		"MAX_RETRIES=3",
	}, fakePEM...)
	lines = append(lines, "done")
	const secrets = 5
	command := "printf '%s\\n' '" + strings.Join(lines, "' '") + "'"

	res, rep, err := p.app.Runner.CallTool(ctx, p.call(), "bash", map[string]any{"command": command})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append([]string{fakeAWS, fakeOpenAI, fakeGitHub, fakePass}, fakePEM...) {
		if strings.Contains(res.Output, s) {
			t.Errorf("the model would see %q; output:\n%s", s, res.Output)
		}
	}
	if n := strings.Count(res.Output, "[REDACTED]"); n != secrets+1 {
		t.Errorf("output has %d [REDACTED], want %d; output:\n%s", n, secrets+1, res.Output)
	}
	for _, keep := range []string{"build ok\n", "aws_access_key_id = [REDACTED]\n", "GITHUB_TOKEN=[REDACTED]\n",
		"DB_PASSWORD=[REDACTED]\n", "MAX_RETRIES=3\n", "done\n"} {
		if !strings.Contains(res.Output, keep) {
			t.Errorf("output lacks %q; output:\n%s", keep, res.Output)
		}
	}
	if got := res.Metadata["redacted"]; got != float64(secrets) {
		t.Errorf("metadata.redacted = %v (%T), want %d", got, got, secrets)
	}
	if got := res.Metadata["exit"]; got != float64(0) {
		t.Errorf("metadata.exit = %v: the hook dropped bash's own metadata; metadata %v", got, res.Metadata)
	}
	if o := outcome(rep.Steps, id, jsplugin.HookToolAfter); o != pipeline.Changed {
		t.Errorf("redactor outcome = %q, want %q", o, pipeline.Changed)
	}

	// Any tool's result is scrubbed, not only bash's.
	res, _, err = p.app.Runner.CallTool(ctx, p.call(), "read", map[string]any{"path": ".env"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Output, "API_TOKEN=[REDACTED]") || strings.Contains(res.Output, "abc123def456") ||
		!strings.Contains(res.Output, "DEBUG=1") || res.Metadata["redacted"] != float64(1) {
		t.Errorf("read .env: output %q, metadata %v", res.Output, res.Metadata)
	}

	// Nothing to redact: the hook returns undefined and the result is bash's.
	res, rep, err = p.app.Runner.CallTool(ctx, p.call(), "bash", map[string]any{"command": "echo nothing to hide"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "nothing to hide\n" {
		t.Errorf("clean output changed to %q", res.Output)
	}
	if _, ok := res.Metadata["redacted"]; ok {
		t.Errorf("metadata.redacted set on a clean result: %v", res.Metadata)
	}
	if o := outcome(rep.Steps, id, jsplugin.HookToolAfter); o != pipeline.Unchanged {
		t.Errorf("redactor outcome on a clean result = %q, want %q", o, pipeline.Unchanged)
	}
}

// covers H13 P9
func TestTemperaturePolicy(t *testing.T) {
	const id = "temperature-policy"
	ctx := context.Background()
	chat := func(t *testing.T, p *project, specified map[string]any) (provider.Params, []pipeline.Step) {
		t.Helper()
		model, err := p.app.Model()
		if err != nil {
			t.Fatal(err)
		}
		return p.app.Runner.ChatParams(ctx, pipeline.ChatInput{SessionID: "ses_test", Agent: "build", Model: model, Specified: specified})
	}

	t.Run("policy", func(t *testing.T) {
		p := boot(t, "temperature-policy.ts", id, map[string]any{"default": 0.2, "max": 0.7}, nil)
		p.mustLoad(t, id)
		for _, c := range []struct {
			name      string
			specified map[string]any
			want      float64
			outcome   string
		}{
			{"undefined gets the default", map[string]any{}, 0.2, pipeline.Changed},
			{"above max is clamped", map[string]any{"temperature": 0.9}, 0.7, pipeline.Changed},
			{"explicit 0 stays", map[string]any{"temperature": 0.0}, 0, pipeline.Unchanged},
			{"within bounds stays", map[string]any{"temperature": 0.5}, 0.5, pipeline.Unchanged},
			{"max itself stays", map[string]any{"temperature": 0.7}, 0.7, pipeline.Unchanged},
		} {
			req, steps := chat(t, p, c.specified)
			if req.Temperature == nil || *req.Temperature != c.want {
				t.Errorf("%s: temperature = %v, want %v", c.name, deref(req.Temperature), c.want)
			}
			if o := outcome(steps, id, jsplugin.HookChatParams); o != c.outcome {
				t.Errorf("%s: outcome %q, want %q", c.name, o, c.outcome)
			}
		}
		// The rest of the payload survives the rewrite.
		req, _ := chat(t, p, map[string]any{"topP": 0.9, "maxOutputTokens": 100.0})
		if req.Temperature == nil || *req.Temperature != 0.2 || req.TopP == nil || *req.TopP != 0.9 || req.MaxOutputTokens != 100 {
			t.Errorf("with topP and maxOutputTokens: %+v (temperature %v, topP %v)", req, deref(req.Temperature), deref(req.TopP))
		}
	})

	t.Run("only max", func(t *testing.T) {
		p := boot(t, "temperature-policy.ts", id, map[string]any{"max": 0.5}, nil)
		p.mustLoad(t, id)
		if req, _ := chat(t, p, map[string]any{}); req.Temperature != nil {
			t.Errorf("no default configured, yet temperature = %v", *req.Temperature)
		}
		if req, _ := chat(t, p, map[string]any{"temperature": 1.5}); deref(req.Temperature) != 0.5 {
			t.Errorf("1.5 with max 0.5 became %v", deref(req.Temperature))
		}
	})

	t.Run("no config", func(t *testing.T) {
		p := boot(t, "temperature-policy.ts", id, nil, nil)
		pl := p.mustLoad(t, id)
		if len(pl.Hooks) != 0 {
			t.Errorf("without config the plugin registered hooks %v", pl.Hooks)
		}
		if req, _ := chat(t, p, map[string]any{}); req.Temperature != nil {
			t.Errorf("temperature = %v without config, want unset", *req.Temperature)
		}
		if req, _ := chat(t, p, map[string]any{"temperature": 0.9}); deref(req.Temperature) != 0.9 {
			t.Errorf("temperature 0.9 became %v without config", deref(req.Temperature))
		}
	})

	for _, c := range []struct {
		name   string
		config any
		want   string
	}{
		{"not a number", map[string]any{"default": "hot"}, `plugin_config["temperature-policy"].default must be a number from 0 to 2, not "hot"`},
		{"out of range", map[string]any{"max": 7}, `.max must be a number from 0 to 2, not 7`},
		{"default above max", map[string]any{"default": 0.9, "max": 0.5}, "default (0.9) is above max (0.5)"},
		{"unknown key", map[string]any{"maximum": 0.5}, `unknown key "maximum"`},
		{"not an object", []any{0.2, 0.7}, "must be an object"},
	} {
		t.Run("malformed/"+c.name, func(t *testing.T) {
			p := boot(t, "temperature-policy.ts", id, c.config, nil)
			mustSkip(t, p, id, c.want)
			if req, _ := chat(t, p, map[string]any{}); req.Temperature != nil {
				t.Errorf("a skipped plugin still set temperature %v", *req.Temperature)
			}
		})
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// covers H11
func TestWordCount(t *testing.T) {
	const id = "word-count"
	if _, err := os.Stat(filepath.Join("node_modules", "zod", "package.json")); err != nil {
		t.Fatalf("zod is not installed in examples/plugins/node_modules: run `npm ci` in examples/plugins (%v)", err)
	}
	text := "The cat and the hat.\nThe END, the end!\n  naïve café ☕ \nlast line without newline"
	const uniqueWords = 12 // the cat and hat end naïve café ☕ last line without newline
	p := boot(t, "word-count.ts", id, nil, map[string]string{"docs/notes.txt": text})
	pl := p.mustLoad(t, id)
	ctx := context.Background()

	def, ok := p.app.Tools.Get("word_count")
	if !ok || def.Source != id || len(pl.Tools) != 1 {
		t.Fatalf("word_count is not in the registry from %s (found %v; plugin tools %d)", id, ok, len(pl.Tools))
	}
	type property struct {
		Type    string `json:"type"`
		Default any    `json:"default"`
	}
	var schema struct {
		Type       string               `json:"type"`
		Properties map[string]*property `json:"properties"`
		Required   []string             `json:"required"`
	}
	if err := json.Unmarshal(def.Parameters, &schema); err != nil {
		t.Fatalf("parameters %s: %v", def.Parameters, err)
	}
	path, unique := schema.Properties["path"], schema.Properties["unique"]
	if schema.Type != "object" || path == nil || path.Type != "string" || unique == nil || unique.Type != "boolean" ||
		unique.Default != false || !slices.Contains(schema.Required, "path") || slices.Contains(schema.Required, "unique") {
		t.Errorf("JSON Schema the model reads: %s", def.Parameters)
	}

	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{}, "path: "},
		{map[string]any{"path": 42.0}, "path: "},
		{map[string]any{"path": "docs/notes.txt", "unique": "yes"}, "unique: "},
	} {
		_, _, err := p.app.Runner.CallTool(ctx, p.call(), "word_count", c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("args %v: error %v, want one naming %q", c.args, err, c.want)
		}
	}

	counts := func(t *testing.T, args map[string]any) tool.Result {
		t.Helper()
		res, _, err := p.app.Runner.CallTool(ctx, p.call(), "word_count", args)
		if err != nil {
			t.Fatalf("word_count %v: %v", args, err)
		}
		want := map[string]float64{"lines": 4, "words": float64(len(strings.Fields(text))), "characters": float64(utf8.RuneCountInString(text))}
		for k, n := range want {
			if res.Metadata[k] != n {
				t.Errorf("word_count %v: %s = %v, want %v; result %+v", args, k, res.Metadata[k], n, res)
			}
		}
		if !strings.Contains(res.Output, "docs/notes.txt") || !strings.Contains(res.Output, fmt.Sprintf("%d words", len(strings.Fields(text)))) {
			t.Errorf("output %q", res.Output)
		}
		return res
	}
	// unique defaults to false (zod's default applied before execute).
	if res := counts(t, map[string]any{"path": "docs/notes.txt"}); res.Metadata["unique"] != nil {
		t.Errorf("unique counted without being asked: %v", res.Metadata)
	}
	if res := counts(t, map[string]any{"path": "docs/notes.txt", "unique": true}); res.Metadata["unique"] != float64(uniqueWords) {
		t.Errorf("unique = %v, want %d", res.Metadata["unique"], uniqueWords)
	}
	// An absolute path inside the project is fine too.
	counts(t, map[string]any{"path": filepath.Join(p.dir, "docs", "notes.txt")})

	for path, want := range map[string]string{"../outside.txt": "outside the project", "/etc/hostname": "outside the project",
		"missing.txt": "cannot read missing.txt"} {
		if _, _, err := p.app.Runner.CallTool(ctx, p.call(), "word_count", map[string]any{"path": path}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("path %s: error %v, want %q", path, err, want)
		}
	}

	// A FIFO would block a read for as long as no one writes to it: the
	// host refuses to read anything but a regular file, at once, and says
	// what the file is. (A hung tool's cancellation is covered by the
	// pipeline's tests.)
	fifo := filepath.Join(p.dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, _, err := p.app.Runner.CallTool(cctx, p.call(), "word_count", map[string]any{"path": "pipe"})
	if err == nil || !strings.Contains(err.Error(), "cannot read pipe") || !strings.Contains(err.Error(), "not a regular file but a FIFO") {
		t.Errorf("word_count on a FIFO: error %v, want it refused as a FIFO", err)
	}
	// The plugin still serves calls afterwards.
	counts(t, map[string]any{"path": "docs/notes.txt"})
}

// covers H16
func TestBashTimeout(t *testing.T) {
	const id = "bash-timeout"
	ctx := context.Background()
	timeoutOf := func(t *testing.T, rep pipeline.ToolReport) any {
		t.Helper()
		args, ok := rep.Args.(map[string]any)
		if !ok {
			t.Fatalf("report args %#v", rep.Args)
		}
		return args["timeout"]
	}

	t.Run("configured", func(t *testing.T) {
		p := boot(t, "bash-timeout.ts", id, map[string]any{"timeout_ms": 20000}, map[string]string{"a.txt": "a\n"})
		p.mustLoad(t, id)
		for _, c := range []struct {
			name    string
			args    map[string]any
			want    float64
			outcome string
		}{
			{"none gets the limit", map[string]any{"command": "echo hi"}, 20000, pipeline.Changed},
			{"larger is capped", map[string]any{"command": "echo hi", "timeout": 999999.0}, 20000, pipeline.Changed},
			{"smaller stays", map[string]any{"command": "echo hi", "timeout": 5000.0}, 5000, pipeline.Unchanged},
			{"equal stays", map[string]any{"command": "echo hi", "timeout": 20000.0}, 20000, pipeline.Unchanged},
		} {
			res, rep, err := p.app.Runner.CallTool(ctx, p.call(), "bash", c.args)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if got := timeoutOf(t, rep); got != c.want {
				t.Errorf("%s: execute received timeout %v, want %v", c.name, got, c.want)
			}
			if o := outcome(rep.Steps, id, jsplugin.HookToolBefore); o != c.outcome {
				t.Errorf("%s: outcome %q, want %q", c.name, o, c.outcome)
			}
			if res.Output != "hi\n" {
				t.Errorf("%s: output %q", c.name, res.Output)
			}
		}
		// Other tools pass through untouched.
		_, rep, err := p.app.Runner.CallTool(ctx, p.call(), "read", map[string]any{"path": "a.txt"})
		if err != nil {
			t.Fatal(err)
		}
		if o := outcome(rep.Steps, id, jsplugin.HookToolBefore); o != pipeline.Unchanged {
			t.Errorf("read: outcome %q, want %q", o, pipeline.Unchanged)
		}
		if args := rep.Args.(map[string]any); len(args) != 1 || args["path"] != "a.txt" {
			t.Errorf("read received %v", args)
		}
	})

	t.Run("default", func(t *testing.T) {
		p := boot(t, "bash-timeout.ts", id, nil, nil)
		p.mustLoad(t, id)
		_, rep, err := p.app.Runner.CallTool(ctx, p.call(), "bash", map[string]any{"command": "true"})
		if err != nil {
			t.Fatal(err)
		}
		if got := timeoutOf(t, rep); got != 60000.0 {
			t.Errorf("execute received timeout %v, want the default 60000", got)
		}
	})

	t.Run("kills", func(t *testing.T) {
		p := boot(t, "bash-timeout.ts", id, map[string]any{"timeout_ms": 300}, nil)
		p.mustLoad(t, id)
		start := time.Now()
		_, rep, err := p.app.Runner.CallTool(ctx, p.call(), "bash", map[string]any{"command": "sleep 30"})
		elapsed := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), "did not finish within 300ms and was killed") {
			t.Errorf("sleep 30 with a 300ms limit: error %v", err)
		}
		if elapsed > 10*time.Second {
			t.Errorf("sleep 30 was stopped only after %s", elapsed)
		}
		if got := timeoutOf(t, rep); got != 300.0 {
			t.Errorf("execute received timeout %v, want 300", got)
		}
	})

	for _, c := range []struct {
		name   string
		config any
		want   string
	}{
		{"zero", map[string]any{"timeout_ms": 0}, "timeout_ms must be a whole number of milliseconds above 0, not 0"},
		{"fraction", map[string]any{"timeout_ms": 1.5}, "not 1.5"},
		{"unknown key", map[string]any{"timeout": 1000}, `unknown key "timeout"`},
	} {
		t.Run("malformed/"+c.name, func(t *testing.T) {
			mustSkip(t, boot(t, "bash-timeout.ts", id, c.config, nil), id, c.want)
		})
	}
}
