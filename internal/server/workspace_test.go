package server

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/sandbox"
	"github.com/podcode/podcode/internal/store"
)

// toolTurn runs one tool call as a turn of token's, in a new session, and
// returns the answer's text ("Tool <id> returned:\n<output>", or
// "failed").
func toolTurn(t *testing.T, srv *httptest.Server, token, id string, args map[string]any) string {
	t.Helper()
	code, sess := call(t, srv, "POST", "/sessions", token, `{}`)
	if code != 201 {
		t.Fatalf("create: %d %v", code, sess)
	}
	a, _ := json.Marshal(args)
	body, _ := json.Marshal(map[string]string{"text": "/tool " + id + " " + string(a)})
	code, out := call(t, srv, "POST", "/sessions/"+sess["id"].(string)+"/messages", token, string(body))
	if code != 200 {
		t.Fatalf("%s %s: %d %v", id, a, code, out)
	}
	text, _ := out["text"].(string)
	return text
}

// Tenants are isolated at the tools: each works in a workspace of its
// own, outside the project and the other tenants', and its bash runs in
// the operating system's sandbox, so neither its file tools nor its
// commands reach another tenant's files, the database, the project or the
// server's secrets. The default tenant keeps the project.
func TestTenantWorkspaces(t *testing.T) {
	t.Setenv("PODCODE_TEST_SERVER_SECRET", "sk-server-only")
	ag := newAgent(t, apptest.Project{Files: map[string]string{"notes.txt": "the project's notes\n"}})
	project, data := ag.App.Cwd, ag.App.DataDir
	db := filepath.Join(data, store.File)
	tokens := []config.TenantToken{{Token: "ann-token", TenantID: 1, UserID: "ann"}, {Token: "bob-token", TenantID: 2, UserID: "bob"}}
	srv := httptest.NewServer(New(ag, "admin", tokens...).Handler())
	t.Cleanup(srv.Close)
	bash := func(token, command string) string {
		return toolTurn(t, srv, token, "bash", map[string]any{"command": command})
	}

	// Ann's files are in her own workspace, made for her, hers alone.
	if out := toolTurn(t, srv, "ann-token", "write", map[string]any{"path": "x", "content": "ann's secret"}); !strings.Contains(out, "returned") {
		t.Fatalf("ann's write: %s", out)
	}
	annDir := filepath.Join(data, "tenants", "1")
	if got, err := os.ReadFile(filepath.Join(annDir, "x")); err != nil || string(got) != "ann's secret" {
		t.Fatalf("ann's file is not in her workspace: %q %v", got, err)
	}
	if st, err := os.Stat(annDir); err != nil || st.Mode().Perm() != 0o700 {
		t.Errorf("ann's workspace: %v %v", st, err)
	}
	if _, err := os.Stat(filepath.Join(project, "x")); err == nil {
		t.Error("ann's file was written into the project")
	}

	if sandbox.Probe().ABI == 0 {
		// Fail closed: tenants' commands never run unconfined.
		if out := bash("bob-token", "echo ran"); !strings.Contains(out, "failed") || !strings.Contains(out, "no Landlock") {
			t.Fatalf("bob's bash without Landlock: %s", out)
		}
		t.Skip("this kernel has no Landlock: tenants' commands are refused (checked); the sandbox's confinement cannot be tested here")
	}
	if out := bash("ann-token", "pwd; cat x"); !strings.Contains(out, annDir+"\nann's secret") {
		t.Errorf("ann's bash in her workspace: %s", out)
	}

	// Bob's bash reaches neither Ann's files, the database, the project,
	// nor the server's environment; it writes nowhere but in its own
	// workspace.
	pwned := []string{filepath.Join(annDir, "pwned"), filepath.Join(project, "pwned"), filepath.Join(data, "pwned")}
	for _, command := range []string{
		"cat ../1/x",
		"cat " + filepath.Join(annDir, "x"),
		"ls " + annDir,
		"cat " + db + " " + db + "-wal",
		"cat " + filepath.Join(project, "notes.txt"),
		"echo pwned > " + pwned[0],
		"echo pwned > " + pwned[1],
		"echo pwned > " + pwned[2],
		"ln -s " + annDir + " link && cat link/x",
		fmt.Sprintf("cat /proc/%d/environ", os.Getpid()),
	} {
		out := bash("bob-token", command)
		// Refused; the server's process is not even there when the
		// command has a PID namespace (and a /proc) of its own.
		refused := strings.Contains(out, "Permission denied") ||
			(strings.HasPrefix(command, "cat /proc/") && sandbox.Probe().PIDNS && strings.Contains(out, "No such file"))
		if strings.Contains(out, "ann's secret") || strings.Contains(out, "the project's notes") || strings.Contains(out, "sk-server-only") || !refused {
			t.Errorf("bob's %q: %s", command, out)
		}
	}
	for _, p := range pwned {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("bob wrote %s", p)
		}
	}
	if out := bash("bob-token", "env"); strings.Contains(out, "sk-server-only") {
		t.Errorf("bob's bash sees the server's environment: %s", out)
	}

	// Bob's file tools are confined the same way.
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"read", map[string]any{"path": "../1/x"}},
		{"read", map[string]any{"path": filepath.Join(annDir, "x")}},
		{"read", map[string]any{"path": db}},
		{"read", map[string]any{"path": filepath.Join(project, "notes.txt")}},
		{"grep", map[string]any{"pattern": "secret", "path": annDir}},
		{"grep", map[string]any{"pattern": "notes", "path": project}},
		{"glob", map[string]any{"pattern": "*", "path": "../1"}},
		{"glob", map[string]any{"pattern": "**", "path": data}},
		{"write", map[string]any{"path": filepath.Join(annDir, "pwned"), "content": "x"}},
		{"edit", map[string]any{"path": "../1/x", "old_string": "ann", "new_string": "bob"}},
	} {
		out := toolTurn(t, srv, "bob-token", c.tool, c.args)
		if !strings.Contains(out, "failed") || strings.Contains(out, "ann's secret") {
			t.Errorf("bob's %s %v: %s", c.tool, c.args, out)
		}
	}
	// A link Bob's bash makes to Ann's file leads his file tools nowhere.
	bash("bob-token", "ln -s "+filepath.Join(annDir, "x")+" leak")
	for _, c := range []struct {
		tool string
		args map[string]any
	}{
		{"read", map[string]any{"path": "leak"}},
		{"grep", map[string]any{"pattern": "secret"}},
		{"edit", map[string]any{"path": "leak", "old_string": "ann", "new_string": "bob"}},
	} {
		if out := toolTurn(t, srv, "bob-token", c.tool, c.args); strings.Contains(out, "ann's secret") || strings.Contains(out, "replacement") {
			t.Errorf("bob's %s through a link: %s", c.tool, out)
		}
	}
	if got, _ := os.ReadFile(filepath.Join(annDir, "x")); string(got) != "ann's secret" {
		t.Errorf("ann's file became %q", got)
	}
	// In his own workspace, Bob's tools work; a sub-agent of his works
	// there too.
	bobDir := filepath.Join(data, "tenants", "2")
	if out := toolTurn(t, srv, "bob-token", "write", map[string]any{"path": "mine.txt", "content": "bob's"}); !strings.Contains(out, "returned") {
		t.Errorf("bob's write: %s", out)
	}
	if out := bash("bob-token", "cat mine.txt && echo && echo tmp > $TMPDIR/t && cat $TMPDIR/t"); !strings.Contains(out, "bob's\ntmp") {
		t.Errorf("bob's bash in his workspace: %s", out)
	}
	sub := map[string]any{"prompt": `/tool bash {"command": "pwd; cat ../1/x"}`}
	if out := toolTurn(t, srv, "bob-token", "task", sub); !strings.Contains(out, bobDir+"\n") || strings.Contains(out, "ann's secret") {
		t.Errorf("bob's sub-agent: %s", out)
	}

	// The default tenant keeps the project, unconfined unless
	// tools.sandbox says otherwise.
	if out := bash("admin", "pwd; cat notes.txt"); !strings.Contains(out, project+"\nthe project's notes") {
		t.Errorf("the default tenant's bash: %s", out)
	}
	if out := toolTurn(t, srv, "admin", "read", map[string]any{"path": "notes.txt"}); !strings.Contains(out, "the project's notes") {
		t.Errorf("the default tenant's read: %s", out)
	}
}

// tools.sandbox confines the default tenant's bash to the project: it
// still works there, and reaches nothing outside.
func TestDefaultTenantSandbox(t *testing.T) {
	if sandbox.Probe().ABI == 0 {
		t.Skip("this kernel has no Landlock: the sandbox cannot be tested here")
	}
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("outside secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	ag := newAgent(t, apptest.Project{Config: map[string]any{"tools": map[string]any{"sandbox": true}},
		Files: map[string]string{"notes.txt": "the project's notes\n"}})
	srv := httptest.NewServer(New(ag, "").Handler())
	t.Cleanup(srv.Close)
	if out := toolTurn(t, srv, "", "bash", map[string]any{"command": "cat notes.txt; echo new > new.txt; cat new.txt"}); !strings.Contains(out, "the project's notes\nnew") {
		t.Errorf("in the project: %s", out)
	}
	out := toolTurn(t, srv, "", "bash", map[string]any{"command": "cat " + filepath.Join(outside, "secret") + "; cat " + filepath.Join(ag.App.DataDir, store.File)})
	if strings.Contains(out, "outside secret") || strings.Count(out, "Permission denied") != 2 {
		t.Errorf("outside the project: %s", out)
	}
}
