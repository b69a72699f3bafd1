package manifest

import (
	"context"
	"fmt"
	"regexp"

	"github.com/podcode/podcode/internal/trust"
	"github.com/podcode/podcode/plugin"
)

// RegisterRecordedGuard registers on d a handler that stands for a
// fail-closed entry as the user trusted it (g, as the trust store
// recorded it: its event, its matcher, its source), which the manifest no
// longer declares so, or which is gone with its manifest. Like the entry
// it stands for, it is in the plugin layer, fail-closed, and limited by
// the recorded matcher; its source is the recorded one with " (as
// trusted)". Nothing of the plugin runs: before each event it
// matches it calls denies, and denies with the error's text, or abstains
// when denies returns nil (the item trusted again).
//
// It reports whether it registered the handler. A recorded event Podcode
// does not have, or one the dispatcher refuses, is an error, and nothing
// is registered. A recorded matcher that does not compile (the store
// edited by hand) denies every event of its kind, and is reported as an
// error with the handler registered.
func RegisterRecordedGuard(d *plugin.Dispatcher, g trust.Guard, denies func() error) (bool, error) {
	if !plugin.IsValidHookEvent(g.Event) {
		_, err := plugin.ParseHookEvent(g.Event)
		return false, fmt.Errorf("manifest: the recorded guard %s: %w", g.Source, err)
	}
	ev := plugin.HookEvent(g.Event)
	h := func(ctx context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
		if err := denies(); err != nil {
			return &plugin.HookResult{Decision: plugin.DecisionDeny, Message: err.Error()}, nil
		}
		return nil, nil
	}
	opts := []plugin.RegisterOption{plugin.WithLayer(plugin.LayerPlugin), plugin.WithSource(g.Source + " (as trusted)"), plugin.FailClosed()}
	var bad error
	if g.Matcher != "" && ev.IsToolEvent() {
		re, err := regexp.Compile(`^(?:` + g.Matcher + `)$`)
		if err != nil {
			bad = fmt.Errorf("manifest: the recorded guard %s: matcher %q does not compile (%v): it denies every %s", g.Source, g.Matcher, err, ev)
		} else {
			opts = append(opts, plugin.WithMatcher(re))
		}
	}
	if err := d.Register(ev, h, opts...); err != nil {
		return false, fmt.Errorf("manifest: the recorded guard %s: %w", g.Source, err)
	}
	return true, bad
}
