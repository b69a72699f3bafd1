package manifest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/podcode/podcode/plugin"
)

// The test binary doubles as a long-lived handler process: run with
// PODCODE_FAKE_PROCESS=1 it speaks the process protocol on stdio.
func TestMain(m *testing.M) {
	if os.Getenv("PODCODE_FAKE_PROCESS") == "1" {
		fakeProcess()
		return
	}
	os.Exit(m.Run())
}

func fakeProcess() {
	if os.Getenv("PODCODE_FAKE_MODE") == "deaf" {
		time.Sleep(time.Hour) // never reads its input
	}
	mode := os.Getenv("PODCODE_FAKE_MODE")
	if mode == "grandchild" {
		// A child that keeps our output open, as `sleep 30 &` in a script.
		c := exec.Command("sleep", "30")
		c.Stdout, c.Stderr = os.Stdout, os.Stderr
		c.Start()
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<22)
	out := bufio.NewWriter(os.Stdout)
	defer func() {
		if mode == "grandchild" {
			time.Sleep(time.Hour) // and ignores the end of its input
		}
	}()
	for in.Scan() {
		if mode == "chatty" { // a stderr line longer than any log line, every call
			os.Stderr.WriteString(strings.Repeat("y", 100_000) + "\n")
		}
		if os.Getenv("PODCODE_FAKE_MODE") == "fast" { // answers without decoding the payload
			line := in.Bytes()
			i := bytes.Index(line, []byte(`"id":`)) + 5
			j := i + bytes.IndexByte(line[i:], ',')
			out.WriteString(`{"jsonrpc":"2.0","id":` + string(line[i:j]) + `,"result":{"decision":"allow"}}` + "\n")
			out.Flush()
			continue
		}
		var req struct {
			ID     int64              `json:"id"`
			Params plugin.HookPayload `json:"params"`
		}
		json.Unmarshal(in.Bytes(), &req)
		if os.Getenv("PODCODE_FAKE_MODE") == "hang" {
			continue
		}
		res := map[string]any{"decision": "allow"}
		if strings.Contains(req.Params.ToolInput, "rm -rf") {
			res = map[string]any{"decision": "deny", "message": "the process says no"}
		}
		if req.Params.ToolName == "glob" {
			res = nil
		}
		line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": res})
		out.Write(append(line, '\n'))
		out.Flush()
	}
}

func write(t testing.TB, dir, content string) Found {
	t.Helper()
	os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return Found{Dir: dir, Project: true}
}

func dispatcher(t *testing.T, found ...Found) (*plugin.Dispatcher, *Set) {
	t.Helper()
	d := plugin.NewDispatcher(plugin.WithTimeout(5 * time.Second))
	s := Register(d, found, Options{Cwd: t.TempDir(), Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	t.Cleanup(s.Close)
	return d, s
}

func bash(cmd string) *plugin.HookPayload {
	in, _ := json.Marshal(map[string]string{"command": cmd})
	return &plugin.HookPayload{Event: plugin.HookPreToolUse, ToolName: "bash", ToolInput: string(in)}
}

// covers L2
func TestManifestErrorsNameFileAndEntry(t *testing.T) {
	cases := map[string]string{
		`{"id": "x", "contributes": {"hooks": [{"event": "PreToolUse", "handler": {"command": "true"}}, {"event": "PreToolUsed", "handler": {"command": "true"}}]}}`: `contributes.hooks[1].event: plugin: unknown hook event "PreToolUsed"`,
		`{"id": "x", "contributes": {"hooks": [{"event": "PreToolUse", "matcher": "bash(", "handler": {"command": "true"}}]}}`:                                       `contributes.hooks[0].matcher: "bash(" does not compile`,
		`{"id": "x", "activationEvents": ["onHook:Cron"]}`:                                                             `activationEvents[0]: plugin: unknown hook event "Cron"`,
		`{"id": "x", "activationEvents": ["always"]}`:                                                                  `activationEvents[0]: "always" is not onStart`,
		`{"id": "x", "contributes": {"hooks": [{"event": "AgentStop", "handler": {"command": "a", "process": "b"}}]}}`: `contributes.hooks[0].handler: give either command or process`,
		`{"id": "x", "contributes": {"hooks": [{"event": "AgentStop", "handler": {}}]}}`:                               `needs a command or a process`,
		`{"contributes": {}}`:     `id: a manifest needs an id`,
		`{"id": "x", "extra": 1}`: `unknown field "extra"`,
		`{"id": 5}`:               `id: want string`,
		`{"id": "x", "contributes": {"hooks": [{"event": "PreToolUse", "handler": {"command": "x", "timeout": -1}}]}}`:                       `timeout: must not be negative`,
		`{"id": "x", "contributes": {"hooks": [{"event": "AgentStop", "handler": {"command": "a"}}, {"event": "AgentStop", "hander": {}}]}}`: `contributes.hooks[1]: unknown field "hander"`,
		`{"id": "x", "contributes": {"hooks": [{"event": "AgentStop", "handler": {"command": "a", "timeout": "5"}}]}}`:                       `contributes.hooks[0].handler.timeout: want float64, found a JSON string`,
		`{"id": "x", "contributes": {"hooks": [{"event": "AgentStop", "matcher": "bash", "handler": {"command": "a"}}]}}`:                    `contributes.hooks[0].matcher: AgentStop is not a tool event`,
		`{"id": "x"} {"id": "y"}`: `something follows the JSON object`,
	}
	for content, want := range cases {
		_, err := Parse("/p/podcode-plugin.json", []byte(content))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "/p/podcode-plugin.json:1:") {
			t.Errorf("%s\n  err %v\n  want ~%q", content, err, want)
		}
	}
	// A refused manifest does not stop the others.
	root := t.TempDir()
	bad := write(t, filepath.Join(root, "bad"), `{"id": "bad", "contributes": {"hooks": [{"event": "Nope", "handler": {"command": "true"}}]}}`)
	good := write(t, filepath.Join(root, "good"), `{"id": "good", "contributes": {"hooks": [{"event": "AgentStop", "handler": {"command": "true"}}]}}`)
	d, s := dispatcher(t, bad, good)
	if len(s.Manifests) != 1 || s.Manifests[0].ID != "good" || len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "bad/podcode-plugin.json") {
		t.Errorf("manifests %v warnings %q", s.Manifests, s.Warnings)
	}
	if len(d.Handlers(plugin.HookAgentStop)) != 1 {
		t.Error("the good manifest's handler is missing")
	}

	// Two manifests with one id: the later one replaces the earlier, as
	// JS plugins do (P4), and the warning names both files.
	first := write(t, filepath.Join(root, "a"), `{"id": "dup", "contributes": {"hooks": [{"event": "AgentStop", "handler": {"command": "first"}}]}}`)
	second := write(t, filepath.Join(root, "b"), `{"id": "dup", "contributes": {"hooks": [{"event": "AgentStop", "handler": {"command": "second"}}]}}`)
	d, s = dispatcher(t, first, second)
	if hs := d.Handlers(plugin.HookAgentStop); len(hs) != 1 || hs[0].Source != "dup (second)" {
		t.Errorf("handlers %+v", hs)
	}
	if len(s.Warnings) != 1 || !strings.Contains(s.Warnings[0], "a/podcode-plugin.json") || !strings.Contains(s.Warnings[0], "b/podcode-plugin.json") {
		t.Errorf("warnings %q", s.Warnings)
	}
}

func TestCommandHandler(t *testing.T) {
	script, _ := filepath.Abs("testdata/deny-rm.sh")
	f := write(t, t.TempDir(), fmt.Sprintf(`{"id": "cmd", "contributes": {"hooks": [
		{"event": "PreToolUse", "matcher": "bash|read", "handler": {"command": %q}},
		{"event": "PostToolUse", "handler": {"command": "exit 7"}, "failClosed": true},
		{"event": "AgentStop", "handler": {"command": "sleep 10", "timeout": 0.2}},
		{"event": "SessionEnd", "handler": {"command": "echo not json"}},
		{"event": "SessionStart", "enabled": false, "handler": {"command": "exit 2"}}
	]}}`, script))
	d, _ := dispatcher(t, f)
	ctx := context.Background()
	res, _ := d.Dispatch(ctx, bash("rm -rf /"))
	if res.Decision != plugin.DecisionDeny || res.Message != "no rm -rf, please" {
		t.Errorf("exit 2: %+v", res)
	}
	res, _ = d.Dispatch(ctx, bash("ls"))
	if res.Decision != plugin.DecisionAllow || res.Message != "looks fine" {
		t.Errorf("exit 0 with a result: %+v", res)
	}
	rep, _ := d.DispatchReport(ctx, &plugin.HookPayload{Event: plugin.HookPreToolUse, ToolName: "read", ToolInput: "{}"})
	if rep.Votes != 0 || rep.Handlers[0].Outcome != plugin.OutcomeAbstained {
		t.Errorf("empty stdout: %+v", rep)
	}
	rep, _ = d.DispatchReport(ctx, &plugin.HookPayload{Event: plugin.HookPreToolUse, ToolName: "grep"})
	if rep.Handlers[0].Outcome != plugin.OutcomeNotMatched {
		t.Errorf("matcher: %+v", rep.Handlers)
	}
	rep, _ = d.DispatchReport(ctx, &plugin.HookPayload{Event: plugin.HookPostToolUse, ToolName: "bash"})
	if rep.Result.Decision != plugin.DecisionDeny || !strings.Contains(rep.Handlers[0].Error, "exited with status 7") {
		t.Errorf("exit 7, fail-closed: %+v", rep)
	}
	start := time.Now()
	rep, _ = d.DispatchReport(ctx, &plugin.HookPayload{Event: plugin.HookAgentStop})
	if rep.Handlers[0].Outcome != plugin.OutcomeError || time.Since(start) > 3*time.Second {
		t.Errorf("timeout: %+v after %s", rep.Handlers, time.Since(start))
	}
	rep, _ = d.DispatchReport(ctx, &plugin.HookPayload{Event: plugin.HookSessionEnd})
	if !strings.Contains(rep.Handlers[0].Error, "not a HookResult") {
		t.Errorf("bad stdout: %+v", rep.Handlers)
	}
	if len(d.Handlers(plugin.HookSessionStart)) != 0 {
		t.Error("a disabled entry was registered")
	}
}

func processManifest(t *testing.T, activation string) Found {
	t.Helper()
	t.Setenv("PODCODE_FAKE_PROCESS", "1")
	return write(t, t.TempDir(), fmt.Sprintf(`{"id": "proc", "activationEvents": [%s], "contributes": {"hooks": [
		{"event": "PreToolUse", "handler": {"process": %q}},
		{"event": "PostToolUse", "handler": {"process": %q}}
	]}}`, activation, os.Args[0], os.Args[0]))
}

func TestProcessHandler(t *testing.T) {
	d, s := dispatcher(t, processManifest(t, `"onHook:PreToolUse"`))
	p := s.Processes()[0]
	if len(s.Processes()) != 1 || p.PID() != 0 {
		t.Fatalf("the process must start lazily, and be shared: %d processes, pid %d", len(s.Processes()), p.PID())
	}
	ctx := context.Background()
	res, err := d.Dispatch(ctx, bash("rm -rf /"))
	if err != nil || res.Decision != plugin.DecisionDeny || res.Message != "the process says no" {
		t.Fatalf("%+v %v", res, err)
	}
	pid := p.PID()
	if pid == 0 {
		t.Fatal("the first dispatch did not start the process")
	}
	for i := 0; i < 10000; i++ {
		res, err := d.Dispatch(ctx, bash(fmt.Sprint("echo ", i)))
		if err != nil || res.Decision != plugin.DecisionAllow {
			t.Fatalf("dispatch %d: %+v %v", i, res, err)
		}
	}
	// Killed, it is restarted with backoff; meanwhile calls fail (and are
	// isolated by the dispatcher).
	killAndWaitRestart(t, p, 10*time.Second)
	if res, err := d.Dispatch(ctx, bash("ls")); err != nil || res.Decision != plugin.DecisionAllow {
		t.Errorf("after the restart: %+v %v", res, err)
	}
}

// killAndWaitRestart kills p's process and waits until another runs.
func killAndWaitRestart(t *testing.T, p *Process, within time.Duration) {
	t.Helper()
	pid := p.PID()
	syscall.Kill(pid, syscall.SIGKILL)
	deadline := time.Now().Add(within)
	for p.PID() == pid || p.PID() == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the process was not started again within %s", within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestProcessOnStartAndStop(t *testing.T) {
	_, s := dispatcher(t, processManifest(t, `"onStart"`))
	p := s.Processes()[0]
	if p.PID() == 0 {
		t.Fatal("onStart did not start the process")
	}
	s.Close()
	if p.PID() != 0 {
		t.Error("Close did not stop the process")
	}
}

// covers L11: a hung process does not hang the dispatch.
func TestHungProcess(t *testing.T) {
	t.Setenv("PODCODE_FAKE_MODE", "hang")
	f := processManifest(t, "")
	d := plugin.NewDispatcher(plugin.WithTimeout(300 * time.Millisecond))
	s := Register(d, []Found{f}, Options{Cwd: t.TempDir()})
	defer s.Close()
	start := time.Now()
	rep, err := d.DispatchReport(context.Background(), bash("ls"))
	// Skipped too: on a loaded machine the worker may not start the handler
	// before the deadline; what matters is that the dispatch returns.
	if o := rep.Handlers[0].Outcome; err != nil || o != plugin.OutcomeError && o != plugin.OutcomeTimedOut && o != plugin.OutcomeSkipped || time.Since(start) > 3*time.Second {
		t.Errorf("%+v %v after %s", rep.Handlers, err, time.Since(start))
	}
}

// covers L11: a process that stops reading its input (its pipe fills up)
// blocks neither the dispatch nor the other calls.
func TestDeafProcess(t *testing.T) {
	t.Setenv("PODCODE_FAKE_MODE", "deaf")
	f := processManifest(t, "")
	d := plugin.NewDispatcher(plugin.WithTimeout(50 * time.Millisecond))
	s := Register(d, []Found{f}, Options{Cwd: t.TempDir()})
	defer s.Close()
	big := bash(strings.Repeat("x", 8000))
	start := time.Now()
	for i := 0; i < 40; i++ { // 40 × 8 KB is more than a pipe holds
		rep, err := d.DispatchReport(context.Background(), big)
		// Skipped when the worker did not start the handler within the 50ms:
		// the dispatch still did not block, which is what is tested.
		if o := rep.Handlers[0].Outcome; err != nil || o != plugin.OutcomeTimedOut && o != plugin.OutcomeError && o != plugin.OutcomeSkipped {
			t.Fatalf("dispatch %d: %+v %v", i, rep.Handlers, err)
		}
	}
	if el := time.Since(start); el > 20*time.Second {
		t.Errorf("40 dispatches took %s", el)
	}
}

// Stop does not wait for ever on a process whose child holds its output
// and that ignores the end of its input: the whole group is killed.
func TestStopKillsTheGroup(t *testing.T) {
	t.Setenv("PODCODE_FAKE_MODE", "grandchild")
	_, s := dispatcher(t, processManifest(t, `"onStart"`))
	start := time.Now()
	s.Close()
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("Stop took %s", el)
	}
	if pid := s.Processes()[0].PID(); pid != 0 {
		t.Errorf("still running: %d", pid)
	}
}

// A process that writes overlong lines on stderr keeps answering: its
// stderr is drained, never left to fill up.
func TestChattyProcess(t *testing.T) {
	t.Setenv("PODCODE_FAKE_MODE", "chatty")
	d, _ := dispatcher(t, processManifest(t, ""))
	for i := range 100 {
		if res, err := d.Dispatch(context.Background(), bash("ls")); err != nil || res.Decision != plugin.DecisionAllow {
			t.Fatalf("dispatch %d: %+v %v", i, res, err)
		}
	}
}

// onHook:<Event> starts the process on that event only; before it, the
// other events' calls abstain.
func TestActivationEvents(t *testing.T) {
	d, s := dispatcher(t, processManifest(t, `"onHook:PostToolUse"`))
	p := s.Processes()[0]
	rep, err := d.DispatchReport(context.Background(), bash("rm -rf /"))
	if err != nil || rep.Votes != 0 || p.PID() != 0 {
		t.Fatalf("PreToolUse before activation: %+v %v, pid %d", rep, err, p.PID())
	}
	post := &plugin.HookPayload{Event: plugin.HookPostToolUse, ToolName: "bash", ToolInput: "{}", ToolOutput: "ok"}
	if res, err := d.Dispatch(context.Background(), post); err != nil || res.Decision != plugin.DecisionAllow || p.PID() == 0 {
		t.Fatalf("PostToolUse: %+v %v, pid %d", res, err, p.PID())
	}
	if res, _ := d.Dispatch(context.Background(), bash("rm -rf /")); res.Decision != plugin.DecisionDeny {
		t.Errorf("PreToolUse once active: %+v", res)
	}
}

// A restart that fails is tried again; restarts leak no descriptors.
func TestRestartKeepsTrying(t *testing.T) {
	t.Setenv("PODCODE_FAKE_PROCESS", "1")
	var fails atomic.Int32
	f := processManifest(t, `"onStart"`)
	d := plugin.NewDispatcher(plugin.WithTimeout(5 * time.Second))
	s := Register(d, []Found{f}, Options{Cwd: t.TempDir(), Trust: func(*Manifest) Verdict {
		return Verdict{Run: true, Check: func(int) error {
			if fails.Add(-1) >= 0 {
				return errors.New("not yet")
			}
			return nil
		}}
	}})
	defer s.Close()
	p := s.Processes()[0]
	fds := func() int { e, _ := os.ReadDir("/proc/self/fd"); return len(e) }
	before := fds()
	for range 2 {
		fails.Store(2) // the next two starts fail
		killAndWaitRestart(t, p, 20*time.Second)
	}
	if res, err := d.Dispatch(context.Background(), bash("ls")); err != nil || res.Decision != plugin.DecisionAllow {
		t.Errorf("after the restarts: %+v %v", res, err)
	}
	if after := fds(); after > before+1 {
		t.Errorf("descriptors: %d before, %d after 6 starts", before, after)
	}
}

func TestDecodeResponse(t *testing.T) {
	if id, res, err := DecodeResponse([]byte(`{"jsonrpc":"2.0","id":3,"result":{"decision":"ask","message":"sure?"}}`)); err != nil || id != 3 || res.Decision != plugin.DecisionAsk {
		t.Errorf("%d %+v %v", id, res, err)
	}
	if _, res, err := DecodeResponse([]byte(`{"id":4,"result":null}`)); err != nil || res != nil {
		t.Errorf("null: %+v %v", res, err)
	}
	if id, _, err := DecodeResponse([]byte(`{"id":5,"error":{"code":1,"message":"boom"}}`)); id != 5 || err == nil || !strings.Contains(err.Error(), "boom") {
		t.Errorf("error: %v", err)
	}
	for _, bad := range []string{`{"result":{}}`, `nope`, `{"id":1,"result":{"decision":"maybe"}}`} {
		if _, _, err := DecodeResponse([]byte(bad)); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
	if !errors.Is(ErrProcessDown, ErrProcessDown) {
		t.Fail()
	}
}

func FuzzParseManifest(f *testing.F) {
	f.Add([]byte(`{"id": "x", "activationEvents": ["onStart", "onHook:PreToolUse"], "contributes": {"hooks": [{"event": "PreToolUse", "matcher": "a|b", "handler": {"command": "true", "timeout": 1}}]}}`))
	f.Add([]byte(`{"id": "y", "contributes": {"hooks": [{"event": "PostToolUse", "handler": {"process": "p", "args": ["-x"]}}]}}`))
	f.Add([]byte(`{"id": "z", "contributes": {"hooks": [{"event": "PreToolUse", "matcher": "(", "handler": {"command": "x"}}]}}`))
	f.Add([]byte("// c\n{\"id\": \"c\", /* d */ \"contributes\": {\"hooks\": [{\"event\": \"AgentStop\", \"handler\": {\"command\": \"x\",},},],},}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse("m.json", data)
		if err != nil {
			var me *Error
			if !errors.As(err, &me) || me.File != "m.json" {
				t.Fatalf("an error without the file: %v", err)
			}
			if me.Line < 1 || me.Col < 1 {
				t.Fatalf("an error without a position: %v", err)
			}
			return
		}
		for _, e := range m.Contributes.Hooks {
			if !plugin.IsValidHookEvent(e.Event) || (e.Matcher != "" && e.matcher == nil) {
				t.Fatalf("accepted a bad entry %+v", e)
			}
		}
	})
}

func FuzzDecodeResponse(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"result":{"decision":"deny","message":"m"}}`))
	f.Add([]byte(`{"id":2,"error":{"message":"x"}}`))
	f.Add([]byte(`{"id":3,"result":42}`))
	f.Add([]byte(`{"id":"3","result":null}`))
	f.Add([]byte(`not json`))
	f.Add([]byte(`{"id":1,"result":{"decision":"` + strings.Repeat("x", 5000) + `"}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		id, res, err := DecodeResponse(line)
		if err == nil && id <= 0 {
			t.Fatalf("accepted a response without a call's id: %d", id)
		}
		if err == nil && res != nil && res.Decision != "" && !res.Decision.Valid() {
			t.Fatalf("accepted decision %q", res.Decision)
		}
		if err != nil && len(err.Error()) > 2000 {
			t.Fatalf("an error of %d bytes", len(err.Error()))
		}
	})
}
