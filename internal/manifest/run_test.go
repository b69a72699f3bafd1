package manifest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/logtest"
	"github.com/podcode/podcode/internal/proctest"
	"github.com/podcode/podcode/plugin"
)

// script writes an executable shell script into dir.
func script(t *testing.T, dir, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// A command's answer counts once it exits: a command that denies and
// leaves a child holding its stdout still denies, and the child is killed
// with its process group. (The timeout is 20 s and the child sleeps 300 s:
// waiting for the child would lose the deny.)
func TestCommandAnswerCountsWhenItExits(t *testing.T) {
	dir := t.TempDir()
	script(t, dir, "deny-and-linger.sh", `cat >/dev/null
sleep 300 &
cut -d' ' -f5 /proc/$$/stat > pgid
echo '{"decision": "deny", "message": "not while I linger"}'
`)
	f := write(t, dir, `{"id": "linger", "contributes": {"hooks": [
		{"event": "PreToolUse", "handler": {"command": "./deny-and-linger.sh", "timeout": 20}}]}}`)
	d := plugin.NewDispatcher(plugin.WithTimeout(time.Minute))
	s := Register(d, []Found{f}, Options{Cwd: dir})
	defer s.Close()
	rep, err := d.DispatchReport(context.Background(), bash("ls"))
	if err != nil || rep.Result.Decision != plugin.DecisionDeny || rep.Result.Message != "not while I linger" {
		t.Fatalf("%+v %+v %v", rep.Result, rep.Handlers, err)
	}
	proctest.AwaitGroupGone(t, proctest.ReadPID(t, filepath.Join(dir, "pgid")))
}

// answering is a process handler script that answers every request with
// the line reply makes of the request's id.
func answering(t *testing.T, reply string) (*plugin.Dispatcher, *Set) {
	t.Helper()
	dir := t.TempDir()
	script(t, dir, "answer.sh", `while IFS= read -r line; do
  id=${line#*'"id":'}; id=${id%%,*}
  echo "`+reply+`"
done
`)
	f := write(t, dir, `{"id": "garbler", "contributes": {"hooks": [{"event": "PreToolUse", "handler": {"process": "./answer.sh"}}]}}`)
	// A long deadline: a call must fail because of the answer, not time out.
	d := plugin.NewDispatcher(plugin.WithTimeout(2 * time.Minute))
	s := Register(d, []Found{f}, Options{Cwd: dir, Log: (&logtest.Logs{}).Logger()})
	t.Cleanup(s.Close)
	return d, s
}

// A process that answers with something that is not a
// HookResult, or with a line that answers no call, fails the call at once,
// with an error that says what was wrong; the process is kept.
func TestProcessBadAnswerFailsTheCall(t *testing.T) {
	for reply, want := range map[string]string{
		`{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":42}`:                       `result 42 is not a HookResult`,
		`{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":[\"allow\"]}`:              `result ["allow"] is not a HookResult`,
		`{\"jsonrpc\":\"2.0\",\"id\":$id,\"result\":{\"decision\":\"maybe\"}}`: `maybe`,
		`not json`: `"not json" is not a JSON-RPC response`,
		`{\"jsonrpc\":\"2.0\",\"method\":\"log\",\"params\":{}}`: `is not a JSON-RPC response: no id`,
		`{\"jsonrpc\":\"2.0\",\"id\":\"$id\",\"result\":null}`:   `is not a JSON-RPC response: its id is not`,
		`{\"jsonrpc\":\"2.0\",\"id\":9$id$id,\"result\":null}`:   `answers no call`,
		`{\"jsonrpc\":\"2.0\",\"id\":$id}`:                       `neither a result nor an error`,
	} {
		t.Run(want, func(t *testing.T) {
			d, s := answering(t, reply)
			for i := range 2 { // and again: the process still serves
				rep, err := d.DispatchReport(context.Background(), bash("ls"))
				if err != nil || len(rep.Handlers) != 1 || rep.Handlers[0].Outcome != plugin.OutcomeError || !strings.Contains(rep.Handlers[0].Error, want) {
					t.Fatalf("call %d: %+v %v\nwant an error with %q", i, rep.Handlers, err, want)
				}
			}
			if s.Processes()[0].PID() == 0 {
				t.Error("the process is not running")
			}
		})
	}
}

// A process's stderr reaches the log with the plugin's id on every line,
// each line cut, and at most a burst of lines at a time: the rest is
// counted and the count logged.
func TestProcessStderrIsBoundedInTheLog(t *testing.T) {
	const lines = 5000
	dir := t.TempDir()
	script(t, dir, "noisy.sh", fmt.Sprintf(`printf '%%09000d\n' 0 >&2
i=1
while [ $i -lt %d ]; do echo "noise $i" >&2; i=$((i+1)); done
`, lines))
	f := write(t, dir, `{"id": "noisy", "activationEvents": ["onStart"], "contributes": {"hooks": [{"event": "PreToolUse", "handler": {"process": "./noisy.sh"}}]}}`)
	var logs logtest.Logs
	s := Register(plugin.NewDispatcher(), []Found{f}, Options{Cwd: dir, Log: logs.Logger()})
	// Once the script has exited, its whole stderr has been read: wait for
	// the restart that follows, then stop.
	logs.Await(t, "the process died")
	s.Close()
	logs.Require(t, "source=stderr", "cut_at_bytes=4096") // the first line, 9000 bytes
	logged, dropped := 0, 0
	for _, l := range logs.Lines() {
		if !strings.Contains(l, "plugin=noisy") {
			t.Errorf("a line without the plugin's id: %s", l)
		}
		if strings.Contains(l, "source=stderr") {
			logged++
			if len(l) > 5000 {
				t.Errorf("a line of %d bytes was logged", len(l))
			}
		}
		if i := strings.Index(l, "dropped="); i >= 0 && strings.Contains(l, "stderr lines") {
			n, _ := strconv.Atoi(strings.Fields(l[i+len("dropped="):])[0])
			dropped += n
		}
	}
	if dropped == 0 || logged+dropped < lines {
		t.Fatalf("%d lines logged, %d counted as dropped, of %d", logged, dropped, lines)
	}
}
