package plugin

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// Hook payloads and results arrive as JSON from other processes (manifest
// command handlers, the HTTP API). Decoding must fail cleanly or yield a
// value that survives a round trip.
func FuzzDecodeHookPayload(f *testing.F) {
	f.Add([]byte(`{"event":"PreToolUse","tool_name":"bash","tool_input":"{\"command\":\"ls\"}","session_id":"s","extra":{"model":"m"}}`))
	f.Add([]byte(`{"event":"PostToolUse","tool_output":"x","tool_elapsed_ms":3,"tenant_id":9}`))
	f.Add([]byte(`{"event":"Nope"}`))
	f.Add([]byte(`{"event":7}`))
	f.Add([]byte(`{"tenant_id":1e400}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var p HookPayload
		if err := json.Unmarshal(data, &p); err != nil {
			return
		}
		if p.Event != "" && !IsValidHookEvent(string(p.Event)) {
			t.Fatalf("decoded an invalid event %q", p.Event)
		}
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("re-encoding a decoded payload failed: %v", err)
		}
		var back HookPayload
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("decoding our own encoding failed: %v\n%s", err, out)
		}
		again, _ := json.Marshal(back)
		if string(again) != string(out) {
			t.Fatalf("round trip is not stable:\n%s\n%s", out, again)
		}
	})
}

func FuzzDecodeHookResult(f *testing.F) {
	f.Add([]byte(`{"decision":"deny","message":"no"}`))
	f.Add([]byte(`{"decision":"allow","data":{"a":[1,2,{"b":null}]}}`))
	f.Add([]byte(`{"decision":"block"}`))
	f.Add([]byte(`{"decision":null}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var r HookResult
		if err := json.Unmarshal(data, &r); err != nil {
			return
		}
		if r.Decision != "" && !r.Decision.Valid() {
			t.Fatalf("decoded an invalid decision %q", r.Decision)
		}
		out, err := json.Marshal(r)
		if err != nil {
			t.Fatalf("re-encoding failed: %v", err)
		}
		var back HookResult
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("decoding our own encoding failed: %v\n%s", err, out)
		}
		if back.Decision != r.Decision || back.Message != r.Message || len(back.Data) != len(r.Data) {
			t.Fatalf("round trip changed the result: %+v vs %+v", r, back)
		}
	})
}

// covers L4
func FuzzTruncateToolOutput(f *testing.F) {
	f.Add("short", 0)
	f.Add("é", MaxToolOutputBytes)
	f.Add("€", MaxToolOutputBytes-1)
	f.Add("\xff\xfe", MaxToolOutputBytes)
	f.Add("🙂", 3000)
	f.Fuzz(func(t *testing.T, unit string, repeat int) {
		if repeat < 0 || repeat > 4*MaxToolOutputBytes || len(unit)*repeat > 8*MaxToolOutputBytes {
			return
		}
		s := strings.Repeat(unit, repeat)
		got, cut := truncateToolOutput(s)
		if len(got) > MaxToolOutputBytes {
			t.Fatalf("%d bytes, over the cap", len(got))
		}
		if !strings.HasPrefix(s, got) {
			t.Fatal("not a prefix")
		}
		if cut != (len(s) > MaxToolOutputBytes) || (!cut && got != s) {
			t.Fatalf("cut = %v for %d bytes", cut, len(s))
		}
		if cut && len(got) < MaxToolOutputBytes-(utf8.UTFMax-1) {
			t.Fatalf("cut too much: %d bytes", len(got))
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatal("split a rune")
		}
		if again, cutAgain := truncateToolOutput(got); again != got || cutAgain {
			t.Fatal("not idempotent")
		}
	})
}

func TestFuzzSeedsRoundTrip(t *testing.T) {
	// The decoders' error messages say what was wrong.
	var p HookPayload
	err := json.Unmarshal([]byte(`{"event":"PreTooluse"}`), &p)
	if err == nil || !strings.Contains(err.Error(), `"PreTooluse"`) {
		t.Errorf("err = %v", err)
	}
	if !reflect.DeepEqual(p, HookPayload{}) && p.Event != "" {
		t.Errorf("a refused event was stored: %+v", p)
	}
}
