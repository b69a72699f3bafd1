package guard

import (
	"context"
	"fmt"
	"maps"
	"path"
	"slices"
	"sort"

	"github.com/podcode/podcode/plugin"
)

// Policy is the config's permission rules: a tool id or a glob over tool
// ids, to allow, ask or deny. The user's rules and the project's are kept
// apart, so that a project's file can tighten the user's decisions and
// never loosen them, whatever the shape of the rules (SPEC L8 for votes).
//
// Matching within one file's rules: an exact id beats any glob; among
// globs, the longer pattern wins (it is the more specific); equal lengths
// are ordered by the pattern text, so the choice never depends on map
// order.
//
// The decision for a tool is the stricter (deny > ask > allow) of the
// user's decision (the matching rule, else the user's "*", else allow)
// and the project's matching rule, if one matches. It is therefore never
// looser than the user's, nor than the two files' rules merged key by key:
// the project's exact "bash": "allow" does not beat the user's "*": "ask",
// and the project's "*": "deny" does deny bash even where the user's
// "bash": "allow" stands.
type Policy struct {
	user, project rules
}

type rules struct {
	exact map[string]plugin.HookDecision
	globs []rule
}

type rule struct {
	pattern  string
	decision plugin.HookDecision
}

// NewPolicy builds the policy from the user's and the project's
// permission maps (validated by the config package); either may be nil.
func NewPolicy(user, project map[string]string) *Policy {
	return &Policy{user: newRules(user), project: newRules(project)}
}

func newRules(m map[string]string) rules {
	r := rules{exact: map[string]plugin.HookDecision{}}
	for pattern, d := range m {
		if isGlob(pattern) {
			r.globs = append(r.globs, rule{pattern, plugin.HookDecision(d)})
		} else {
			r.exact[pattern] = plugin.HookDecision(d)
		}
	}
	sort.Slice(r.globs, func(i, j int) bool {
		a, b := r.globs[i].pattern, r.globs[j].pattern
		if len(a) != len(b) {
			return len(a) > len(b)
		}
		return a < b
	})
	return r
}

func isGlob(s string) bool {
	for _, c := range s {
		if c == '*' || c == '?' || c == '[' {
			return true
		}
	}
	return false
}

// match tests the tool's names (its id, then its alias: an MCP tool's
// mcp__<server>__<tool>) against the rules: an exact rule for any name
// first, then the globs in their order, each against every name.
func (r rules) match(names ...string) (plugin.HookDecision, string, bool) {
	for _, n := range names {
		if d, ok := r.exact[n]; ok {
			return d, n, true
		}
	}
	for _, g := range r.globs {
		for _, n := range names {
			if ok, _ := path.Match(g.pattern, n); ok {
				return g.decision, g.pattern, true
			}
		}
	}
	return "", "", false
}

// star is the "*" rule, the decision when no voter decided.
func (r rules) star() (plugin.HookDecision, bool) {
	for _, g := range r.globs { // "*" is a glob, never in exact
		if g.pattern == "*" {
			return g.decision, true
		}
	}
	return "", false
}

var strictness = map[plugin.HookDecision]int{plugin.DecisionAllow: 0, plugin.DecisionAsk: 1, plugin.DecisionDeny: 2}

// Match returns the decision for tool and the rule that gave it ("the
// user's permission rule \"*\""); ok is false when no rule of either file
// matches. A tool with another name (plugin.ExtraToolAlias: an MCP tool's
// mcp__<server>__<tool>) is matched by a rule of either name, so that
// "mcp_*" or "mcp__memory__*" covers MCP tools as "memory_*" does.
func (p *Policy) Match(tool string, aliases ...string) (d plugin.HookDecision, by string, ok bool) {
	names := append([]string{tool}, aliases...)
	d, r, ok := p.user.match(names...)
	if ok {
		by = fmt.Sprintf("the user's permission rule %q", r)
	}
	if pd, pr, pok := p.project.match(names...); pok && (!ok || strictness[pd] > strictness[d]) {
		// Without a user's rule the user's decision is allow: no "*"
		// (a "*" would have matched), so any rule of the project's is at
		// least as strict.
		return pd, fmt.Sprintf("the project's permission rule %q", pr), true
	}
	return d, by, ok
}

// Default is the decision when no voter decided (every one abstained or
// deferred): the stricter of the two files' "*" rules, else allow.
func (p *Policy) Default() plugin.HookDecision {
	d, ok := p.user.star()
	if !ok {
		d = plugin.DecisionAllow
	}
	if pd, ok := p.project.star(); ok && strictness[pd] > strictness[d] {
		d = pd
	}
	return d
}

// Loosening lists the project's exact rules that would loosen the user's
// decision for their tool, and so never apply as written; each with the
// user's decision, for a warning.
func (p *Policy) Loosening() map[string]plugin.HookDecision {
	out := map[string]plugin.HookDecision{}
	for _, tool := range slices.Sorted(maps.Keys(p.project.exact)) {
		d, _, ok := p.user.match(tool)
		if !ok {
			continue // the user's decision is allow
		}
		if strictness[p.project.exact[tool]] < strictness[d] {
			out[tool] = d
		}
	}
	return out
}

// Voter is the policy as a PreToolUse handler: it votes what Match says,
// and abstains when no rule matches. Registered in its own layer, it
// cannot be outvoted by a hook's allow, nor can it outvote a hook's deny.
func (p *Policy) Voter() plugin.HookHandler {
	return func(_ context.Context, pl *plugin.HookPayload) (*plugin.HookResult, error) {
		var aliases []string
		if a, _ := pl.Extra[plugin.ExtraToolAlias].(string); a != "" {
			aliases = append(aliases, a)
		}
		d, by, ok := p.Match(pl.ToolName, aliases...)
		if !ok {
			return nil, nil
		}
		return &plugin.HookResult{Decision: d, Message: fmt.Sprintf("%s says %s", by, d)}, nil
	}
}
