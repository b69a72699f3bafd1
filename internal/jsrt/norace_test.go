//go:build !race

package jsrt

const raceEnabled = false
