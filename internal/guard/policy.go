// Package guard holds the host's policies around every tool call: the
// PreToolUse and PostToolUse lifecycle events, the config's permission
// policy, the question to the user when a decision is "ask", and the loop
// guard. It plugs into the pipeline as its ToolGate, so every path that
// runs a tool (a turn, a sub-agent, `podcode tool run`) goes through it.
package guard

import (
	"context"
	"fmt"
	"path"
	"sort"

	"github.com/podcode/podcode/plugin"
)

// Policy is the config's permission rules: a tool id or a glob over tool
// ids, to allow, ask or deny.
//
// Matching: an exact id beats any glob; among globs, the longer pattern
// wins (it is the more specific); equal lengths are ordered by the pattern
// text, so the choice never depends on map order.
type Policy struct {
	exact map[string]plugin.HookDecision
	globs []rule
}

type rule struct {
	pattern  string
	decision plugin.HookDecision
}

// NewPolicy builds the policy from the config's permission map (validated
// by the config package).
func NewPolicy(rules map[string]string) *Policy {
	p := &Policy{exact: map[string]plugin.HookDecision{}}
	for pattern, d := range rules {
		if isGlob(pattern) {
			p.globs = append(p.globs, rule{pattern, plugin.HookDecision(d)})
		} else {
			p.exact[pattern] = plugin.HookDecision(d)
		}
	}
	sort.Slice(p.globs, func(i, j int) bool {
		a, b := p.globs[i].pattern, p.globs[j].pattern
		if len(a) != len(b) {
			return len(a) > len(b)
		}
		return a < b
	})
	return p
}

func isGlob(s string) bool {
	for _, c := range s {
		if c == '*' || c == '?' || c == '[' {
			return true
		}
	}
	return false
}

// Match returns the decision for tool and the rule that gave it.
func (p *Policy) Match(tool string) (plugin.HookDecision, string, bool) {
	if d, ok := p.exact[tool]; ok {
		return d, tool, true
	}
	for _, r := range p.globs {
		if ok, _ := path.Match(r.pattern, tool); ok {
			return r.decision, r.pattern, true
		}
	}
	return "", "", false
}

// Default is the decision when no voter decided (every one abstained or
// deferred): the "*" rule if the config sets one, else allow.
func (p *Policy) Default() plugin.HookDecision {
	for _, r := range p.globs { // "*" is a glob, never in exact
		if r.pattern == "*" {
			return r.decision
		}
	}
	return plugin.DecisionAllow
}

// Voter is the policy as a PreToolUse handler: it votes what the matching
// rule says, and abstains when no rule matches. Registered in its own layer,
// it cannot be outvoted by a hook's allow, nor can it outvote a hook's deny.
func (p *Policy) Voter() plugin.HookHandler {
	return func(_ context.Context, pl *plugin.HookPayload) (*plugin.HookResult, error) {
		d, r, ok := p.Match(pl.ToolName)
		if !ok {
			return nil, nil
		}
		return &plugin.HookResult{Decision: d, Message: fmt.Sprintf("the config's permission rule %q says %s", r, d)}, nil
	}
}
