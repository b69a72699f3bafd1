package sandbox

import (
	"strings"
	"testing"
)

// What keeps a command's signals in is said where the server logs its
// sandbox at start: Landlock from ABI 6, else a PID namespace, else
// nothing, which the log names as a way to kill the server.
func TestSupportSaysWhatKeepsSignalsIn(t *testing.T) {
	for _, c := range []struct {
		s      Support
		scoped bool
		says   string
	}{
		{Support{ABI: 6}, true, "signals kept in by Landlock"},
		{Support{ABI: 4, PIDNS: true}, true, "signals kept in by PID namespace"},
		{Support{ABI: 4, NetNS: true}, false, "signals kept in by none: a command may signal (kill) the server"},
	} {
		if got := c.s.SignalsScoped(); got != c.scoped {
			t.Errorf("%+v: SignalsScoped %v, want %v", c.s, got, c.scoped)
		}
		if got := c.s.String(); !strings.Contains(got, c.says) {
			t.Errorf("%+v: %q, want %q in it", c.s, got, c.says)
		}
	}
}
