package sandbox

import (
	"os/exec"
	"testing"
)

// What the sandbox adds to one command: the helper's start (this test
// binary, restricted, then exec) and the network namespace.
//
//	go test -run '^$' -bench Command -benchmem -count 6 ./internal/sandbox/
func BenchmarkCommand(b *testing.B) {
	ws, tmp := b.TempDir(), b.TempDir()
	for _, c := range []struct {
		name    string
		confine bool
		network bool
	}{{"plain", false, false}, {"confined", true, false}, {"confinedNetwork", true, true}} {
		b.Run(c.name, func(b *testing.B) {
			if c.confine && Probe().ABI == 0 {
				b.Skip("no Landlock")
			}
			for b.Loop() {
				cmd := exec.Command("bash", "-c", "true")
				cmd.Dir = ws
				if c.confine {
					if err := Wrap(cmd, Policy{Writable: []string{ws}, Tmp: tmp, Network: c.network}); err != nil {
						b.Fatal(err)
					}
				}
				if out, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
		})
	}
}
