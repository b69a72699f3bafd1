package jsrt

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/dop251/goja"
)

type callKey struct{}

// A process is attributed to the call whose own code starts it, not to
// another call's continuation that this call's code happened to resolve
// (a gate shared between calls): that one starts from no call.
func TestProcessesAreAttributedToTheirOwnCall(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	r, _ := newRT(t, "", func(o *Options) {
		o.Exec = func(ctx context.Context, req ExecRequest) (*ExecApproval, error) {
			who, _ := ctx.Value(callKey{}).(string)
			mu.Lock()
			seen = append(seen, req.Argv[1]+":"+who)
			mu.Unlock()
			return &ExecApproval{Cmd: req.Cmd()}, nil
		}
	})
	err := r.Do(context.Background(), func(vm *goja.Runtime) error {
		cp, _, err := r.Builtin("child_process")
		if err != nil {
			return err
		}
		vm.Set("cp", cp)
		_, err = vm.RunString(`
			let release;
			const gate = new Promise((r) => { release = r; });
			function b() { return gate.then(() => { cp.execFileSync("echo", ["b-continuation"]); }); }
			function a() { cp.execFileSync("echo", ["a-own"]); release(); }`)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	call := func(who, fn string) <-chan error {
		done := make(chan error, 1)
		go func() {
			_, err := r.Call(context.WithValue(context.Background(), callKey{}, who), func(vm *goja.Runtime) (goja.Value, error) {
				f, _ := goja.AssertFunction(vm.Get(fn))
				return f(goja.Undefined())
			}, nil)
			done <- err
		}()
		return done
	}
	bDone := call("B", "b")
	if err := <-call("A", "a"); err != nil {
		t.Fatal(err)
	}
	if err := <-bDone; err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := []string{"a-own:A", "b-continuation:"}; !slices.Equal(seen, want) {
		t.Errorf("processes attributed %q, want %q", seen, want)
	}
}
