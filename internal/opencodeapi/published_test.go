package opencodeapi_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/opencodeapi"
	"github.com/podcode/podcode/internal/version"
)

// Published opencode plugins, installed from npm (testdata/package.json
// pins their versions), loaded as a user would: named in podcode.json by
// their package name, with the project's node_modules. Each runs in a turn
// on the offline model (its /tool lines), and the test asserts what its
// author meant it to do. Their outside world is faked where it cannot run
// here: a program they run is a script on PATH, a service a loopback
// server; HOME is a folder of the test's.

// published boots a project (a git repository, as a user's would be)
// whose podcode.json names the npm packages plugins, with node_modules
// from testdata, a HOME of its own, and bin first on PATH.
func published(t *testing.T, plugins []string, files map[string]string, env map[string]string, prepare ...func(home, bin string)) (*env, string, string) {
	t.Helper()
	apptest.RequireNodeModules(t, "testdata", plugins...)
	home := t.TempDir()
	bin := t.TempDir()
	for _, f := range prepare {
		f(home, bin)
	}
	e := map[string]string{"HOME": home, "PATH": bin + ":" + os.Getenv("PATH"), "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
	for k, v := range env {
		e[k] = v
	}
	p := apptest.Project{Plugins: plugins, Files: files, Env: e,
		PluginAPI: func(a *app.App) http.Handler { return opencodeapi.New(a, nil) }}
	dir := apptest.Dir(t, p)
	apptest.LinkNodeModules(t, dir)
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "start")
	a, logs := apptest.BootDir(t, dir, p)
	ev := wrap(t, a, logs)
	if len(ev.a.Plugins.Plugins) != len(plugins) {
		t.Fatalf("loaded %v of %v; logs:\n%s", ev.a.Plugins.Plugins, plugins, strings.Join(logs.Lines(), "\n"))
	}
	return ev, home, bin
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// fakeProgram writes an executable script name into bin that appends its
// arguments, one line a call, to log, then runs body.
func fakeProgram(t *testing.T, bin, name, log, body string) {
	t.Helper()
	script := "#!/bin/sh\necho \"$*\" >> " + log + "\n" + body + "\n"
	if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// awaitFile waits for path to hold a line containing every part.
func awaitFile(t *testing.T, path string, parts ...string) string {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		for _, line := range strings.Split(string(data), "\n") {
			ok := line != ""
			for _, p := range parts {
				ok = ok && strings.Contains(line, p)
			}
			if ok {
				return line
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never held a line with %q; it holds:\n%s", path, parts, data)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func toolResult(res []chat.Message) *chat.Result {
	for _, m := range res {
		if m.Role == chat.RoleTool {
			return m.Result
		}
	}
	return nil
}

// cc-safety-net's opencode entry (a default export {id, server}) blocks a
// destructive git command by throwing in tool.execute.before: the call is
// denied with its message and rule, the command never runs (the change it
// would destroy is still there), and the decision is in its audit log; a
// harmless command runs.
func TestPublishedCCSafetyNet(t *testing.T) {
	audit := t.TempDir()
	e, _, _ := published(t, []string{"cc-safety-net"}, map[string]string{"notes.txt": "committed\n"},
		map[string]string{"CC_SAFETY_NET_AUDIT_HOME": audit})
	if err := os.WriteFile(filepath.Join(e.a.Cwd, "notes.txt"), []byte("uncommitted work\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	id := e.session(t)
	r := toolResult(e.turn(t, id, `/tool bash {"command": "git reset --hard"}`).Messages)
	if r == nil || !r.IsError || !strings.Contains(r.Output, "BLOCKED by CC Safety Net") || !strings.Contains(r.Output, "Rule: git.reset-hard") {
		t.Fatalf("git reset --hard: %+v", r)
	}
	if data, _ := os.ReadFile(filepath.Join(e.a.Cwd, "notes.txt")); string(data) != "uncommitted work\n" {
		t.Errorf("the command ran: notes.txt holds %q", data)
	}
	var logged string
	filepath.WalkDir(audit, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".jsonl") {
			data, _ := os.ReadFile(p)
			logged += string(data)
		}
		return nil
	})
	if !strings.Contains(logged, `"decision":"deny"`) || !strings.Contains(logged, `"ruleId":"git.reset-hard"`) || !strings.Contains(logged, id) {
		t.Errorf("audit log: %q", logged)
	}
	r = toolResult(e.turn(t, id, `/tool bash {"command": "git status --short"}`).Messages)
	if r == nil || r.IsError || !strings.Contains(r.Output, "notes.txt") {
		t.Errorf("git status: %+v", r)
	}
}

// opencode-wakatime hears a completed read as opencode's
// message.part.updated and sends a heartbeat: it finds wakatime-cli with
// execSync("which …"), asks the client for the server's version
// (client.global._client, the SDK's own), and spawns the CLI with the
// file, the category and the project folder; it logs and keeps its state
// under ~/.wakatime (fs sync calls, an md5 of the folder).
func TestPublishedWakatime(t *testing.T) {
	log := filepath.Join(t.TempDir(), "cli.log")
	e, home, _ := published(t, []string{"opencode-wakatime"}, map[string]string{"README.md": "# hello\n"}, nil, func(home, bin string) {
		fakeProgram(t, bin, "wakatime-cli", log, "cat > /dev/null")
		os.WriteFile(filepath.Join(home, ".wakatime.cfg"), []byte("[settings]\ndebug = true\n"), 0o644)
	})
	defer func() {
		if t.Failed() {
			data, _ := os.ReadFile(filepath.Join(home, ".wakatime", "opencode.log"))
			t.Logf("the plugin's log:\n%s\nthe server's:\n%s", data, strings.Join(e.logs.Lines(), "\n"))
		}
	}()
	id := e.session(t)
	r := toolResult(e.turn(t, id, `/tool read {"path": "README.md"}`).Messages)
	if r == nil || r.IsError {
		t.Fatalf("read: %+v", r)
	}
	line := awaitFile(t, log, "--entity README.md")
	for _, want := range []string{"--entity-type file", "--category ai coding", "--plugin opencode-cli/" + version.App() + " opencode-wakatime/1.3.9",
		"--project-folder " + e.a.Cwd} {
		if !strings.Contains(line, want) {
			t.Errorf("wakatime-cli %q lacks %q", line, want)
		}
	}
	awaitFile(t, filepath.Join(home, ".wakatime", "opencode.log"), "initialized")
	states, _ := filepath.Glob(filepath.Join(home, ".wakatime", "opencode-*.json"))
	if len(states) == 0 {
		t.Errorf("no state file in ~/.wakatime")
	}
}

// opencode-skills finds SKILL.md files with Bun's Glob and reads them
// with Bun.file (gray-matter parses their front matter, a CommonJS
// package over Buffer); each skill is a tool, and calling it inserts two
// messages into the session without a turn of their own (the client's
// noReply prompt, from inside the tool): the model reads them next.
func TestPublishedSkills(t *testing.T) {
	skill := "---\nname: test-skill\ndescription: A skill for the test, long enough to be described.\n---\n\n# Test Skill\n\nAlways answer with SKILL-MARKER-42.\n"
	e, _, _ := published(t, []string{"opencode-skills"}, map[string]string{".opencode/skills/test-skill/SKILL.md": skill}, nil)
	def, ok := e.a.Tools.Get("skills_test_skill")
	if !ok || !strings.Contains(def.Description, "A skill for the test") {
		t.Fatalf("skills_test_skill: %+v %v", def, ok)
	}
	id := e.session(t)
	r := toolResult(e.turn(t, id, `/tool skills_test_skill {}`).Messages)
	if r == nil || r.Output != "Launching skill: test-skill" {
		t.Fatalf("the skill's tool: %+v", r)
	}
	msgs, err := e.ag.Store.Messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var after []string
	for i, m := range msgs {
		if m.Role == chat.RoleTool {
			for _, n := range msgs[i+1:] {
				after = append(after, n.Role+": "+n.Text)
			}
		}
	}
	if len(after) < 3 || !strings.HasPrefix(after[0], "user: The \"test-skill\" skill is loading") ||
		!strings.Contains(after[1], "Base directory for this skill: "+filepath.Join(e.a.Cwd, ".opencode", "skills", "test-skill")) ||
		!strings.Contains(after[1], "SKILL-MARKER-42") || !strings.HasPrefix(after[2], "assistant: ") {
		t.Errorf("after the tool's result: %q", after)
	}
}

// opencode-beads runs `bd prime` with Bun's $ when a prompt arrives
// (opencode's chat.message) and inserts its output with the client's
// noReply prompt; the model's first call reads it. Its entry is
// TypeScript source importing ./vendor without an extension.
func TestPublishedBeads(t *testing.T) {
	log := filepath.Join(t.TempDir(), "bd.log")
	e, _, bin := published(t, []string{"opencode-beads"}, nil, nil)
	fakeProgram(t, bin, "bd", log, `echo BEADS-PRIME-OK`)
	id := e.session(t)
	e.turn(t, id, "hello")
	awaitFile(t, log, "prime")
	msgs, err := e.ag.Store.Messages(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var roles []string
	found := false
	for _, m := range msgs {
		roles = append(roles, m.Role)
		if m.Role == chat.RoleUser && strings.HasPrefix(m.Text, "<beads-context>\nBEADS-PRIME-OK\n</beads-context>") {
			found = true
		}
	}
	if !found || strings.Join(roles, ",") != "user,user,assistant" {
		t.Errorf("messages %v; beads' context found: %v", roles, found)
	}
	// once per session
	e.turn(t, id, "again")
	if data, _ := os.ReadFile(log); strings.Count(string(data), "prime") != 1 {
		t.Errorf("bd ran %q", data)
	}
}

// supermemory talks to its service (a loopback fake here): when a prompt
// arrives (chat.message) it reads the user's profile and adds it to what
// the model reads; its tool, a zod schema of its bundled zod, adds a
// memory. It runs git at start (execSync with cwd) to name the project's
// container, and writes its log at import.
func TestPublishedSupermemory(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization")+" "+string(body))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case strings.HasPrefix(r.URL.Path, "/v4/profile"):
			json.NewEncoder(w).Encode(map[string]any{"profile": map[string]any{"static": []string{"User prefers tabs over spaces"}, "dynamic": []string{}}})
		case r.URL.Path == "/v3/documents" && r.Method == http.MethodPost:
			json.NewEncoder(w).Encode(map[string]any{"id": "mem_123", "status": "queued"})
		case strings.HasPrefix(r.URL.Path, "/v4/search"), strings.HasPrefix(r.URL.Path, "/v3/documents/list"):
			json.NewEncoder(w).Encode(map[string]any{"results": []any{}, "memories": []any{}, "total": 0, "timing": 1})
		default:
			json.NewEncoder(w).Encode(map[string]any{})
		}
	}))
	defer srv.Close()
	e, home, _ := published(t, []string{"opencode-supermemory"}, nil,
		map[string]string{"SUPERMEMORY_API_KEY": "sm-test-key", "SUPERMEMORY_API_URL": srv.URL})
	if _, err := os.Stat(filepath.Join(home, ".opencode-supermemory.log")); err != nil {
		t.Errorf("its log: %v", err)
	}
	id := e.session(t)
	res := e.turn(t, id, `/tool supermemory {"mode": "add", "content": "the user likes tabs"}`)
	r := toolResult(res.Messages)
	if r == nil || !strings.Contains(r.Output, `"success":true`) || !strings.Contains(r.Output, "mem_123") {
		t.Fatalf("supermemory add: %+v", r)
	}
	var context string
	for _, m := range res.Messages {
		if m.Role == chat.RoleContext {
			context += m.Text
		}
	}
	if !strings.Contains(context, "[SUPERMEMORY]") || !strings.Contains(context, "User prefers tabs over spaces") {
		t.Errorf("what the model read besides the prompt: %q", context)
	}
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(got, "\n")
	if !strings.Contains(all, "POST /v4/profile Bearer sm-test-key") || !strings.Contains(all, "POST /v3/documents Bearer sm-test-key") ||
		!strings.Contains(all, `"containerTag":"repo_`) {
		t.Errorf("the service was asked:\n%s", all)
	}
}
