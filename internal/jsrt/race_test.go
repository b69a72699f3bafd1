//go:build race

package jsrt

// raceEnabled: the race detector slows goja about tenfold, so tests that
// run JavaScript by the hundred thousand run less of it under it.
const raceEnabled = true
