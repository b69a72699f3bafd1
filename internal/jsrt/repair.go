package jsrt

import (
	"fmt"
	"reflect"
	"unsafe"

	"github.com/dop251/goja"
)

// repairer puts a goja runtime back into its idle state after an
// uncatchable error (an interrupt, a stack overflow, a Go panic) unwound
// through JavaScript.
//
// Why: goja's async functions and generators push a call frame and a try
// frame and pop them without defer. When an interrupt unwinds through one (a
// `while(true){}` after an `await`, in an async body, in a generator, in a
// call nested in a promise job), the frames stay behind: every later call
// counts itself as nested, never reaches the point where promise jobs run,
// and every later async hook hangs. goja offers no public way to reset this,
// and the alternative (throwing the runtime away) would lose the plugin's
// state and run its server() again (SPEC P5).
//
// How: the unexported fields below are reached once, at construction, with
// reflect and unsafe; a goja upgrade that renames or retypes one of them
// makes newRepairer fail, and the runtime's tests cover every case known to
// leave state behind. repair sets exactly the values a fresh runtime has
// between two top-level calls.
//
// When: only on the loop goroutine, after the outermost call returned (no
// goja frame on the Go stack), once the watchdog can no longer interrupt.
type repairer struct {
	rt                                       *goja.Runtime
	callStack, tryStack, iterStack, refStack reflect.Value
	stack                                    reflect.Value
	sp, sb, args, pc                         reflect.Value
	prg, stash, privEnv, curAsyncRunner      reflect.Value
	newTarget, result                        reflect.Value
	globalStash                              reflect.Value
	jobQueue, toStringStack                  reflect.Value
}

// field returns a settable view of a struct field, exported or not.
func field(v reflect.Value, name string) (reflect.Value, error) {
	f := v.FieldByName(name)
	if !f.IsValid() {
		return reflect.Value{}, fmt.Errorf("jsrt: goja's %s has no field %q: the repair needs updating for this goja version", v.Type(), name)
	}
	return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem(), nil
}

func newRepairer(rt *goja.Runtime) (p *repairer, err error) {
	p = &repairer{rt: rt}
	get := func(v reflect.Value, name string) reflect.Value {
		if err != nil {
			return reflect.Value{}
		}
		var f reflect.Value
		f, err = field(v, name)
		return f
	}
	r := reflect.ValueOf(rt).Elem()
	vmPtr := get(r, "vm")
	if err != nil {
		return nil, err
	}
	vm := vmPtr.Elem()
	p.callStack, p.tryStack = get(vm, "callStack"), get(vm, "tryStack")
	p.iterStack, p.refStack = get(vm, "iterStack"), get(vm, "refStack")
	p.stack = get(vm, "stack")
	p.sp, p.sb, p.args, p.pc = get(vm, "sp"), get(vm, "sb"), get(vm, "args"), get(vm, "pc")
	p.prg, p.stash, p.privEnv = get(vm, "prg"), get(vm, "stash"), get(vm, "privEnv")
	p.curAsyncRunner = get(vm, "curAsyncRunner")
	p.newTarget, p.result = get(vm, "newTarget"), get(vm, "result")
	global := get(r, "global")
	if err != nil {
		return nil, err
	}
	p.globalStash = get(global, "stash")
	p.jobQueue, p.toStringStack = get(r, "jobQueue"), get(r, "toStringStack")
	if err != nil {
		return nil, err
	}
	p.globalStash = p.globalStash.Addr()
	for name, v := range map[string]reflect.Value{"callStack": p.callStack, "tryStack": p.tryStack,
		"iterStack": p.iterStack, "refStack": p.refStack, "stack": p.stack, "jobQueue": p.jobQueue,
		"toStringStack": p.toStringStack} {
		if v.Kind() != reflect.Slice {
			return nil, fmt.Errorf("jsrt: goja's %s is no longer a slice", name)
		}
	}
	for name, v := range map[string]reflect.Value{"sp": p.sp, "sb": p.sb, "args": p.args, "pc": p.pc} {
		if v.Kind() != reflect.Int {
			return nil, fmt.Errorf("jsrt: goja's %s is no longer an int", name)
		}
	}
	if p.stash.Type() != p.globalStash.Type() {
		return nil, fmt.Errorf("jsrt: goja's vm.stash and &global.stash differ in type")
	}
	return p, nil
}

// dirty reports whether the runtime is not idle; meaningful only between
// top-level calls.
func (p *repairer) dirty() bool {
	return p.callStack.Len() != 0 || p.tryStack.Len() != 0 || p.iterStack.Len() != 0 ||
		p.refStack.Len() != 0 || p.toStringStack.Len() != 0
}

func clearSlice(s reflect.Value) {
	for i := 0; i < s.Len(); i++ {
		s.Index(i).SetZero() // drop references for the garbage collector
	}
	s.SetLen(0)
}

// repair restores the idle state. Promise jobs that were queued when the
// error struck are dropped, as goja itself does after an interrupt.
func (p *repairer) repair() {
	clearSlice(p.callStack)
	clearSlice(p.tryStack)
	clearSlice(p.iterStack)
	clearSlice(p.refStack)
	p.stack.SetZero()
	p.sp.SetInt(0)
	p.sb.SetInt(-1)
	p.args.SetInt(0)
	p.pc.SetInt(0)
	p.prg.SetZero()
	p.stash.Set(p.globalStash) // a top-level RunProgram relies on the global scope being current
	p.privEnv.SetZero()
	p.newTarget.SetZero()
	p.result.SetZero()
	p.curAsyncRunner.SetZero()
	clearSlice(p.toStringStack)
	p.jobQueue.SetZero()
	p.rt.ClearInterrupt()
}
