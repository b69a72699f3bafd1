package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
)

// The end-to-end tests run the podcode command built from examples/embed
// (the podcode command with a Go PreToolUse guard compiled in that denies
// destructive bash commands) and drive it with the official TypeScript
// SDK's client (testdata/client.mjs) or by hand.

func TestMain(m *testing.M) {
	code := m.Run()
	apptest.RemoveBinaries()
	os.Exit(code)
}

// e2eProject writes a project with the redactor plugin, notes.txt holding
// a secret and a victim folder, and returns it with the environment that
// keeps the command away from the real user's folders.
func e2eProject(t *testing.T) (dir string, env []string) {
	t.Helper()
	dir = apptest.Dir(t, apptest.Project{
		Plugins: []string{"./plugins/redactor.js"},
		Files: map[string]string{
			"plugins/redactor.js": redactor,
			"notes.txt":           "the key is SECRET-12345, keep it\n",
			"victim/keep.txt":     "still here\n",
		},
	})
	home := t.TempDir()
	env = append(os.Environ(), "XDG_CONFIG_HOME="+filepath.Join(home, "config"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"),
		"XDG_DATA_HOME="+filepath.Join(home, "data"), "CLAUDE_CONFIG_DIR="+filepath.Join(home, "claude"),
		"PODCODE_TRUST_ALL=1", "PODCODE_API_TOKEN=")
	return dir, env
}

// nodeClient runs testdata/client.mjs with args and returns its steps by
// name.
func nodeClient(t *testing.T, env []string, args ...string) map[string]map[string]any {
	t.Helper()
	apptest.RequireNodeModules(t, "../mcpclient/testdata", "@modelcontextprotocol/sdk")
	cmd := exec.Command("node", append([]string{"testdata/client.mjs"}, args...)...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node client.mjs %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	steps := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		var step map[string]any
		if err := json.Unmarshal([]byte(line), &step); err != nil {
			t.Fatalf("client line %q: %v", line, err)
		}
		steps[step["step"].(string)] = step
	}
	if t.Failed() || steps["closed"] == nil {
		t.Logf("stderr of the client (and the server over stdio):\n%s", stderr.String())
	}
	return steps
}

// checkSteps asserts what the TypeScript client saw: the tools listed, the
// destructive command denied by the Go guard, read working with the JS
// plugin's redaction applied.
func checkSteps(t *testing.T, dir string, steps map[string]map[string]any) {
	t.Helper()
	if c := steps["connected"]; c == nil || c["server"] != "podcode" || c["listChanged"] != true {
		t.Errorf("connected: %v", c)
	}
	names := fmt.Sprint(steps["tools"]["names"])
	for _, id := range []string{"bash", "read", "glob", "shout", "leaky"} {
		if !strings.Contains(names, id) {
			t.Errorf("tools/list lacks %s: %s", id, names)
		}
	}
	read, _ := steps["tools"]["read"].(map[string]any)
	if schema, _ := json.Marshal(read["inputSchema"]); !strings.Contains(string(schema), `"path"`) || read["description"] == "" {
		t.Errorf("read is listed as %v", read)
	}
	if d := steps["denied"]; d["isError"] != true || !strings.Contains(fmt.Sprint(d["text"]), "destructive commands are not allowed here") {
		t.Errorf("denied: %v", d)
	}
	if _, err := os.Stat(filepath.Join(dir, "victim", "keep.txt")); err != nil {
		t.Errorf("the denied command ran: %v", err)
	}
	if r := steps["read"]; r["isError"] != false || !strings.Contains(fmt.Sprint(r["text"]), "the key is [REDACTED], keep it") || strings.Contains(fmt.Sprint(r["text"]), "SECRET") {
		t.Errorf("read: %v", r)
	}
	if steps["closed"] == nil {
		t.Errorf("the client did not close cleanly: %v", steps["error"])
	}
}

// `podcode mcp serve` driven over stdio by the TypeScript SDK's client:
// the guard and the plugin apply to its calls.
func TestServeStdioWithTypeScriptClient(t *testing.T) {
	bin := apptest.Binary(t, apptest.Embedded)
	dir, env := e2eProject(t)
	checkSteps(t, dir, nodeClient(t, env, "stdio", bin, dir))
}

// /mcp of `podcode serve` driven by the TypeScript SDK's client with the
// token; without the token, /mcp answers 401.
func TestServeHTTPWithTypeScriptClient(t *testing.T) {
	bin := apptest.Binary(t, apptest.Embedded)
	dir, env := e2eProject(t)
	const token = "e2e-token-0123456789"
	base := serve(t, bin, dir, append(env, "PODCODE_API_TOKEN="+token), token)

	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, auth := range []string{"", "Bearer wrong-token"} {
		req, _ := http.NewRequest("POST", base+"/mcp", strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusUnauthorized || res.Header.Get("Mcp-Session-Id") != "" {
			t.Errorf("POST /mcp with %q: %d %s", auth, res.StatusCode, body)
		}
	}

	checkSteps(t, dir, nodeClient(t, env, "http", base+"/mcp", token))
}

// `podcode mcp serve` writes nothing but protocol messages to standard
// output, ends cleanly when its input ends, and on SIGTERM.
func TestServeStdioStops(t *testing.T) {
	bin := apptest.Binary(t, apptest.Embedded)
	dir, env := e2eProject(t)
	for _, how := range []string{"end of input", "SIGTERM"} {
		t.Run(how, func(t *testing.T) {
			cmd := exec.Command(bin, "mcp", "serve")
			cmd.Dir, cmd.Env = dir, env
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			lines := bufio.NewScanner(stdout)
			lines.Buffer(nil, 1<<20)
			send := func(msg string) {
				if _, err := io.WriteString(stdin, msg+"\n"); err != nil {
					t.Fatal(err)
				}
			}
			// receive reads the next line of standard output: it must be a
			// JSON-RPC message.
			receive := func() map[string]any {
				if !lines.Scan() {
					t.Fatalf("standard output ended: %v\nstderr:\n%s", lines.Err(), stderr.String())
				}
				var msg map[string]any
				if err := json.Unmarshal(lines.Bytes(), &msg); err != nil || msg["jsonrpc"] != "2.0" {
					t.Fatalf("standard output has %q, not a JSON-RPC message", lines.Text())
				}
				return msg
			}
			send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
			if msg := receive(); msg["id"] != 1.0 || msg["result"] == nil {
				t.Fatalf("initialize: %v", msg)
			}
			send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read","arguments":{"path":"notes.txt"}}}`)
			if msg := receive(); msg["id"] != 2.0 || !strings.Contains(fmt.Sprint(msg["result"]), "[REDACTED]") {
				t.Fatalf("tools/call: %v", msg)
			}
			if how == "SIGTERM" {
				cmd.Process.Signal(syscall.SIGTERM)
			} else {
				stdin.Close()
			}
			for lines.Scan() {
				var msg map[string]any
				if err := json.Unmarshal(lines.Bytes(), &msg); err != nil {
					t.Errorf("standard output has %q, not a JSON-RPC message", lines.Text())
				}
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("podcode mcp serve ended with %v\nstderr:\n%s", err, stderr.String())
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("podcode mcp serve did not stop after %s\nstderr:\n%s", how, stderr.String())
			}
		})
	}
}

// serve starts `podcode serve` (bin) in dir with env on a free loopback
// port, waits until it answers /healthz (with token, when not empty), and
// returns its base URL; the test's end stops it, logging its output when
// the test failed.
func serve(t *testing.T, bin, dir string, env []string, token string) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "serve", "--addr", addr)
	cmd.Dir, cmd.Env = dir, env
	var logs bytes.Buffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if t.Failed() {
			t.Logf("server log:\n%s", logs.String())
		}
	})
	base := "http://" + addr
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		req, _ := http.NewRequest("GET", base+"/healthz", nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
			return base
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server did not start:\n%s", logs.String())
		}
	}
}
