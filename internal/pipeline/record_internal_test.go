package pipeline

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/jsrt"
	"github.com/podcode/podcode/internal/logging"
)

// appendJSON appends the JSON of v as a record writes it, whole.
func appendJSON(b []byte, v any) ([]byte, error) {
	w := recorder{b: b, limit: math.MaxInt}
	err := w.value(v)
	return w.b, err
}

// A step's record of JSON-shaped data is what encoding/json writes, keys
// sorted, without its HTML escapes, undefined as null.
func TestRecordWritesWhatEncodingJSONWrites(t *testing.T) {
	v := map[string]any{"z": 1.0, "a": []any{"q\"uote\\", "tab\tnl\n\x01", "é✓", -0.5, 1e21, 3e-7, true, false, nil, int64(-3), 7},
		"m": map[string]any{}, "bad": "x\xffy", "n": json.Number("12.5"), "html": "<&>"}
	got, err := appendJSON(nil, v)
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
	if string(got) != strings.TrimSuffix(want.String(), "\n") {
		t.Errorf("recorded %s\n     want %s", got, want.String())
	}
	if got, _ := appendJSON(nil, map[string]any{"u": jsrt.Undefined{}}); string(got) != `{"u":null}` {
		t.Errorf("undefined recorded as %s", got)
	}
	if _, err := appendJSON(nil, map[string]any{"x": math.NaN()}); err == nil {
		t.Error("NaN recorded as JSON")
	}
}

// The cost of recording a tool.execute.before payload, on every run.
func BenchmarkRecord(b *testing.B) {
	r := &Runner{}
	v := map[string]any{"toolID": "bash", "args": map[string]any{"command": "ls -la"},
		"ctx": map[string]any{"sessionID": "ses_1", "messageID": "msg_1", "callID": "call_1", "agent": "build", "cwd": "/project"}}
	b.ReportAllocs()
	for b.Loop() {
		if r.record(v) == "" {
			b.Fatal("nothing recorded")
		}
	}
}

// A value far larger than a record is written only in part, and the note
// still gives the length of its whole JSON; a secret that the end of what
// was written cuts in two shows no part of itself, even when redaction
// shortened the text before it below the record's size.
func TestRecordOfALargeValue(t *testing.T) {
	secret := strings.Repeat("s3cr3t-", 30) // 210 bytes
	r := &Runner{Redact: logging.NewRedactor([]string{secret})}
	big := map[string]any{"result": map[string]any{"output": strings.Repeat("line\n", 200_000)}, "toolID": "read"}
	whole, _ := appendJSON(nil, big)
	got := r.record(big)
	if want := fmt.Sprintf("[cut: %d bytes in all]", len(whole)); len(got) > chat.MaxRunData || !strings.HasSuffix(got, want) {
		t.Errorf("the record is %d bytes, ends %q; want at most %d, ending %q", len(got), got[max(len(got)-40, 0):], chat.MaxRunData, want)
	}
	secrets := map[string]any{"output": strings.Repeat(secret, 30)} // the writer stops inside the 25th
	got = r.record(secrets)
	if strings.Contains(got, "s3cr3t-s3cr3t") || !strings.Contains(got, logging.Redacted) || !strings.Contains(got, "[cut: ") {
		t.Errorf("the record shows part of a secret: %q", got)
	}
}

// The cost of recording a tool.execute.after payload that carries a read
// of about 1 MB, as each rewriting plugin's step does.
func BenchmarkRecordLarge(b *testing.B) {
	r := &Runner{Redact: logging.NewRedactor([]string{"sk-acme-0123456789", "ghp_abcdefghijkl", "another-secret-value"})}
	v := map[string]any{"toolID": "read", "args": map[string]any{"path": "x"},
		"result": map[string]any{"output": strings.Repeat("line of a file the read tool returned\n", 25000)}}
	b.ReportAllocs()
	for b.Loop() {
		r.record(v)
	}
}
