package jsrt

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// An export makes at most MaxExportBytes of strings, counting a string
// each time it is referenced: forty references to one string of four
// million non-ASCII characters fail with an error that says so, instead of
// gigabytes of Go strings; within the bound, exports are as before.
func TestExportCountsTheBytesOfItsStrings(t *testing.T) {
	r, _ := newRT(t, `
		function many() { return new Array(40).fill("é".repeat(4e6)); }
		function manyKeys() { const o = {}; o["é".repeat(4e6)] = 1; return new Array(40).fill(o); }
		function within() { return new Array(3).fill("é".repeat(1e6)); }`,
		func(o *Options) { o.JobLimit = 2 * time.Minute }) // building the strings is one job: a loaded machine must not make it a spin
	ctx := context.Background()
	want := fmt.Sprintf("value has more than %d MiB of strings", MaxExportBytes>>20)
	for _, fn := range []string{"many", "manyKeys"} {
		if v, err := callGlobal(r, ctx, fn); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %T %v, want an error with %q", fn, v, err, want)
		}
	}
	v, err := callGlobal(r, ctx, "within")
	if err != nil {
		t.Fatal(err)
	}
	if a, ok := v.([]any); !ok || len(a) != 3 || a[2] != strings.Repeat("é", 1e6) {
		t.Errorf("within the bound: %T of %d", v, len(fmt.Sprint(v)))
	}
}
