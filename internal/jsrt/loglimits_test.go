package jsrt

import (
	"context"
	"strings"
	"testing"
	"time"
)

// The errors a plugin's own code throws where no call awaits them (timer
// callbacks, unhandled rejections) reach the log as its console lines do:
// cut at ConsoleLineChars, and within the same line budget, the drops
// counted and reported.
func TestThrownErrorsShareTheConsoleBudget(t *testing.T) {
	r, logs := newRT(t, `
		function longThrows() {
			setTimeout(() => { throw new Error("t".repeat(1e6)) }, 0);
			Promise.reject(new Error("r".repeat(1e6)));
			return 1;
		}
		function floodThrows(n) {
			for (let i = 0; i < n; i++) { setTimeout(() => { throw new Error("timer " + i) }, 0); Promise.reject(new Error("rejection " + i)) }
			return 1;
		}`)
	ctx := context.Background()
	if _, err := callGlobal(r, ctx, "longThrows"); err != nil {
		t.Fatal(err)
	}
	waitLog := func(parts ...string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !containsAll(logs.String(), parts); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("no log line with %q:\n%.2000s", parts, logs.String())
			}
		}
	}
	cut := "more characters not logged)" // of the message and its stack
	waitLog(`plugin: timer callback threw`, `plugin: unhandled promise rejection`)
	out := logs.String()
	if len(out) > 8*ConsoleLineChars || strings.Count(out, cut) != 2 {
		t.Errorf("two errors of a million characters logged as %d bytes: %.300s…", len(out), out)
	}

	start := time.Now()
	if _, err := callGlobal(r, ctx, "floodThrows", 2*ConsoleBurst); err != nil {
		t.Fatal(err)
	}
	waitLog(`msg="plugin: console output dropped: more lines than the log takes from one plugin" plugin=test-plugin dropped=1 `)
	if _, err := callGlobal(r, ctx, "floodThrows", 0); err != nil { // after the timers fired
		t.Fatal(err)
	}
	refilled := int(time.Since(start).Seconds()*ConsoleLinesPerSecond) + 1
	out = logs.String()
	if lines := strings.Count(out, "callback threw") + strings.Count(out, "unhandled promise rejection"); lines > ConsoleBurst+refilled {
		t.Errorf("%d errors logged out of %d, want at most %d", lines, 4*ConsoleBurst+2, ConsoleBurst+refilled)
	}
}

func containsAll(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}
