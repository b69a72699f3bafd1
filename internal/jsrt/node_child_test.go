package jsrt

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/dop251/goja"

	"github.com/podcode/podcode/internal/logtest"
)

// A process whose output the plugin passes on (stdio "inherit") writes to
// the server's log a line at a time, stdout at info and stderr at warn,
// each line cut at ConsoleLineChars, and at most inheritBurst lines at
// once: the rest are dropped and counted in a warning.
func TestInheritedOutputIsBoundedLogLines(t *testing.T) {
	r, logs := newRT(t, "", func(o *Options) {
		o.Exec = func(_ context.Context, req ExecRequest) (*ExecApproval, error) {
			return &ExecApproval{Cmd: req.Cmd()}, nil
		}
	})
	ctx := context.Background()
	err := r.Do(ctx, func(vm *goja.Runtime) error {
		cp, _, err := r.Builtin("child_process")
		if err != nil {
			return err
		}
		vm.Set("cp", cp)
		_, err = vm.RunString(`function run(script) { cp.execSync(script, { stdio: "inherit" }) }`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := callGlobal(r, ctx, "run", "echo hello; echo oops >&2; printf 'no newline'"); err != nil {
		t.Fatal(err)
	}
	for _, want := range [][]string{{"level=INFO", "msg=hello", "source=process"}, {"level=WARN", "msg=oops", "source=process"}, {"level=INFO", `msg="no newline"`, "source=process"}} {
		if !logtest.HasLine(logs.String(), want...) {
			t.Errorf("no line with %q in:\n%s", want, logs.String())
		}
	}
	long := ConsoleLineChars + 100
	if _, err := callGlobal(r, ctx, "run", "head -c "+strconv.Itoa(long)+" /dev/zero | tr '\\0' x; echo; echo after"); err != nil {
		t.Fatal(err)
	}
	if !logtest.HasLine(logs.String(), "msg="+strings.Repeat("x", ConsoleLineChars)+" ", "source=process") ||
		strings.Contains(logs.String(), strings.Repeat("x", ConsoleLineChars+1)) || !strings.Contains(logs.String(), "msg=after") {
		t.Errorf("the long line is not cut at %d, or what follows it is lost", ConsoleLineChars)
	}
	n := 3 * inheritBurst
	if _, err := callGlobal(r, ctx, "run", "seq 1 "+strconv.Itoa(n)); err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(logs.String(), "source=process")
	if lines >= n || !strings.Contains(logs.String(), "plugin: a process's output was more lines than the log takes; the rest were dropped") {
		t.Errorf("%d lines logged of %d written, and no word of those dropped", lines, n)
	}
}
