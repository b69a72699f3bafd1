package jsrt

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/dop251/goja"
)

// exportBoth exports the value of the JavaScript expression src through
// the fast path (goja's fields) and the generic one.
func exportBoth(t testing.TB, vm *goja.Runtime, src string) (fast, generic any, fastErr, genericErr error, ok bool) {
	v, err := vm.RunString("(" + src + "\n)")
	if err != nil {
		t.Log(err)
		return nil, nil, nil, nil, false
	}
	fast, fastErr = Export(vm, v)
	genericOnly.Store(true)
	defer genericOnly.Store(false)
	generic, genericErr = Export(vm, v)
	return fast, generic, fastErr, genericErr, true
}

var exportShapes = []string{
	`{toolID: "bash", args: {command: "ls -la", timeout: 5000}, ctx: {sessionID: "s1"}}`,
	`{u: undefined, n: null, f: 1.5, i: 3, neg: -0, nan: NaN, inf: -Infinity, s: "x", t: true}`,
	`{arr: [1, undefined, null, "s", {k: [true]}], empty: [], nested: {a: {b: {c: {}}}}}`,
	`{"2": "two", "1": "one", b: 1, a: 2, "ключ": "значение", "😀": "\u00e9\ud83d\ude00"}`,
	`[1, , 3]`,
	`(() => { const a = [1, 2]; a[10] = 3; return a; })()`,
	`(() => { const a = []; a[1e4] = 1; return {a}; })()`,
	`{get g() { return {x: 1}; }, plain: 2}`,
	`Object.defineProperty({a: 1}, "hidden", {value: 2, enumerable: false})`,
	`Object.freeze({a: 1, b: {c: 2}})`,
	`(() => { class P { constructor() { this.x = 1; } get y() { return 2; } } return new P(); })()`,
	`Object.assign(Object.create(null), {a: 1})`,
	`{[Symbol("s")]: 1, a: 2}`,
	`(() => { const o = {a: 1, b: 2, c: 3}; delete o.b; o.d = 4; return o; })()`,
	`{d: new Date(0), m: new Map([[1, 2]]), re: /x/g, e: new Error("boom")}`,
	`(() => { const a = [1, 2, 3]; Object.defineProperty(a, 1, {get() { return 9; }}); return a; })()`,
	`{list: Array.from({length: 100}, (_, i) => ({i, s: "v" + i}))}`,
	`{f: () => 1}`,
	`[() => 1]`,
	`(() => { const o = {}; o.self = o; return o; })()`,
	`(() => { let v = 1; for (let i = 0; i < 40; i++) v = [v, v]; return v; })()`,
	`(() => { let v = {}; for (let i = 0; i < 70; i++) v = {a: v}; return v; })()`,
	`{big: "x".repeat(1000), arr: new Array(5).fill("y"), grown: (() => { const a = []; a.push(1, 2); a.length = 5; return a; })()}`,
}

// The fast path reads goja's fields for plain objects and dense arrays; a
// goja upgrade that changes them must be noticed, and the result must be
// the generic path's, shape for shape (the contract of values crossing a
// plugin boundary, SPEC H3–H5).
func TestExportFastPath(t *testing.T) {
	if !gojaFields().ok {
		t.Fatal("goja's object layout was not recognised: Export takes the slow path (update layout.go for this goja version)")
	}
	r, _ := newRT(t, "")
	// What the fast path takes, and what it leaves to the generic one.
	for src, want := range map[string]bool{`({a: 1, b: {}})`: true, `([1, "x", {}])`: true, `({get a() { return 1 }})`: false,
		`([1, , 3])`: false, `Object.freeze({a: 1})`: false, `new Date(0)`: false, `(() => 1)`: false, `new Map()`: false} {
		err := r.Do(context.Background(), func(vm *goja.Runtime) error {
			v, err := vm.RunString(src)
			if err != nil {
				return err
			}
			_, _, isObj := gojaFields().plainObject(v.(*goja.Object))
			_, isArr := gojaFields().denseArray(v.(*goja.Object))
			if isObj == isArr && want || (isObj || isArr) != want {
				t.Errorf("%s: read from goja's fields as an object %v, as an array %v; want %v", src, isObj, isArr, want)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, src := range exportShapes {
		err := r.Do(context.Background(), func(vm *goja.Runtime) error {
			fast, generic, fastErr, genericErr, ok := exportBoth(t, vm, src)
			if !ok { // on the loop's goroutine: no t.Fatal here
				return fmt.Errorf("%s does not compile", src)
			}
			if (fastErr == nil) != (genericErr == nil) {
				t.Errorf("%s: fast path error %v, generic %v", src, fastErr, genericErr)
			} else if !reflect.DeepEqual(fast, generic) {
				t.Errorf("%s:\nfast    %#v\ngeneric %#v", src, fast, generic)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// Plugins return arbitrary values: both paths agree on every one, and
// neither panics or hangs.
func FuzzExport(f *testing.F) {
	for _, src := range exportShapes {
		f.Add(src)
	}
	r, _ := newRT(f, "")
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 4096 {
			return
		}
		err := r.Do(context.Background(), func(vm *goja.Runtime) error {
			fast, generic, fastErr, genericErr, ok := exportBoth(t, vm, src)
			if !ok {
				return nil
			}
			if (fastErr == nil) != (genericErr == nil) {
				t.Errorf("%s: fast path error %v, generic %v", src, fastErr, genericErr)
			} else if fastErr == nil && !reflect.DeepEqual(fast, generic) {
				t.Errorf("%s:\nfast    %#v\ngeneric %#v", src, fast, generic)
			}
			return nil
		})
		if err != nil {
			t.Skip(err) // a spin stopped by the watchdog
		}
	})
}
