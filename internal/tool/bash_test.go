package tool

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/proctest"
)

// bashDef is the bash built-in working in a new temporary workspace.
func bashDef(tb testing.TB) (*Def, Workspace) {
	tb.Helper()
	root, err := filepath.EvalSymlinks(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	ws := Workspace{Root: root}
	for _, d := range Builtins(Options{Workspace: ws, BashTimeout: 60 * time.Second}) {
		if d.ID == "bash" {
			return d, ws
		}
	}
	tb.Fatal("no bash built-in")
	return nil, ws
}

func runBash(tb testing.TB, bash *Def, command string) (Result, error) {
	tb.Helper()
	return bash.Execute(context.Background(), Call{}, map[string]any{"command": command})
}

// A command that leaves a child running in the background is done when it
// exits: its output is its answer, and the child, which still held the
// output open, is killed with the command's process group. (The call's
// timeout is a minute: waiting for the child would fail the call.)
func TestBashBackgroundChildIsKilledAtExit(t *testing.T) {
	bash, ws := bashDef(t)
	res, err := runBash(t, bash, "sleep 100 & echo $$ > pgid; echo started")
	if err != nil || res.Output != "started\n" || res.Metadata["exit"] != 0 {
		t.Fatalf("%+v %v", res, err)
	}
	proctest.AwaitGroupGone(t, proctest.ReadPID(t, filepath.Join(ws.Root, "pgid")))

	// nohup and a double fork stay in the group, and die with it.
	res, err = runBash(t, bash, "nohup sleep 100 >/dev/null 2>&1 & (sleep 100 &) ; echo $$ > pgid; echo started")
	if err != nil || res.Output != "started\n" {
		t.Fatalf("nohup: %+v %v", res, err)
	}
	proctest.AwaitGroupGone(t, proctest.ReadPID(t, filepath.Join(ws.Root, "pgid")))
}

// A child that left the group (setsid) and holds the output open does not
// keep the call waiting, nor turn its answer into an error.
func TestBashSetsidChildDoesNotHoldTheCall(t *testing.T) {
	bash, ws := bashDef(t)
	res, err := runBash(t, bash, "setsid sleep 100 & echo $! > escaped; echo started")
	if pid := proctest.ReadPID(t, filepath.Join(ws.Root, "escaped")); pid > 1 {
		syscall.Kill(pid, syscall.SIGKILL) // it escaped the group kill: see bash's doc
	}
	if err != nil || res.Output != "started\n" {
		t.Fatalf("%+v %v", res, err)
	}
}

// Many short calls at once all keep their whole output: the answer of a
// command that exited is never cut, however late its output is read.
func TestBashConcurrentCallsKeepTheirOutput(t *testing.T) {
	bash, _ := bashDef(t)
	const calls, parallel = 400, 64
	var wg sync.WaitGroup
	errs := make(chan error, calls)
	sem := make(chan struct{}, parallel)
	for i := range calls {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			res, err := runBash(t, bash, fmt.Sprintf("echo out-%d; echo err-%d >&2", i, i))
			if want := fmt.Sprintf("out-%d\nerr-%d\n", i, i); err != nil || res.Output != want {
				errs <- fmt.Errorf("call %d: %q, %v", i, res.Output, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// BenchmarkBashTrue is one bash call that does nothing: the cost of
// starting bash in its own process group, waiting for it and collecting
// its output.
func BenchmarkBashTrue(b *testing.B) {
	bash, _ := bashDef(b)
	args := map[string]any{"command": "true"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bash.Execute(context.Background(), Call{}, args); err != nil {
			b.Fatal(err)
		}
	}
}
