package guard

import (
	"context"
	"strings"
	"testing"

	"github.com/podcode/podcode/plugin"
)

// covers L8
func TestPolicyMatching(t *testing.T) {
	p := NewPolicy(map[string]string{"bash": "deny", "b*": "ask", "ba*": "allow", "browser_*": "deny", "*": "ask", "g?ob": "allow"}, nil)
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
	empty := NewPolicy(nil, nil)
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

// A project's rules tighten the user's decision for each tool, whatever
// the shape of either file's rules, and never loosen it: the stricter of
// the user's decision and the project's matching rule wins.
//
// covers L8
func TestProjectRulesOnlyTighten(t *testing.T) {
	const allow, ask, deny = plugin.DecisionAllow, plugin.DecisionAsk, plugin.DecisionDeny
	for _, c := range []struct {
		name          string
		user, project map[string]string
		tool          string
		want          plugin.HookDecision // "" abstains
		def           plugin.HookDecision
	}{
		{"the project's exact allow against the user's glob ask", map[string]string{"*": "ask"}, map[string]string{"bash": "allow"}, "bash", ask, ask},
		{"the project's glob allow against the user's glob ask", map[string]string{"b*": "ask"}, map[string]string{"ba*": "allow"}, "bash", ask, allow},
		{"the project's exact allow against the user's exact deny", map[string]string{"bash": "deny"}, map[string]string{"bash": "allow"}, "bash", deny, allow},
		{"the project's glob deny against the user's exact allow", map[string]string{"bash": "allow"}, map[string]string{"*": "deny"}, "bash", deny, deny},
		{"the project's exact ask against the user's glob allow", map[string]string{"*": "allow"}, map[string]string{"bash": "ask"}, "bash", ask, allow},
		{"the project's glob ask where the user has no rule", nil, map[string]string{"web*": "ask"}, "webfetch", ask, allow},
		{"the project's allow where the user has no rule", nil, map[string]string{"bash": "allow"}, "bash", allow, allow},
		{"the project's \"*\" allow does not lift the user's \"*\" ask", map[string]string{"*": "ask"}, map[string]string{"*": "allow"}, "read", ask, ask},
		{"the project's \"*\" deny becomes the default", map[string]string{"*": "ask"}, map[string]string{"*": "deny", "read": "allow"}, "grep", deny, deny},
		{"no rule anywhere abstains", map[string]string{"bash": "ask"}, map[string]string{"edit": "deny"}, "read", "", allow},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := NewPolicy(c.user, c.project)
			got, by, ok := p.Match(c.tool)
			if c.want == "" {
				if ok {
					t.Errorf("matched %q by %s, want an abstention", got, by)
				}
			} else if !ok || got != c.want {
				t.Errorf("%s: %q by %s, want %q", c.tool, got, by, c.want)
			}
			if d := p.Default(); d != c.def {
				t.Errorf("default %q, want %q", d, c.def)
			}
			// Never looser than the user's own decision.
			user := NewPolicy(c.user, nil)
			ud, _, uok := user.Match(c.tool)
			if !uok {
				ud = user.Default()
			}
			d := got
			if !ok {
				d = p.Default()
			}
			if strictness[d] < strictness[ud] {
				t.Errorf("looser than the user's %q: %q", ud, d)
			}
		})
	}
	p := NewPolicy(map[string]string{"*": "ask", "read": "allow"}, map[string]string{"bash": "allow", "read": "allow", "edit": "deny"})
	if l := p.Loosening(); len(l) != 1 || l["bash"] != plugin.DecisionAsk {
		t.Errorf("loosening %v", l)
	}
	res, _ := p.Voter()(context.Background(), &plugin.HookPayload{ToolName: "edit"})
	if res == nil || res.Decision != plugin.DecisionDeny || !strings.Contains(res.Message, `the project's permission rule "edit" says deny`) {
		t.Errorf("voter %+v", res)
	}
}
