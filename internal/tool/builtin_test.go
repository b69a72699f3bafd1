package tool

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The cap on what edit loads bounds what it builds too: a replace_all
// whose result would pass it is refused before the text is built, saying
// the size it would have and the cap, and the file is left as it was. (A
// 16 MiB file of one byte replaced by a 1000-byte string asked for 16 GB
// at once, which the runtime dies of.) A result at the cap is written.
func TestEditRefusesAResultPastTheCap(t *testing.T) {
	ws, defs := newWorkspace(t)
	path := filepath.Join(ws.Root, "a.txt")
	data := bytes.Repeat([]byte("a"), 1<<20)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	edit := func(repl string) (Result, error) {
		args, _ := json.Marshal(map[string]any{"path": "a.txt", "old_string": "a", "new_string": repl, "replace_all": true})
		return run(t, defs["edit"], string(args))
	}
	over := strings.Repeat("b", maxLoadBytes/len(data)+1)
	_, err := edit(over)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprint(len(data)*len(over))) ||
		!strings.Contains(err.Error(), fmt.Sprint(maxLoadBytes)) || !strings.Contains(err.Error(), "a.txt") {
		t.Fatalf("a replace_all past the cap: %v", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
		t.Fatalf("the file changed: %d bytes", len(got))
	}
	at := strings.Repeat("b", maxLoadBytes/len(data))
	if res, err := edit(at); err != nil || res.Metadata["replacements"] != len(data) {
		t.Fatalf("a replace_all up to the cap: %v %v", res.Metadata, err)
	}
	if st, _ := os.Stat(path); st.Size() != maxLoadBytes {
		t.Errorf("the file is %d bytes, want %d", st.Size(), maxLoadBytes)
	}
}

// replacedSize reports a result that does not fit in an int instead of
// wrapping around to a small one.
func TestReplacedSizeDoesNotOverflow(t *testing.T) {
	for _, c := range []struct {
		size, n, oldLen, newLen, want int
		ok                            bool
	}{
		{10, 2, 1, 3, 14, true},
		{10, 2, 3, 1, 6, true},
		{10, 0, 1, 5, 10, true},
		{maxLoadBytes, maxLoadBytes, 1, math.MaxInt / 4, 0, false},
		{2, 1, 1, math.MaxInt, 0, false},
		{1, 1, 1, math.MaxInt, math.MaxInt, true},
	} {
		if got, ok := replacedSize(c.size, c.n, c.oldLen, c.newLen); got != c.want || ok != c.ok {
			t.Errorf("replacedSize(%d, %d, %d, %d) = %d, %v; want %d, %v", c.size, c.n, c.oldLen, c.newLen, got, ok, c.want, c.ok)
		}
	}
}
