package jsrt

import (
	"context"
	"errors"
	"testing"
	"time"
)

// covers H8: a backtracking regular expression (a lookahead and a
// backreference send it to regexp2, which never looks at the interrupt
// flag) does not hold the loop for the minutes its match would take: the
// call fails as a spin, and the runtime serves the next call.
func TestBacktrackingRegexpIsStopped(t *testing.T) {
	r, _ := newRT(t, plugin+`
		function redos() { return /^(a+)+(?=x)\1$/.test("a".repeat(32) + "b"); }`, spinLimit)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var se *SpinError
	if _, err := callGlobal(r, ctx, "redos"); !errors.As(err, &se) {
		t.Fatalf("redos: %v, want a SpinError", err)
	}
	if v, err := callGlobal(r, ctx, "inc"); err != nil || v != float64(1) {
		t.Errorf("after: inc = %v, %v", v, err)
	}
}
