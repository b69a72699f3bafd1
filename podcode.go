// Package podcode builds a Podcode binary with Go lifecycle handlers
// compiled in, the way Caddy and k6 extensions are: a program imports it,
// registers its handlers with options, and calls Main, which is the
// podcode command (serve, run, plugin, tool, hook) with those handlers on
// every path that fires lifecycle events.
//
//	func main() {
//		podcode.Main(podcode.WithHook(plugin.HookPreToolUse, guard, plugin.FailClosed()))
//	}
//
// The handlers and their rules are those of package plugin.
package podcode

import (
	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/cli"
	"github.com/podcode/podcode/plugin"
)

// Option adds something to the binary.
type Option func(*builder)

type builder struct {
	hooks []func(*plugin.Dispatcher) error
}

// WithHook registers a lifecycle handler (see plugin.Dispatcher.Register),
// in the plugin layer unless opts say otherwise.
func WithHook(event plugin.HookEvent, h plugin.HookHandler, opts ...plugin.RegisterOption) Option {
	return func(b *builder) {
		b.hooks = append(b.hooks, func(d *plugin.Dispatcher) error { return d.Register(event, h, opts...) })
	}
}

// Main runs the podcode command with the process's arguments and exits.
func Main(opts ...Option) {
	cli.Main(options(opts))
}

func options(opts []Option) app.Options {
	var b builder
	for _, o := range opts {
		o(&b)
	}
	return app.Options{Hooks: func(d *plugin.Dispatcher) error {
		for _, register := range b.hooks {
			if err := register(d); err != nil {
				return err
			}
		}
		return nil
	}}
}
