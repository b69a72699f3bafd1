package tool

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

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

// A sandboxed command leaves nothing running: its background children
// die when it exits, and at its timeout; where a PID namespace can be made,
// so does a child that left its process group (setsid). Each command
// waits until its child runs (named by a marker) before it ends.
func TestBashSandboxedGroupIsKilled(t *testing.T) {
	if sandbox.Probe().ABI == 0 {
		t.Skip("this kernel has no Landlock: the sandbox cannot be tested here")
	}
	bash, ws, _ := confinedBash(t, time.Minute)
	marker := "podcode-tool-sandbox-" + filepath.Base(filepath.Dir(ws.Root))
	started := fmt.Sprintf(`until for f in /proc/[0-9]*/cmdline; do { IFS= read -r -d '' a <"$f"; } 2>/dev/null && [ "$a" = %s ] && break; done; do sleep 0.01; done`, marker)
	res, err := bash.Execute(context.Background(), Call{}, map[string]any{"command": fmt.Sprintf("(exec -a %s sleep 100) & %s; echo started", marker, started)})
	if err != nil || res.Output != "started\n" {
		t.Fatalf("%+v %v", res, err)
	}
	awaitNoProcess(t, marker)

	_, err = bash.Execute(context.Background(), Call{}, map[string]any{"command": fmt.Sprintf("(exec -a %s sleep 100) & %s; sleep 100", marker, started), "timeout": 500})
	if err == nil || !strings.Contains(err.Error(), "did not finish") {
		t.Fatalf("timeout: %v", err)
	}
	awaitNoProcess(t, marker)

	if !sandbox.Probe().PIDNS {
		t.Skipf("%s: a child that left its group outlives the command here (documented)", sandbox.Probe())
	}
	res, err = bash.Execute(context.Background(), Call{}, map[string]any{"command": fmt.Sprintf(
		"setsid bash -c 'exec -a %s sleep 100' </dev/null >/dev/null 2>&1 & %s; echo started", marker, started)})
	if err != nil || res.Output != "started\n" {
		t.Fatalf("setsid: %+v %v", res, err)
	}
	if left := processesNamed(marker); len(left) > 0 {
		for _, pid := range left {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Errorf("a child that left its group outlived the command: %v", left)
	}
}

// processesNamed lists the live processes whose first argument is name.
func processesNamed(name string) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil || !strings.HasPrefix(string(cmdline), name+"\x00") {
			continue
		}
		if stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat")); !strings.Contains(string(stat), ") Z ") {
			pids = append(pids, pid)
		}
	}
	return pids
}

// awaitNoProcess fails t unless, within 10 s, no process named name is
// alive (a killed process is gone a moment after the signal).
func awaitNoProcess(t *testing.T, name string) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		left := processesNamed(name)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			for _, pid := range left {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("processes %v are still alive", left)
		}
	}
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
