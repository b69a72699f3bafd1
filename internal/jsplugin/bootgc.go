package jsplugin

import (
	"os"
	"runtime/debug"
	"sync"
)

// bootGCPercent is the collector's target (GOGC) while plugins load.
//
// Nearly everything a boot allocates stays live (each plugin's runtime,
// its packages' objects, the compiled bundles), so the collections that
// GOGC=100 runs while the heap grows from nothing find little garbage: on
// twenty zod plugins they were a third of the boot's CPU and kept the peak
// resident memory about 10 % lower (a warm boot of twenty zod plugins with
// GOGC=100 set, which leaves the target alone, against without: 350-403
// ms against 279-318 ms, `go test -run '^$' -bench Boot20ZodPlugins/cached
// -benchtime 10x ./internal/jsplugin/`). At 1000 a boot of that size collects
// once or not at all. The heap is still collected (at eleven times what
// the last collection found live, and whenever a plugin's job grows it
// past the plugin's budget: jsrt forces those collections itself), so a
// plugin that allocates without end while it loads is stopped as before.
const bootGCPercent = 1000

// bootGC counts the loads under way; changed says they raised the target.
var bootGC struct {
	mu      sync.Mutex
	loads   int
	changed bool // bootGCPercent is set
}

// raiseGC sets bootGCPercent for the time of a load, when the collector
// runs at Go's default (GOGC unset, 100); restore sets 100 back once the
// last load under way ends. A target the user or the program chose is left
// alone.
func raiseGC() (restore func()) {
	bootGC.mu.Lock()
	defer bootGC.mu.Unlock()
	if bootGC.loads == 0 && os.Getenv("GOGC") == "" {
		old := debug.SetGCPercent(bootGCPercent)
		if bootGC.changed = old == 100; !bootGC.changed {
			debug.SetGCPercent(old)
		}
	}
	bootGC.loads++
	return sync.OnceFunc(func() {
		bootGC.mu.Lock()
		defer bootGC.mu.Unlock()
		if bootGC.loads--; bootGC.loads == 0 && bootGC.changed {
			bootGC.changed = false
			debug.SetGCPercent(100)
		}
	})
}
