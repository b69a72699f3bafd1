package jsrt

import (
	"os"
	"runtime"
	"time"

	"github.com/dop251/goja"

	"github.com/podcode/podcode/internal/version"
)

// The Go half of node:process (and of the global process): what the
// runtime was given (Options.Env, Options.Cwd) and what it may read of the
// server's process.

// started is when the process started, for process.uptime.
var started = time.Now()

// hrtime is the time since started as [seconds, nanoseconds], as Node's
// process.hrtime (console.time's clock too).
func hrtime() []int64 {
	d := time.Since(started)
	return []int64{int64(d / time.Second), int64(d % time.Second)}
}

// nodeArch is Node's name for GOARCH.
func nodeArch() string {
	switch runtime.GOARCH {
	case "amd64":
		return "x64"
	case "386":
		return "ia32"
	}
	return runtime.GOARCH
}

func init() {
	nodeHosts["process"] = func(r *Runtime) (*goja.Object, error) {
		h := r.vm.NewObject()
		env := r.vm.NewObject()
		for k, v := range r.opts.Env {
			env.Set(k, v)
		}
		h.Set("env", env)
		h.Set("cwd", r.opts.Cwd)
		h.Set("platform", runtime.GOOS)
		h.Set("arch", nodeArch())
		h.Set("podcode", version.App())
		h.Set("pid", os.Getpid())
		h.Set("ppid", os.Getppid())
		h.Set("uid", os.Getuid())
		h.Set("gid", os.Getgid())
		h.Set("euid", os.Geteuid())
		h.Set("egid", os.Getegid())
		h.Set("hrtime", hrtime)
		h.Set("uptime", func() float64 { return time.Since(started).Seconds() })
		h.Set("memoryUsage", func() map[string]any {
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			return map[string]any{"rss": m.Sys, "heapTotal": m.HeapSys, "heapUsed": m.HeapAlloc, "external": 0, "arrayBuffers": 0}
		})
		h.Set("log", r.hostLog)
		return h, nil
	}
}
