package jsrt

import (
	"context"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"

	"github.com/podcode/podcode/internal/logtest"
)

// A plugin that logs strings alone never loads node:util; the first line
// with anything else does, and is formatted as Node formats it.
func TestConsoleLoadsUtilOnlyWhenNeeded(t *testing.T) {
	r, logs := newRT(t, `
		function strings() { console.log("plain"); console.info("a", "b"); console.warn("no %", "percent"); console.count(); console.group("g"); console.groupEnd(); }
		function object() { console.log("obj", { a: [1, { b: 2 }] }); }`)
	ctx := context.Background()
	loaded := func() bool {
		var ok bool
		r.Do(ctx, func(*goja.Runtime) error { _, ok = r.host.node["util"]; return nil })
		return ok
	}
	if _, err := callGlobal(r, ctx, "strings"); err != nil {
		t.Fatal(err)
	}
	if loaded() {
		t.Errorf("logging strings loaded node:util")
	}
	if _, err := callGlobal(r, ctx, "object"); err != nil {
		t.Fatal(err)
	}
	if !loaded() {
		t.Errorf("logging an object did not load node:util")
	}
	out := logs.String()
	for _, want := range []string{`msg=plain`, `msg="a b"`, `msg="no % percent"`, `msg="default: 1"`, `msg="obj { a: [ 1, { b: 2 } ] }"`} {
		if !strings.Contains(out, want) {
			t.Errorf("logs lack %s:\n%s", want, out)
		}
	}
}

// What Node writes to stderr or only times: the timers, trace, the
// warnings of count and time, and an object long enough to be cut.
func TestConsoleTimersTraceAndWarnings(t *testing.T) {
	r, logs := newRT(t, `
		function run() {
			console.time("t"); console.timeLog("t", "midway", { k: 1 }); console.timeEnd("t"); console.timeEnd("t");
			console.time(); console.time(); console.timeEnd();
			console.countReset("never");
			console.trace("traced %d", 7);
			console.trace("two\nlines");
			console.trace();
			console.assert(1 === 2, "%s failed", "check");
			console.assert(false);
			console.error(new Map([[1, { deep: { deeper: { deepest: 1 } } }]]));
			console.log("x".repeat(70000), { cut: true });
		}`, func(o *Options) { o.JobLimit = 2 * time.Minute }) // its first job loads node:util: a loaded machine must not make it a spin
	if _, err := callGlobal(r, context.Background(), "run"); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	for _, re := range []string{
		`level=INFO msg="t: \d+(\.\d+)?ms midway \{ k: 1 \}"`,
		`level=INFO msg="t: \d+(\.\d+)?ms"`,
		`level=WARN msg="\(node\) Warning: No such label 't' for console.timeEnd\(\)"`,
		`level=WARN msg="\(node\) Warning: Label 'default' already exists for console.time\(\)"`,
		`level=INFO msg="default: \d+(\.\d+)?ms"`,
		`level=WARN msg="\(node\) Warning: Count for 'never' does not exist"`,
		`level=DEBUG msg="Trace: traced 7\\n    at `,
		`level=DEBUG msg="Trace: two\\nlines\\n    at `,
		`level=DEBUG msg="Trace\\n    at `,
		`level=WARN msg="Assertion failed: check failed"`,
		`level=WARN msg="Assertion failed"`,
		`level=ERROR msg="Map\(1\) \{ 1 => \{ deep: \{ deeper: \[Object\] \} \} \}"`,
		`more characters not logged\)"`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("logs lack %s:\n%.3000s", re, out)
		}
	}
}

// What the Node scripts cannot compare: a Buffer (node:buffer's, or any
// Uint8Array whose class is named so) as Node shows one, and debuglog,
// which writes to stderr in Node, with the process id.
func TestInspectBufferAndDebuglog(t *testing.T) {
	r, logs := newRT(t, `
		function run(util) {
			class Buffer extends Uint8Array {}
			const b = new Buffer([97, 98]);
			const long = new Buffer(60);
			const tagged = Object.assign(new Buffer([1]), { tag: "t" });
			const off = util.debuglog("quiet");
			off("never");
			const on = util.debuglog("podcode");
			on("hello %s", "world");
			on({ obj: 1 });
			return [util.inspect(b), util.inspect(long), util.inspect(tagged), util.inspect(new Buffer(0)), util.format("%s", b), String(off.enabled), String(on.enabled)].join("|");
		}`, func(o *Options) { o.Env = map[string]string{"NODE_DEBUG": "other,PODCODE"} })
	var got string
	err := r.Do(context.Background(), func(vm *goja.Runtime) error {
		util, _, err := r.Builtin("util")
		if err != nil {
			return err
		}
		fn, _ := goja.AssertFunction(vm.Get("run"))
		v, err := fn(goja.Undefined(), util)
		if err == nil {
			got = v.String()
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	zeros := strings.TrimSuffix(strings.Repeat("00 ", 50), " ")
	want := "<Buffer 61 62>|<Buffer " + zeros + " ... 10 more bytes>|<Buffer 01, tag: 't'>|<Buffer >|97,98|false|true"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	out := logs.String()
	for _, re := range []string{`level=ERROR msg="PODCODE \d+: hello world"`, `level=ERROR msg="PODCODE \d+: \{ obj: 1 \}"`} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("logs lack %s:\n%s", re, out)
		}
	}
	if strings.Contains(out, "never") {
		t.Errorf("a disabled debuglog logged:\n%s", out)
	}
}

// A line at a level the log does not take is not formatted: an object
// whose inspection would throw is never looked at.
func TestConsoleSkipsDisabledLevels(t *testing.T) {
	logs := &logtest.Buffer{}
	r, _ := newRT(t, `
		function run() {
			const bomb = { [Symbol.for("nodejs.util.inspect.custom")]() { throw new Error("formatted"); } };
			console.debug("dropped", bomb);
			console.trace("dropped too", bomb);
			console.info("kept");
		}`, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	if _, err := callGlobal(r, context.Background(), "run"); err != nil {
		t.Fatal(err)
	}
	if out := logs.String(); !strings.Contains(out, "msg=kept") || strings.Contains(out, "dropped") {
		t.Errorf("logs:\n%s", out)
	}
}
