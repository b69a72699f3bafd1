package jsrt

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/dop251/goja"
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
			console.assert(1 === 2, "%s failed", "check");
			console.assert(false);
			console.error(new Map([[1, { deep: { deeper: { deepest: 1 } } }]]));
			console.log("x".repeat(70000), { cut: true });
		}`)
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
