package plugin

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// hookCtx is the context handlers of one dispatch receive. It ends at the
// dispatch deadline, when the caller's context ends, or when the dispatch
// returns, whichever is first.
//
// It exists because context.WithTimeout costs four allocations and a runtime
// timer per dispatch, about a third of a ten-handler dispatch. Here the
// dispatching goroutine already waits on the deadline and on the caller's
// context (see DispatchReport), so it is the one that cancels: hookCtx needs
// no timer and no goroutine, and allocates its Done channel only when a
// handler asks for it. It is allocated per dispatch, never pooled, so a
// handler that keeps it sees it canceled, as with any context.
type hookCtx struct {
	parent   context.Context
	deadline time.Time

	canceled atomic.Bool // fast path for Err
	mu       sync.Mutex
	done     chan struct{} // made on the first Done call
	err      error
}

func (c *hookCtx) Deadline() (time.Time, bool) { return c.deadline, true }
func (c *hookCtx) Value(key any) any           { return c.parent.Value(key) }

func (c *hookCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		c.done = make(chan struct{})
		if c.err != nil {
			close(c.done)
		}
	}
	return c.done
}

func (c *hookCtx) Err() error {
	if !c.canceled.Load() {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// cancel ends the context with err; only the first call counts.
func (c *hookCtx) cancel(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	c.err = err
	c.canceled.Store(true)
	if c.done != nil {
		close(c.done)
	}
}

var _ context.Context = (*hookCtx)(nil)
