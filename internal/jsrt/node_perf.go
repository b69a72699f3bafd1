package jsrt

import (
	"time"

	"github.com/dop251/goja"
)

// The Go half of node:perf_hooks: a monotonic clock in milliseconds since
// the process started (started, node_process.go), and that start as
// milliseconds since the epoch.
func init() {
	nodeHosts["perf_hooks"] = func(r *Runtime) (*goja.Object, error) {
		h := r.vm.NewObject()
		h.Set("now", func() float64 { return float64(time.Since(started).Nanoseconds()) / 1e6 })
		h.Set("timeOrigin", float64(started.UnixNano())/1e6)
		return h, nil
	}
}
