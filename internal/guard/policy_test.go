package guard

import (
	"context"
	"testing"

	"github.com/podcode/podcode/plugin"
)

// covers L8
func TestPolicyMatching(t *testing.T) {
	p := NewPolicy(map[string]string{"bash": "deny", "b*": "ask", "ba*": "allow", "browser_*": "deny", "*": "ask", "g?ob": "allow"})
	for tool, want := range map[string]plugin.HookDecision{
		"bash":          plugin.DecisionDeny,  // an exact id beats any glob
		"batch":         plugin.DecisionAllow, // ba* is longer than b*
		"bold":          plugin.DecisionAsk,   // b*
		"browser_click": plugin.DecisionDeny,  // browser_* is the longest
		"glob":          plugin.DecisionAllow,
		"read":          plugin.DecisionAsk, // only *
	} {
		if got, _, ok := p.Match(tool); !ok || got != want {
			t.Errorf("%s: %q, want %q", tool, got, want)
		}
	}
	if p.Default() != plugin.DecisionAsk {
		t.Errorf("default %q", p.Default())
	}
	empty := NewPolicy(nil)
	if _, _, ok := empty.Match("bash"); ok || empty.Default() != plugin.DecisionAllow {
		t.Error("no rules: nothing matches and the default is allow")
	}
	res, _ := p.Voter()(context.Background(), &plugin.HookPayload{Event: plugin.HookPreToolUse, ToolName: "bash"})
	if res.Decision != plugin.DecisionDeny || res.Message == "" {
		t.Errorf("voter %+v", res)
	}
	if res, _ := empty.Voter()(context.Background(), &plugin.HookPayload{ToolName: "bash"}); res != nil {
		t.Error("no matching rule must abstain")
	}
}
