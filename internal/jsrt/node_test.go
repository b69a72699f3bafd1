package jsrt

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dop251/goja"
	"github.com/evanw/esbuild/pkg/api"
)

// The Node modules are tested against Node itself: each script under
// testdata/node runs once under `node` and once in a runtime, each in a
// fresh folder of its own with the same files, environment and HOME, and
// what the two print must be the same, line for line. A script is the body
// of an async function (it awaits what it starts before it returns); it
// prints with console.log, which both render alike for strings, numbers
// and booleans (print anything else through JSON.stringify or util). The
// folder's path is printed as <dir>, HOME as <home>.
//
// A line that differs on purpose (an API Podcode refuses) is not compared:
// the script prints it with console.log("podcode-differs:", …) in Podcode
// only; docs/plugins.md says what differs.
//
// A script that uses for await or an async generator is lowered for
// Podcode as bundling lowers a plugin's (goja has neither). Both runs get
// TEST_HTTP_URL and TEST_HTTPS_URL, loopback servers of node_http_test.go
// (the second's certificate in TEST_HTTPS_CA), and TEST_REFUSED_URL, an
// address nothing listens on.

// nodeScriptEnv is the environment both runs get, besides HOME and PATH.
var nodeScriptEnv = map[string]string{"GREETING": "hi", "LANG": "C.UTF-8", "TZ": "UTC"}

func TestNodeCompat(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: scripts/test installs it")
	}
	scripts, err := filepath.Glob(filepath.Join("testdata", "node", "*.js"))
	if err != nil || len(scripts) == 0 {
		t.Fatalf("no scripts under testdata/node: %v", err)
	}
	for k, v := range nodeTestServers(t) {
		nodeScriptEnv[k] = v
	}
	for _, script := range scripts {
		name := strings.TrimSuffix(filepath.Base(script), ".js")
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			src, err := os.ReadFile(script)
			if err != nil {
				t.Fatal(err)
			}
			want := runNodeScript(t, node, string(src))
			got := runPodcodeScript(t, string(src))
			compareScriptOutput(t, want, got)
		})
	}
}

// scriptDirs makes the folder a script runs in, and its HOME.
func scriptDirs(t *testing.T) (dir, home string) {
	base := t.TempDir()
	dir, home = filepath.Join(base, "work"), filepath.Join(base, "home")
	for _, d := range []string{dir, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir, home
}

func scrub(line, dir, home string) string {
	// home after dir: neither is inside the other, both under one base
	return strings.ReplaceAll(strings.ReplaceAll(line, dir, "<dir>"), home, "<home>")
}

func runNodeScript(t *testing.T, node, src string) []string {
	t.Helper()
	dir, home := scriptDirs(t)
	file := filepath.Join(filepath.Dir(dir), "script.cjs")
	wrapped := "(async () => {\n" + src + "\n})().catch((e) => { console.log('uncaught:', e && e.stack || String(e)); });\n"
	if err := os.WriteFile(file, []byte(wrapped), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, file)
	cmd.Dir = dir
	cmd.Env = []string{"HOME=" + home, "PATH=" + os.Getenv("PATH")}
	for k, v := range nodeScriptEnv {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s%s", err, out, stderr.String())
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		lines = append(lines, scrub(l, dir, home))
	}
	return lines
}

// consoleLines keeps the messages of console lines, in order.
type consoleLines struct {
	mu    sync.Mutex
	lines []string
}

func (c *consoleLines) Enabled(context.Context, slog.Level) bool { return true }
func (c *consoleLines) WithAttrs([]slog.Attr) slog.Handler       { return c }
func (c *consoleLines) WithGroup(string) slog.Handler            { return c }
func (c *consoleLines) Handle(_ context.Context, rec slog.Record) error {
	console := false
	rec.Attrs(func(a slog.Attr) bool {
		console = console || a.Key == "source" && a.Value.String() == "console"
		return true
	})
	c.mu.Lock()
	defer c.mu.Unlock()
	if console {
		c.lines = append(c.lines, strings.Split(rec.Message, "\n")...)
	} else {
		c.lines = append(c.lines, "log: "+rec.Message)
	}
	return nil
}

// runPodcodeScript runs src in a fresh runtime (opts adjust its Options)
// and returns what it printed, its folder's and HOME's paths scrubbed.
func runPodcodeScript(t *testing.T, src string, opts ...func(*Options)) []string {
	t.Helper()
	dir, home := scriptDirs(t)
	env := map[string]string{"HOME": home, "PATH": os.Getenv("PATH")}
	for k, v := range nodeScriptEnv {
		env[k] = v
	}
	out := &consoleLines{}
	// A script's jobs load modules and run what they test: a loaded machine
	// (the race detector, other packages' tests) must not make them spins.
	o := Options{Name: "node-compat", Logger: slog.New(out), Cwd: dir, Env: env, MemoryLimit: 256 << 20, JobLimit: 2 * time.Minute,
		Exec: func(_ context.Context, req ExecRequest) (*ExecApproval, error) {
			return &ExecApproval{Cmd: req.Cmd()}, nil
		}}
	for _, f := range opts {
		f(&o)
	}
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err = r.Call(ctx, func(vm *goja.Runtime) (goja.Value, error) {
		vm.Set("require", func(call goja.FunctionCall) goja.Value {
			v, ok, err := r.Builtin(call.Argument(0).String())
			if err != nil {
				panic(vm.NewGoError(err))
			}
			if !ok {
				panic(vm.NewGoError(fmt.Errorf("cannot find module %q", call.Argument(0).String())))
			}
			return v
		})
		code, err := lowerForGoja("(async () => {\n" + src + "\n})().catch((e) => { console.log('uncaught:', e && e.stack || String(e)); });")
		if err != nil {
			return nil, err
		}
		return vm.RunScript("script.cjs", code)
	}, nil)
	if err != nil {
		t.Fatalf("podcode: %v", err)
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	var lines []string
	for _, l := range out.lines {
		lines = append(lines, scrub(l, dir, home))
	}
	return lines
}

// lowerForGoja rewrites what goja does not parse (for await, async
// generators) as bundling does for a plugin's code: a script runs here as
// a plugin's would.
func lowerForGoja(src string) (string, error) {
	res := api.Transform(src, api.TransformOptions{
		Loader: api.LoaderJS, Target: api.ESNext, Format: api.FormatDefault,
		Supported: map[string]bool{"async-generator": false, "for-await": false, "using": false},
	})
	if len(res.Errors) > 0 {
		return "", fmt.Errorf("esbuild: %s", res.Errors[0].Text)
	}
	return string(res.Code), nil
}

func compareScriptOutput(t *testing.T, want, got []string) {
	t.Helper()
	got = slices.DeleteFunc(got, func(l string) bool { return strings.HasPrefix(l, "podcode-differs:") })
	if slices.Equal(want, got) {
		return
	}
	var b strings.Builder
	shown := 0
	for i := 0; i < max(len(want), len(got)) && shown < 40; i++ {
		w, g := "(none)", "(none)"
		if i < len(want) {
			w = want[i]
		}
		if i < len(got) {
			g = got[i]
		}
		if w != g {
			shown++
			fmt.Fprintf(&b, "%3d node:    %s\n    podcode: %s\n", i+1, w, g)
		}
	}
	t.Errorf("the script printed other lines than under node:\n%s", b.String())
}
