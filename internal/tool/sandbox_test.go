package tool

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/proctest"
	"github.com/podcode/podcode/internal/sandbox"
)

// confinedBash is the bash built-in of a sandboxed workspace, with a
// directory outside it holding a secret.
func confinedBash(t *testing.T, timeout time.Duration) (bash *Def, ws Workspace, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws = Workspace{Root: filepath.Join(base, "ws"), Allowed: []string{filepath.Join(base, "shared"), filepath.Join(base, "missing")},
		Sandbox: &Sandbox{Tmp: filepath.Join(base, "tmp")}}
	outside = filepath.Join(base, "outside")
	for _, d := range []string{ws.Root, ws.Allowed[0], outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("the secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, d := range Builtins(Options{Workspace: ws, BashTimeout: timeout}) {
		if d.ID == "bash" {
			return d, ws, outside
		}
	}
	t.Fatal("no bash built-in")
	return
}

// A sandboxed workspace's bash works in the workspace and its allowed
// paths (one that does not exist grants nothing and breaks nothing), and
// reaches nothing else.
func TestBashSandboxed(t *testing.T) {
	if sandbox.Probe().ABI == 0 {
		t.Skip("this kernel has no Landlock: the sandbox cannot be tested here (TestBashSandboxFailsClosed covers the refusal)")
	}
	bash, ws, outside := confinedBash(t, time.Minute)
	res, err := bash.Execute(context.Background(), Call{}, map[string]any{"command": "mkdir sub && echo a > sub/a && echo b > ../shared/b && cat sub/a ../shared/b && pwd"})
	if err != nil || res.Output != "a\nb\n"+ws.Root+"\n" {
		t.Fatalf("inside: %+v %v", res, err)
	}
	res, err = bash.Execute(context.Background(), Call{}, map[string]any{"command": "pwd", "workdir": "sub"})
	if err != nil || res.Output != filepath.Join(ws.Root, "sub")+"\n" {
		t.Errorf("workdir: %+v %v", res, err)
	}
	res, err = bash.Execute(context.Background(), Call{}, map[string]any{"command": "cat " + filepath.Join(outside, "secret")})
	if err != nil || strings.Contains(res.Output, "the secret") || !strings.Contains(res.Output, "Permission denied") {
		t.Errorf("outside: %+v %v", res, err)
	}
}

// A sandboxed command's process group is still killed: when the command
// exits (its background children), and at its timeout.
func TestBashSandboxedGroupIsKilled(t *testing.T) {
	if sandbox.Probe().ABI == 0 {
		t.Skip("this kernel has no Landlock: the sandbox cannot be tested here")
	}
	bash, ws, _ := confinedBash(t, time.Minute)
	res, err := bash.Execute(context.Background(), Call{}, map[string]any{"command": "sleep 100 & echo $$ > pgid; echo started"})
	if err != nil || res.Output != "started\n" {
		t.Fatalf("%+v %v", res, err)
	}
	proctest.AwaitGroupGone(t, proctest.ReadPID(t, filepath.Join(ws.Root, "pgid")))

	_, err = bash.Execute(context.Background(), Call{}, map[string]any{"command": "echo $$ > pgid; sleep 100", "timeout": 200})
	if err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Fatalf("timeout: %v", err)
	}
	proctest.AwaitGroupGone(t, proctest.ReadPID(t, filepath.Join(ws.Root, "pgid")))
}

// Fail closed: a workspace that asks for the sandbox never runs a command
// without it; when the sandbox cannot be set up, the call fails saying
// why, and the command does not run.
func TestBashSandboxFailsClosed(t *testing.T) {
	bash, ws, _ := confinedBash(t, time.Minute)
	// The private temporary directory cannot be made: its parent is a file.
	if err := os.WriteFile(filepath.Join(filepath.Dir(ws.Root), "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	ws.Sandbox.Tmp = filepath.Join(filepath.Dir(ws.Root), "file", "tmp")
	for _, d := range Builtins(Options{Workspace: ws}) {
		if d.ID == "bash" {
			bash = d
		}
	}
	_, err := bash.Execute(context.Background(), Call{}, map[string]any{"command": "touch ran"})
	if err == nil || !strings.Contains(err.Error(), "bash: sandbox:") {
		t.Errorf("%v", err)
	}
	if _, err := os.Stat(filepath.Join(ws.Root, "ran")); err == nil {
		t.Error("the command ran without its sandbox")
	}
}
