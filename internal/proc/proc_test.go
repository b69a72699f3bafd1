package proc

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

func TestHead(t *testing.T) {
	h := Head{Max: 5}
	h.Write([]byte("abc"))
	h.Write([]byte("defg"))
	if h.String() != "abcde" || h.Dropped != 2 {
		t.Fatalf("%q dropped %d", h.String(), h.Dropped)
	}
}

// A timed-out script's background child must not keep the call alive by
// holding its output pipe open.
func TestKillGroupKillsChildren(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", "sleep 30 & sleep 30")
	var out Head
	out.Max = 10
	cmd.Stdout = &out
	KillGroup(cmd)
	start := time.Now()
	if err := cmd.Run(); err == nil {
		t.Fatal("the command should have been killed")
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Fatalf("Run returned after %s: the child held the pipe", el)
	}
}

// Run gives the script its input, keeps the head of each output, and
// returns a failing exit status as a status, not an error.
func TestRun(t *testing.T) {
	cmd := exec.CommandContext(context.Background(), "sh", "-c", "cat; echo oops >&2; exit 3")
	code, stdout, stderr, err := Run(cmd, []byte("hello world"), 5)
	if err != nil || code != 3 || string(stdout) != "hello" || string(stderr) != "oops\n" {
		t.Fatalf("%d %q %q %v", code, stdout, stderr, err)
	}
	code, stdout, _, err = Run(exec.CommandContext(context.Background(), "sh", "-c", "echo ok"), nil, 100)
	if err != nil || code != 0 || string(stdout) != "ok\n" {
		t.Fatalf("%d %q %v", code, stdout, err)
	}
	if _, _, _, err := Run(exec.CommandContext(context.Background(), "/no/such/program"), nil, 100); err == nil {
		t.Fatal("a program that does not start is an error")
	}
}
