package logging

import (
	"bytes"
	"testing"
	"time"
)

// FuzzLineWriter: however a process's output is split into writes, the
// lines delivered are the lines of the output, an overlong line is
// reported once with its first max bytes, and the rest of it is dropped.
func FuzzLineWriter(f *testing.F) {
	f.Add([]byte("a\nbb\n\nccc"), uint8(3), uint8(2))
	f.Add([]byte("0123456789\nx\n"), uint8(4), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, max, chunk uint8) {
		m, c := int(max%16)+1, int(chunk%7)+1
		var got, want [][]byte
		w := &Lines{Max: m,
			Line: func(l []byte) { got = append(got, append([]byte("L"), l...)) },
			Over: func(l []byte) { got = append(got, append([]byte("O"), l...)) }}
		for rest := data; len(rest) > 0; {
			n := min(c, len(rest))
			if k, err := w.Write(rest[:n]); k != n || err != nil {
				t.Fatalf("Write: %d %v", k, err)
			}
			rest = rest[n:]
		}
		w.Flush()
		lines := bytes.Split(data, []byte("\n"))
		if len(lines[len(lines)-1]) == 0 {
			lines = lines[:len(lines)-1] // no line after the last newline
		}
		for _, l := range lines {
			if len(l) > m {
				want = append(want, append([]byte("O"), l[:m]...))
			} else {
				want = append(want, append([]byte("L"), l...))
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%q (max %d, writes of %d): got %q, want %q", data, m, c, got, want)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("%q (max %d, writes of %d): got %q, want %q", data, m, c, got, want)
			}
		}
	})
}

// The budget lets a burst through, then holds lines back and counts them,
// and lets them flow again at its rate.
func TestLogBudget(t *testing.T) {
	b := ProcessBudget()
	now := time.Unix(0, 0)
	for i := range StderrBurst {
		if ok, _ := b.Allow(now); !ok {
			t.Fatalf("line %d of the burst held back", i)
		}
	}
	for range 7 {
		if ok, _ := b.Allow(now); ok {
			t.Fatal("a line past the burst was let through")
		}
	}
	if ok, dropped := b.Allow(now.Add(time.Second / StderrRate)); !ok || dropped != 7 {
		t.Fatalf("after a refill: %v, %d dropped", ok, dropped)
	}
}
