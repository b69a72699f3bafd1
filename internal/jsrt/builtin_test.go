package jsrt

import (
	"context"
	"slices"
	"testing"

	"github.com/dop251/goja"
)

// BuiltinModules, which bundling checks imports against, are the modules
// the prelude provides.
func TestBuiltinModulesAreThePreludes(t *testing.T) {
	r, _ := newRT(t, "")
	var keys []string
	r.Do(context.Background(), func(*goja.Runtime) error {
		keys = r.host.modules.Keys()
		return nil
	})
	slices.Sort(keys)
	if !slices.Equal(keys, BuiltinModules) {
		t.Errorf("the prelude provides %q, BuiltinModules says %q", keys, BuiltinModules)
	}
	for _, spec := range []string{"node:path", "path", "node:fs/promises", "path/posix"} {
		ok := false
		r.Do(context.Background(), func(*goja.Runtime) error { _, ok = r.Builtin(spec); return nil })
		if !ok {
			t.Errorf("Builtin(%q) not found", spec)
		}
	}
}
