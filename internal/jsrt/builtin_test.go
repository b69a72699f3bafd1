package jsrt

import (
	"context"
	"testing"

	"github.com/dop251/goja"
)

// Every module BuiltinModules lists, which bundling lets plugins import,
// evaluates in a fresh runtime, with and without the node: prefix; the
// internal ones are not reachable from a plugin.
func TestBuiltinModulesLoad(t *testing.T) {
	for _, name := range BuiltinModules {
		t.Run(name, func(t *testing.T) {
			r, _ := newRT(t, "")
			specs := []string{name, "node:" + name}
			if name == "bun" {
				specs = specs[:1] // Bun's, never node:bun
			}
			for _, spec := range specs {
				err := r.Do(context.Background(), func(*goja.Runtime) error {
					v, ok, err := r.Builtin(spec)
					if err != nil {
						return err
					}
					if !ok || v == nil || goja.IsUndefined(v) {
						t.Errorf("Builtin(%q) = %v, %v", spec, v, ok)
					}
					return nil
				})
				if err != nil {
					t.Fatalf("Builtin(%q): %v", spec, err)
				}
			}
		})
	}
	r, _ := newRT(t, "")
	r.Do(context.Background(), func(*goja.Runtime) error {
		for _, spec := range []string{"internal/errors", "node:internal/errors", "net", "node:worker_threads", "node:bun", "bun:ffi"} {
			if _, ok, err := r.Builtin(spec); ok || err != nil {
				t.Errorf("Builtin(%q): ok %v, err %v; want neither", spec, ok, err)
			}
		}
		return nil
	})
}
