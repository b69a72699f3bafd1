package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
)

// tty is the real binary in a pseudo-terminal of its own: a tmux session
// on a tmux server of the test's, driven with send-keys and read with
// capture-pane, as a person at a terminal would use it.
type tty struct {
	t      *testing.T
	socket string
}

// openTTY runs podcode args in dir, in a terminal of 110×36.
func openTTY(t *testing.T, dir, home string, args ...string) *tty {
	t.Helper()
	return openTTYEnv(t, dir, home, nil, args...)
}

// openTTYEnv is openTTY with more of the environment (NAME=value).
func openTTYEnv(t *testing.T, dir, home string, extra []string, args ...string) *tty {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("tmux is not installed (Debian: apt-get install -y tmux); the terminal chat's tests drive the binary in it")
	}
	// A server of the test's own, by its socket's path: two runs of the
	// tests at once never share one.
	tt := &tty{t: t, socket: filepath.Join(t.TempDir(), "tmux.sock")}
	var line strings.Builder
	line.WriteString("exec env")
	for _, kv := range env(home) {
		if strings.HasPrefix(kv, "XDG_") || strings.HasPrefix(kv, "PODCODE_") || strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "HOME=") {
			line.WriteString(" " + shellQuote(kv))
		}
	}
	for _, kv := range extra {
		line.WriteString(" " + shellQuote(kv))
	}
	line.WriteString(" TERM=xterm-256color " + shellQuote(binary))
	for _, a := range args {
		line.WriteString(" " + shellQuote(a))
	}
	tt.tmux("new-session", "-d", "-s", "chat", "-x", "110", "-y", "36", "-c", dir, line.String())
	tt.tmux("set-option", "-t", "chat", "remain-on-exit", "on")
	t.Cleanup(func() { exec.Command("tmux", "-S", tt.socket, "kill-server").Run() })
	return tt
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

func (tt *tty) tmux(args ...string) string {
	tt.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tt.socket}, args...)...).CombinedOutput()
	if err != nil {
		tt.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// keys types keys: text, or tmux's names (Enter, Escape, Tab, C-c).
func (tt *tty) keys(keys ...string) {
	tt.t.Helper()
	tt.tmux(append([]string{"send-keys", "-t", "chat"}, keys...)...)
}

// screen is what the terminal shows, with its scrollback, without colours.
func (tt *tty) screen() string {
	tt.t.Helper()
	return tt.tmux("capture-pane", "-p", "-J", "-S", "-500", "-t", "chat")
}

// waitForExit waits for the chat's process to end and its terminal to
// close. tmux says so with pane_dead (no process has the terminal open);
// its "Pane is dead" line can come much later, or never: tmux's SIGCHLD
// can be lost (a known race of tmux's with libutempter), leaving the
// exited chat a zombie tmux has not reaped. So the chat has ended when the
// pane is dead and its process is gone or a zombie.
// When the terminal stays open, the test says why: the processes on it,
// the chat's goroutines (SIGQUIT: Go prints them to standard error, the
// terminal) and its log (logPath), whose lines are timed.
func (tt *tty) waitForExit(what, logPath string) {
	tt.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !tt.ended() {
		if time.Now().Before(deadline) {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		// What still holds the terminal: tmux marks the pane dead only
		// when its process has exited and no process has the terminal
		// open any more.
		pane := strings.Fields(tt.tmux("display-message", "-p", "-t", "chat", "#{pane_pid} #{pane_dead} #{pane_tty}"))
		holders := "tmux's pane: " + strings.Join(pane, " ") + "\n"
		if len(pane) == 3 {
			holders += terminalHolders(pane[2])
			if pid, err := strconv.Atoi(pane[0]); err == nil {
				stat, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
				holders += fmt.Sprintf("the chat (pid %d): %s\n", pid, stat)
				syscall.Kill(pid, syscall.SIGQUIT)
				time.Sleep(2 * time.Second)
			}
		}
		data, _ := os.ReadFile(logPath)
		tt.t.Fatalf("%s: the terminal did not close within 30 s; the processes on it:\n%s\nthe chat's log:\n%s\nthe terminal, with the chat's goroutines if it still ran:\n%s",
			what, holders, data, tt.tmux("capture-pane", "-p", "-J", "-S", "-20000", "-t", "chat"))
	}
}

// ended reports whether the pane is dead and its process has exited.
func (tt *tty) ended() bool {
	tt.t.Helper()
	f := strings.Fields(tt.tmux("display-message", "-p", "-t", "chat", "#{pane_dead} #{pane_pid}"))
	if len(f) != 2 || f[0] != "1" {
		return false
	}
	stat, err := os.ReadFile("/proc/" + f[1] + "/stat")
	if err != nil {
		return true // reaped
	}
	// pid (comm) state ...: comm may hold spaces and parentheses.
	rest := string(stat[strings.LastIndexByte(string(stat), ')')+1:])
	return strings.HasPrefix(strings.TrimSpace(rest), "Z")
}

// terminalHolders lists the processes that have the terminal tty open
// (its path, /dev/pts/N): their ids, states and command lines.
func terminalHolders(tty string) string {
	var b strings.Builder
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	seen := map[string]bool{}
	for _, fd := range fds {
		if target, err := os.Readlink(fd); err != nil || target != tty {
			continue
		}
		pid := strings.Split(fd, "/")[2]
		if seen[pid] {
			continue
		}
		seen[pid] = true
		stat, _ := os.ReadFile("/proc/" + pid + "/stat")
		cmdline, _ := os.ReadFile("/proc/" + pid + "/cmdline")
		fmt.Fprintf(&b, "%s has it open: %s\n  %s\n", pid, strings.TrimSpace(string(stat)), strings.ReplaceAll(string(cmdline), "\x00", " "))
	}
	if b.Len() == 0 {
		return "no process has " + tty + " open\n"
	}
	return b.String()
}

// waitFor waits until the screen matches re, and returns the screen.
func (tt *tty) waitFor(what, re string) string {
	tt.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(30 * time.Second)
	for {
		s := tt.screen()
		if rx.MatchString(s) {
			return s
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("%s: the terminal never showed %q; it shows:\n%s", what, re, s)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// answerRead is longer than the chat waits before y answers a question.
const answerRead = 500 * time.Millisecond

// A person chats in the terminal: a turn whose bash call a permission
// question holds until they answer y, with the hooks that ran around it
// shown under it; a slash command of the project; a turn cancelled with
// Esc; and, after leaving, the session resumed with its history.
func TestTerminalChat(t *testing.T) {
	dir := apptest.Dir(t, apptest.Project{Files: map[string]string{
		"podcode.json": `{"permission": {"bash": "ask", "*": "allow"}, "plugin": ["./audit.js"]}`,
		"audit.js": `export default { id: "audit", server: () => ({
			"tool.execute.before": (i) => { if (i.toolID === "bash") return { ...i, args: { ...i.args, command: i.args.command + " there" } } },
		}) }`,
		".claude/commands/hello.md": "---\ndescription: say hello\n---\nHello $ARGUMENTS\n",
	}})
	home := t.TempDir()
	if out, err := podcode(dir, home, "trust", "--yes"); err != nil {
		t.Fatalf("podcode trust: %v\n%s", err, out)
	}
	tt := openTTY(t, dir, home)
	tt.waitFor("the chat opens", `(?m)^podcode · new session · ses_\w+ · offline/echo\n› Ask, or / for a command`)

	tt.keys(`/tool bash {"command": "echo hi"}`, "Enter")
	s := tt.waitFor("the question", `\? Allow bash\?  echo hi  \(the project's permission rule "bash" says ask\)\n  \[y\] allow  \[n\] deny`)
	if !strings.Contains(s, "⠋ bash  echo hi") && !regexp.MustCompile(`[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] bash  echo hi`).MatchString(s) {
		t.Errorf("the call is not shown under way:\n%s", s)
	}
	time.Sleep(answerRead) // a y typed at once is type-ahead, not an answer
	tt.keys("y")
	s = tt.waitFor("the call's result", `· complete`)
	// The call with the hooks that ran around it, in order, then its
	// output and the model's answer.
	if !regexp.MustCompile(`  \? bash echo hi: allowed\n✓ bash  echo hi\n(  │ .*\n)*` +
		`  │ PreToolUse +config:permission +ask: the project's permission rule "bash" says ask +[\d.]+ (µs|ms|s)\n` +
		`  │ tool\.execute\.before +audit +changed +[\d.]+ (µs|ms|s)\n` +
		`  └ hi there\n +Tool bash returned: hi there\n`).MatchString(s) {
		t.Errorf("the call and its hooks:\n%s", s)
	}

	tt.keys("/hel")
	tt.waitFor("the commands that match", `  /help what the keys and commands do\n  /hello say hello`)
	tt.keys("l", "Tab", "world", "Enter")
	tt.waitFor("the project's command", `› /hello world\n\s+You said: Hello world`)

	tt.keys(`/tool bash {"command": "echo started; sleep 30; echo"}`, "Enter")
	tt.waitFor("the second question", `\? Allow bash\?  echo started; sleep 30; echo`)
	time.Sleep(answerRead)
	tt.keys("y")
	// Under way, with its progress: the bytes it has written.
	tt.waitFor("the call under way", `(?m)^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] bash  echo started; sleep 30; echo  · 8 bytes of output$`)
	tt.keys("Escape")
	s = tt.waitFor("the cancel", `✗ turn interrupted`)
	if !regexp.MustCompile(`✗ bash  echo started; sleep 30; echo\n(  │ .*\n)*  └ the call was cancelled`).MatchString(s) {
		t.Errorf("the cancelled call:\n%s", s)
	}
	// The chat's own server is on loopback and wants the chat's token;
	// its log is in the data directory, for the user alone.
	logs, _ := filepath.Glob(filepath.Join(home, "data", "podcode", "projects", "*", "chat.log"))
	if len(logs) != 1 {
		t.Fatalf("chat.log: %v", logs)
	}
	if fi, err := os.Stat(logs[0]); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("chat.log: %v %v", fi.Mode(), err)
	}
	data, _ := os.ReadFile(logs[0])
	addr := regexp.MustCompile(`chat: serving the chat on loopback.* addr=(127\.0\.0\.1:\d+)`).FindSubmatch(data)
	if addr == nil {
		t.Fatalf("chat.log names no address:\n%s", data)
	}
	res, err := http.Get("http://" + string(addr[1]) + "/sessions")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 401 {
		t.Errorf("the chat's server answered %d to a request without its token", res.StatusCode)
	}
	tt.keys("C-c")
	tt.waitForExit("the chat ends", logs[0])

	// Resumed: the history, then a turn of the same session.
	tt2 := openTTY(t, dir, home, "--continue")
	s = tt2.waitFor("the session resumed", `resumed: \d+ messages`)
	for _, want := range []string{"› /tool bash {\"command\": \"echo hi\"}", "  └ hi there", "✗ bash  echo started; sleep 30; echo"} {
		if !strings.Contains(s, want) {
			t.Errorf("the resumed history has no %q:\n%s", want, s)
		}
	}
	first := regexp.MustCompile(`ses_\w+`).FindString(tt.screen())
	if !strings.Contains(s, first) {
		t.Errorf("resumed another session than %s:\n%s", first, s)
	}
	tt2.keys("again", "Enter")
	tt2.waitFor("a turn of the resumed session", `› again\n\s+You said: again`)
	tt2.keys("/sessions", "Enter")
	// Named after its first prompt.
	tt2.waitFor("the sessions", fmt.Sprintf(`\*\s+1  /tool bash \{"command": "echo hi"\}  %s · idle`, first))
}

// With --attach, the chat is a client of a podcode serve elsewhere, with
// its token: the turn runs in that server, and a wrong token is said.
func TestTerminalChatAttached(t *testing.T) {
	dir := apptest.Dir(t, apptest.Project{})
	home := userHome(t, `{"server": {"token": "s3cret-token"}}`)
	srv := start(t, dir, home)
	tt := openTTYEnv(t, t.TempDir(), t.TempDir(), []string{"PODCODE_API_TOKEN=s3cret-token"}, "--attach", srv.base)
	s := tt.waitFor("the attached chat opens", `podcode · new session · (ses_\w+) · offline/echo`)
	id := regexp.MustCompile(`ses_\w+`).FindString(s)
	tt.keys("hello server", "Enter")
	tt.waitFor("the server's answer", `› hello server\n\s+You said: hello server`)
	req, _ := http.NewRequest("GET", srv.base+"/sessions/"+id+"/messages", nil)
	req.Header.Set("Authorization", "Bearer s3cret-token")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var msgs []struct{ Role, Text string }
	if err := json.NewDecoder(res.Body).Decode(&msgs); err != nil || len(msgs) < 2 || msgs[0].Text != "hello server" {
		t.Errorf("the server's session %s: %v %+v", id, err, msgs)
	}

	wrong := openTTYEnv(t, t.TempDir(), t.TempDir(), []string{"PODCODE_API_TOKEN=wrong"}, "--attach", srv.base)
	wrong.waitFor("a wrong token", `podcode: .*\(HTTP 401\)`)
}

// The chat refuses to start without a terminal, saying what to use.
func TestChatNeedsATerminal(t *testing.T) {
	dir := apptest.Dir(t, apptest.Project{})
	out, err := podcode(dir, t.TempDir(), "chat")
	if err == nil || !strings.Contains(out, "the chat needs a terminal; for one turn from a script, use podcode run") {
		t.Errorf("podcode chat without a terminal: %v\n%s", err, out)
	}
	// podcode with no arguments and no terminal is the help, as before.
	out, err = podcode(dir, t.TempDir())
	if err != nil || !strings.Contains(out, "In a terminal, podcode with no arguments opens the chat") {
		t.Errorf("podcode without a terminal: %v\n%s", err, out)
	}
}
