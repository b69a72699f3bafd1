package claudehooks

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/podcode/podcode/internal/trust"
	"github.com/podcode/podcode/plugin"
)

// RegisterRecordedGuard registers on d a handler that stands for a guard
// hook as the user trusted it (g, as the trust store recorded it: its
// Claude Code event, matcher, `if` rule and source), which the settings
// no longer declare so (the entry removed or made async, another matcher,
// disableAllHooks added), or which is gone with its file. It is in
// plugin.LayerProject and fail-closed, and its source is the recorded one
// with " (as trusted)"; nothing of the hook runs: for each
// call its recorded matcher and `if` rule match, it calls denies, and
// denies with the error's text, or abstains when denies returns nil (the
// hooks trusted again). projectDir is the project, against which an `if`
// rule's paths are read.
//
// It reports whether it registered the handler. A recorded event Podcode
// does not run, or a registration the dispatcher refuses, is an error,
// and nothing is registered. A recorded matcher or `if` rule that does
// not compile (the store edited by hand) denies every call of its event,
// and is reported as an error with the handler registered.
func RegisterRecordedGuard(d *plugin.Dispatcher, g trust.Guard, projectDir string, denies func() error) (bool, error) {
	event, ok := events[g.Event]
	if !ok {
		return false, fmt.Errorf("claudehooks: the recorded guard %s: Podcode does not run %s hooks", g.Source, g.Event)
	}
	dir, err := filepath.Abs(projectDir)
	if err != nil {
		return false, fmt.Errorf("claudehooks: the recorded guard %s: project directory: %w", g.Source, err)
	}
	h := &Hook{Event: g.Event, Matcher: g.Matcher, If: g.If}
	var bad error
	if err := h.compile(); err != nil {
		bad = fmt.Errorf("claudehooks: the recorded guard %s: %v: it denies every %s call", g.Source, err, g.Event)
		h.match, h.cond = matcher{all: true}, nil
	}
	handler := func(ctx context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
		if p.Event.IsToolEvent() {
			names := payloadNames(p)
			if !h.match.match(names...) {
				return nil, nil
			}
			// A payload that cannot be read as Claude Code's input is
			// denied: the rule cannot say it does not match.
			if h.cond != nil {
				if _, input, err := claudeInput(p, dir, nil); err == nil && !h.cond.matches(names, input, dir) {
					return nil, nil
				}
			}
		}
		if err := denies(); err != nil {
			return &plugin.HookResult{Decision: plugin.DecisionDeny, Message: err.Error()}, nil
		}
		return nil, nil
	}
	opts := []plugin.RegisterOption{plugin.WithLayer(plugin.LayerProject), plugin.WithSource(g.Source + " (as trusted)"), plugin.FailClosed()}
	if event.IsToolEvent() {
		if re := h.match.podcodeRegexp(); re != nil {
			opts = append(opts, plugin.WithMatcher(re))
		}
	}
	if err := d.Register(event, handler, opts...); err != nil {
		return false, fmt.Errorf("claudehooks: the recorded guard %s: %w", g.Source, err)
	}
	return true, bad
}
