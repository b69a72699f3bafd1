package jsrt

import (
	"strings"
	"testing"
	"time"

	"github.com/dop251/goja"
)

// Close runs the jobs queued before it for one job limit in all and drops
// the rest, with a warning that counts them: a thousand queued jobs that
// each spin for the whole limit do not hold it up a thousand limits.
func TestCloseDropsQueuedJobsPastOneJobLimit(t *testing.T) {
	r, logs := newRT(t, `function spin() { for (;;) {} }`, spinLimit)
	const queued = 1000
	for range queued {
		if !r.Post(func(vm *goja.Runtime) {
			spin, _ := goja.AssertFunction(vm.Get("spin"))
			spin(goja.Undefined())
		}) {
			t.Fatal("Post refused before Close")
		}
	}
	closed := make(chan struct{})
	go func() {
		r.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(time.Minute):
		t.Fatalf("Close still running with %d spinning jobs queued", queued)
	}
	if out := logs.String(); !strings.Contains(out, `msg="plugin: jobs still queued when its runtime closed were dropped" plugin=test-plugin dropped=`) {
		t.Errorf("no warning of the jobs dropped:\n%.2000s", out)
	}
	if r.Post(func(*goja.Runtime) {}) {
		t.Error("Post accepted after Close")
	}
}
