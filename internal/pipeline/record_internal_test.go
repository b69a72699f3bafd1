package pipeline

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/jsrt"
)

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
