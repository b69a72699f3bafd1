package claudehooks

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/podcode/podcode/internal/proctest"
	"github.com/podcode/podcode/plugin"
)

// A hook's answer counts once the hook exits: a script that denies and
// leaves a child holding its stdout still denies, and the child is killed
// with the hook's process group. (The hook's timeout is 20 s and the
// child sleeps 300 s: waiting for the child would lose the deny.)
func TestHookAnswerCountsWhenItExits(t *testing.T) {
	dir := project(t, `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
	  {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/deny-and-linger.sh", "timeout": 20}]}]}}`)
	script := filepath.Join(dir, ".claude", "hooks", "deny-and-linger.sh")
	err := os.WriteFile(script, []byte(`#!/bin/sh
cat >/dev/null
sleep 300 &
cut -d' ' -f5 /proc/$$/stat > "$CLAUDE_PROJECT_DIR/pgid"
echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "not while I linger"}}'
`), 0o755)
	if err != nil {
		t.Fatal(err)
	}
	d, _ := load(t, dir)
	rep := dispatch(t, d, bashCall("ls"))
	if rep.Result.Decision != plugin.DecisionDeny || rep.Result.Message != "not while I linger" {
		t.Fatalf("%+v (%s) %+v", rep.Result, outcomes(rep), rep.Handlers)
	}
	proctest.AwaitGroupGone(t, proctest.ReadPID(t, filepath.Join(dir, "pgid")))
}
