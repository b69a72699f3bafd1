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
