package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// covers L1
func TestHookEventValues(t *testing.T) {
	want := map[HookEvent]string{
		HookPreToolUse:       "PreToolUse",
		HookPostToolUse:      "PostToolUse",
		HookPostToolUseError: "PostToolUseFailure",
		HookUserPromptSubmit: "UserPromptSubmit",
		HookAgentStop:        "AgentStop",
		HookSessionStart:     "SessionStart",
		HookSessionEnd:       "SessionEnd",
		HookSubAgentStart:    "SubAgentStart",
		HookSubAgentStop:     "SubAgentStop",
		HookPreCompact:       "PreCompact",
		HookPostCompact:      "PostCompact",
		HookCronFired:        "CronFired",
		HookWebhookReceived:  "WebhookReceived",
	}
	if got := HookEvents(); len(got) != len(want) {
		t.Fatalf("HookEvents() has %d events, want %d", len(got), len(want))
	}
	for ev, s := range want {
		if string(ev) != s {
			t.Errorf("constant %q, want %q", ev, s)
		}
	}
	seen := map[HookEvent]bool{}
	for _, ev := range HookEvents() {
		if _, ok := want[ev]; !ok || seen[ev] {
			t.Errorf("HookEvents() lists %q unexpectedly or twice", ev)
		}
		seen[ev] = true
	}
}

// covers L2
func TestIsValidHookEvent(t *testing.T) {
	for _, ev := range HookEvents() {
		if !IsValidHookEvent(string(ev)) {
			t.Errorf("IsValidHookEvent(%q) = false", ev)
		}
	}
	for _, name := range []string{"", "pretooluse", "PreToolUse ", "PostToolUseError", "Stop", "onHook:PreToolUse", "tool.execute.before"} {
		if IsValidHookEvent(name) {
			t.Errorf("IsValidHookEvent(%q) = true", name)
		}
	}
	_, err := ParseHookEvent("PreTool")
	if err == nil || !strings.Contains(err.Error(), `"PreTool"`) || !strings.Contains(err.Error(), "PostToolUseFailure") {
		t.Errorf("ParseHookEvent error %v should quote the name and list the valid ones", err)
	}
	var ev HookEvent
	if err := json.Unmarshal([]byte(`"CronFired"`), &ev); err != nil || ev != HookCronFired {
		t.Errorf("unmarshal CronFired: %v, %v", ev, err)
	}
	if err := json.Unmarshal([]byte(`"Cron"`), &ev); err == nil {
		t.Error("unmarshal of an unknown event succeeded")
	}
}

// covers L3
func TestHookPayloadJSON(t *testing.T) {
	typ := reflect.TypeFor[HookPayload]()
	wantTags := []string{
		"event", "tool_name,omitempty", "tool_input,omitempty", "tool_output,omitempty",
		"tool_elapsed_ms,omitempty", "session_id,omitempty", "channel,omitempty", "chat_id,omitempty",
		"user_id,omitempty", "tenant_id,omitempty", "extra,omitempty",
	}
	if typ.NumField() != len(wantTags) {
		t.Fatalf("HookPayload has %d fields, want %d", typ.NumField(), len(wantTags))
	}
	for i, tag := range wantTags {
		if got := typ.Field(i).Tag.Get("json"); got != tag {
			t.Errorf("field %s: json tag %q, want %q", typ.Field(i).Name, got, tag)
		}
	}

	min, _ := json.Marshal(HookPayload{Event: HookSessionStart})
	if string(min) != `{"event":"SessionStart"}` {
		t.Errorf("minimal payload = %s", min)
	}
	full := HookPayload{
		Event: HookPostToolUse, ToolName: "bash", ToolInput: `{"command":"ls"}`, ToolOutput: "a\nb\n",
		ToolElapsedMs: 12, SessionID: "ses_1", Channel: "api", ChatID: "chat_1", UserID: "u_1", TenantID: 7,
		Extra: map[string]any{"model": "offline/echo", "max_context": 128000},
	}
	got, err := json.MarshalIndent(full, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "payload_full.json")
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(got), bytes.TrimSpace(want)) {
		t.Errorf("payload JSON differs from %s:\n%s", golden, got)
	}
	var back HookPayload
	if err := json.Unmarshal(want, &back); err != nil {
		t.Fatal(err)
	}
	back.Extra["max_context"] = int(back.Extra["max_context"].(float64))
	if !reflect.DeepEqual(back, full) {
		t.Errorf("round trip: got %+v, want %+v", back, full)
	}
}

// covers L7
func TestHookDecisionAndResult(t *testing.T) {
	for d, s := range map[HookDecision]string{DecisionAllow: "allow", DecisionDeny: "deny", DecisionAsk: "ask", DecisionDefer: "defer"} {
		if string(d) != s || !d.Valid() {
			t.Errorf("decision %q (valid %v), want %q", d, d.Valid(), s)
		}
	}
	if HookDecision("block").Valid() || HookDecision("").Valid() {
		t.Error("unknown or empty decisions must not be valid")
	}
	var r HookResult
	if err := json.Unmarshal([]byte(`{"decision":"deny","message":"no","data":{"k":1}}`), &r); err != nil {
		t.Fatal(err)
	}
	if r.Decision != DecisionDeny || r.Message != "no" || r.Data["k"] != float64(1) {
		t.Errorf("decoded %+v", r)
	}
	err := json.Unmarshal([]byte(`{"decision":"block"}`), &r)
	if err == nil || !strings.Contains(err.Error(), `"block"`) {
		t.Errorf("unknown decision: err = %v, want one quoting it", err)
	}
	b, _ := json.Marshal(HookResult{Decision: DecisionAllow})
	if string(b) != `{"decision":"allow"}` {
		t.Errorf("allow result = %s", b)
	}
	var h HookHandler = AllowHook()
	if res, err := h(context.Background(), &HookPayload{Event: HookPreToolUse}); err != nil || res.Decision != DecisionAllow {
		t.Errorf("HookHandler call = %v, %v", res, err)
	}
}

// covers L4
func TestTruncateToolOutput(t *testing.T) {
	short := strings.Repeat("a", MaxToolOutputBytes)
	if got, cut := truncateToolOutput(short); got != short || cut {
		t.Errorf("an output of exactly %d bytes was changed", MaxToolOutputBytes)
	}
	long := strings.Repeat("b", MaxToolOutputBytes+1)
	if got, cut := truncateToolOutput(long); len(got) != MaxToolOutputBytes || !cut {
		t.Errorf("len = %d, cut = %v", len(got), cut)
	}
	// A 3-byte rune straddling the limit is dropped whole.
	straddle := strings.Repeat("c", MaxToolOutputBytes-1) + "€" + "tail"
	got, cut := truncateToolOutput(straddle)
	if !cut || len(got) != MaxToolOutputBytes-1 || !utf8.ValidString(got) {
		t.Errorf("straddling rune: len %d, valid %v", len(got), utf8.ValidString(got))
	}
	again, cutAgain := truncateToolOutput(got)
	if again != got || cutAgain {
		t.Error("truncation is not idempotent")
	}
}

// covers L4 L6
func TestDispatchPayloadRules(t *testing.T) {
	big := strings.Repeat("é", MaxToolOutputBytes) // 2 bytes each: twice the limit
	full := HookPayload{
		ToolName: "bash", ToolInput: `{"command":"ls"}`, ToolOutput: big, ToolElapsedMs: 5,
		SessionID: "s", Channel: "cli", Extra: map[string]any{"model": "m"},
	}
	for _, ev := range HookEvents() {
		t.Run(string(ev), func(t *testing.T) {
			d, _ := newTestDispatcher(t)
			var seen HookPayload
			mustRegister(t, d, ev, func(_ context.Context, p *HookPayload) (*HookResult, error) {
				seen = *p
				return nil, nil
			})
			p := full
			p.Event = ev
			if _, err := d.Dispatch(context.Background(), &p); err != nil {
				t.Fatal(err)
			}
			if seen.SessionID != "s" || seen.Channel != "cli" || seen.Extra["model"] != "m" {
				t.Errorf("common fields lost: %+v", seen)
			}
			tool := ev == HookPreToolUse || ev == HookPostToolUse || ev == HookPostToolUseError
			if got := seen.ToolName != "" && seen.ToolInput != "" && seen.ToolElapsedMs != 0; got != tool {
				t.Errorf("tool fields present = %v, want %v", got, tool)
			}
			if ev != HookPostToolUse {
				if seen.ToolOutput != "" {
					t.Error("ToolOutput reached an event other than PostToolUse")
				}
				if _, ok := seen.Extra[ExtraToolOutputTruncated]; ok {
					t.Error("truncation recorded for an event without ToolOutput")
				}
				return
			}
			if len(seen.ToolOutput) > MaxToolOutputBytes || !utf8.ValidString(seen.ToolOutput) || !strings.HasPrefix(big, seen.ToolOutput) {
				t.Errorf("ToolOutput: %d bytes, valid UTF-8 %v", len(seen.ToolOutput), utf8.ValidString(seen.ToolOutput))
			}
			if seen.Extra[ExtraToolOutputTruncated] != true || seen.Extra[ExtraToolOutputBytes] != len(big) {
				t.Errorf("truncation not visible in Extra: %v", seen.Extra)
			}
		})
	}
	if len(full.ToolOutput) != len(big) || len(full.Extra) != 1 {
		t.Error("the caller's payload was modified")
	}
}

// covers L5
func TestDispatchCarriesSessionContext(t *testing.T) {
	d, _ := newTestDispatcher(t)
	var got map[string]any
	mustRegister(t, d, HookUserPromptSubmit, func(_ context.Context, p *HookPayload) (*HookResult, error) {
		got = map[string]any{}
		for k, v := range p.Extra {
			got[k] = v
		}
		return nil, nil
	})
	usage := map[string]any{"input": 10, "output": 3}
	_, err := d.Dispatch(context.Background(), &HookPayload{Event: HookUserPromptSubmit,
		Extra: map[string]any{ExtraModel: "offline/echo", ExtraMaxContext: 128000, ExtraUsage: usage}})
	if err != nil {
		t.Fatal(err)
	}
	if got[ExtraModel] != "offline/echo" || got[ExtraMaxContext] != 128000 || !reflect.DeepEqual(got[ExtraUsage], usage) {
		t.Errorf("handler saw Extra %v", got)
	}
}
