package jsrt

import (
	"context"
	"testing"

	"github.com/dop251/goja"
)

// What the Node modules cost a plugin: a fresh runtime, the first
// require of a module in it (its evaluation; its compilation is once per
// process), and a process through child_process.
//
//	go test -run '^$' -bench 'NewRuntime|Require|ExecSync|Shell' -benchmem ./internal/jsrt/

func BenchmarkNewRuntime(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		r, err := New(Options{Name: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		r.Close()
	}
}

func BenchmarkRequire(b *testing.B) {
	for _, mod := range []string{"path", "events", "fs", "util", "stream", "child_process", "buffer", "url", "http", "bun"} {
		b.Run(mod, func(b *testing.B) {
			if !IsBuiltinModule(mod) {
				b.Skipf("no module %s", mod)
			}
			b.ReportAllocs()
			for b.Loop() {
				r, err := New(Options{Name: "bench"})
				if err != nil {
					b.Fatal(err)
				}
				if err := r.Do(context.Background(), func(*goja.Runtime) error { _, _, err := r.Builtin(mod); return err }); err != nil {
					b.Fatal(err)
				}
				r.Close()
			}
		})
	}
}

// benchScript runs src (a function body that returns a promise) b.N
// times in one runtime whose processes need no approval.
func benchScript(b *testing.B, setup, src string) {
	r, _ := newRT(b, "", func(o *Options) {
		o.Exec = func(_ context.Context, req ExecRequest) (*ExecApproval, error) {
			return &ExecApproval{Cmd: req.Cmd()}, nil
		}
	})
	var fn goja.Callable
	err := r.Do(context.Background(), func(vm *goja.Runtime) error {
		vm.Set("require", func(call goja.FunctionCall) goja.Value {
			v, _, err := r.Builtin(call.Argument(0).String())
			if err != nil {
				panic(vm.NewGoError(err))
			}
			return v
		})
		v, err := vm.RunString(setup + "; (async () => {" + src + "})")
		if err != nil {
			return err
		}
		fn, _ = goja.AssertFunction(v)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Call(context.Background(), func(*goja.Runtime) (goja.Value, error) { return fn(goja.Undefined()) }, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkExecSyncTrue(b *testing.B) {
	benchScript(b, `const cp = require("child_process")`, `cp.execFileSync("true")`)
}

func BenchmarkSpawnTrue(b *testing.B) {
	benchScript(b, `const cp = require("child_process")`, `await new Promise((res, rej) => { const c = cp.spawn("true"); c.on("error", rej); c.on("close", res) })`)
}

func BenchmarkShellTrue(b *testing.B) {
	benchScript(b, `const { $ } = require("bun")`, "await $`true`.quiet()")
}
