package jsplugin

import (
	"sync"

	"github.com/dop251/goja"
)

// BlockLoop holds the plugin's loop with a job that waits, in Go, until
// release is called: the loop of a plugin whose listener or hook takes
// long, without a clock.
func (p *Plugin) BlockLoop() (release func()) {
	started, done := make(chan struct{}), make(chan struct{})
	if !p.rt.Post(func(*goja.Runtime) { close(started); <-done }) {
		panic("the plugin's runtime is closed")
	}
	<-started
	return sync.OnceFunc(func() { close(done) })
}
