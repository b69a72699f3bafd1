package webhook

import (
	"container/heap"
	"sync"
	"time"
)

// maxSeen caps the signatures one webhook remembers (about 100 bytes each):
// beyond it, deliveries are refused (429) until entries expire. Only
// requests with a valid signature add entries, so reaching it takes a holder
// of the secret sending more than ~200 requests a second.
const maxSeen = 1 << 17

// claim is the answer of replayCache.claim.
type claim int

const (
	claimed  claim = iota // first time: recorded
	replayed              // already recorded
	full                  // maxSeen reached: not recorded
)

// replayCache remembers the signatures one webhook accepted until their
// timestamps go stale (see the package doc).
type replayCache struct {
	mu    sync.Mutex
	seen  map[string]int64 // signature → unix second after which its timestamp is stale
	order expiries         // the same entries, soonest expiry first
}

// claim records sig, whose timestamp is ts, unless it is already recorded or
// the cache is full. It prunes expired entries first.
func (c *replayCache) claim(sig []byte, ts int64, now time.Time) claim {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.prune(now.Unix())
	if _, ok := c.seen[string(sig)]; ok {
		return replayed
	}
	if len(c.order) >= maxSeen { // order holds every entry of seen, and released ones until they expire
		return full
	}
	if c.seen == nil {
		c.seen = make(map[string]int64)
	}
	exp := expiresAt(ts)
	c.seen[string(sig)] = exp
	heap.Push(&c.order, expiry{exp, string(sig)})
	return claimed
}

// expiresAt is when a signature whose timestamp is ts goes stale: after
// it, the timestamp check refuses the delivery anyway.
func expiresAt(ts int64) int64 { return ts + int64(Tolerance/time.Second) }

// load records signatures remembered from before (signature → expiry).
func (c *replayCache) load(sigs map[string]int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.seen == nil {
		c.seen = make(map[string]int64, len(sigs))
	}
	for sig, exp := range sigs {
		c.seen[sig] = exp
		heap.Push(&c.order, expiry{exp, sig})
	}
}

// release forgets sig, so that the same request may be sent again. Its heap
// entry stays until it expires; prune then finds the key gone or recorded
// again with the same expiry (a signature binds its timestamp), and either
// way deleting it then is right.
func (c *replayCache) release(sig []byte) {
	c.mu.Lock()
	delete(c.seen, string(sig))
	c.mu.Unlock()
}

// prune drops the entries whose timestamps are stale at now: the timestamp
// check refuses them before the replay check is reached.
func (c *replayCache) prune(now int64) {
	for len(c.order) > 0 && c.order[0].exp < now {
		e := heap.Pop(&c.order).(expiry)
		if exp, ok := c.seen[e.key]; ok && exp <= e.exp {
			delete(c.seen, e.key)
		}
	}
}

// len is the number of signatures remembered, for tests.
func (c *replayCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.seen)
}

type expiry struct {
	exp int64
	key string
}

// expiries is a min-heap of expiry by exp (container/heap).
type expiries []expiry

func (h expiries) Len() int           { return len(h) }
func (h expiries) Less(i, j int) bool { return h[i].exp < h[j].exp }
func (h expiries) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *expiries) Push(x any)        { *h = append(*h, x.(expiry)) }
func (h *expiries) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = expiry{}
	*h = old[:len(old)-1]
	return e
}
