package jsrt

import (
	"context"
	"testing"

	"github.com/dop251/goja"
)

// go test -run '^$' -bench Call -benchmem ./internal/jsrt/
func benchCall(b *testing.B, src string, input map[string]any) {
	r, _ := newRT(b, "var hook = "+src)
	var fn goja.Callable
	r.Do(context.Background(), func(vm *goja.Runtime) error {
		fn, _ = goja.AssertFunction(vm.Get("hook"))
		return nil
	})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, err := r.Call(ctx, func(vm *goja.Runtime) (goja.Value, error) {
			v, err := ToValue(vm, input)
			if err != nil {
				return nil, err
			}
			return fn(goja.Undefined(), v)
		}, nil)
		if err != nil {
			b.Fatal(err)
		}
	}
}

var beforeInput = map[string]any{"toolID": "bash", "args": map[string]any{"command": "ls -la"},
	"ctx": map[string]any{"sessionID": "s1", "messageID": "m1", "callID": "c1", "agent": "build", "cwd": "/p"}}

func BenchmarkCallObserve(b *testing.B) { benchCall(b, `(input) => undefined`, beforeInput) }
func BenchmarkCallRewrite(b *testing.B) {
	benchCall(b, `(input) => (input.toolID !== "bash" ? undefined : { ...input, args: { ...input.args, timeout: 5000 } })`, beforeInput)
}
func BenchmarkCallAsync(b *testing.B) { benchCall(b, `async (input) => undefined`, beforeInput) }

// The loop hop alone: a job that does nothing.
func BenchmarkCallEmpty(b *testing.B) {
	r, _ := newRT(b, "")
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Call(ctx, func(vm *goja.Runtime) (goja.Value, error) { return goja.Undefined(), nil }, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// What console.log of an object costs: util.inspect of a hundred class
// instances, each with an array and an object inside.
func BenchmarkInspect(b *testing.B) {
	r, _ := newRT(b, `
		class P { constructor(i) { this.i = i; this.name = "n" + i; this.tags = ["a", "b"]; this.meta = { x: 1 }; } }
		var data = Array.from({ length: 100 }, (_, i) => new P(i));
		var inspect;
		function run() { return inspect(data).length; }`)
	r.Do(context.Background(), func(vm *goja.Runtime) error {
		util, _, err := r.Builtin("util")
		if err != nil {
			b.Fatal(err)
		}
		vm.Set("inspect", util.ToObject(vm).Get("inspect"))
		return nil
	})
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := callGlobal(r, ctx, "run"); err != nil {
			b.Fatal(err)
		}
	}
}
