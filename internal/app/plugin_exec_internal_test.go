package app

import (
	"strings"
	"testing"
)

// Plugin ids that had to change to be a folder's name keep apart.
func TestSafeNamesAreDistinct(t *testing.T) {
	seen := map[string]string{}
	for _, id := range []string{"a/b", "a_b", "a b", "", ".", "..", "_", "opencode:cc-safety-net", "ok-id.1", "a_b-" + safeName("a/b")[4:]} {
		name := safeName(id)
		if other, ok := seen[name]; ok {
			t.Errorf("%q and %q share the folder %q", id, other, name)
		}
		seen[name] = id
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/ :") {
			t.Errorf("%q: the folder %q", id, name)
		}
	}
	if safeName("ok-id.1") != "ok-id.1" {
		t.Errorf("a safe id changed: %q", safeName("ok-id.1"))
	}
}
