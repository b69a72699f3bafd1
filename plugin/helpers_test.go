package plugin

import (
	"context"
	"testing"

	"github.com/podcode/podcode/internal/logtest"
)

func newTestDispatcher(t testing.TB, opts ...DispatcherOption) (*Dispatcher, *logtest.Logs) {
	t.Helper()
	logs := &logtest.Logs{}
	return NewDispatcher(append([]DispatcherOption{WithLogger(logs.Logger())}, opts...)...), logs
}

func mustRegister(t testing.TB, d *Dispatcher, ev HookEvent, h HookHandler, opts ...RegisterOption) {
	t.Helper()
	if err := d.Register(ev, h, opts...); err != nil {
		t.Fatalf("Register(%s): %v", ev, err)
	}
}

// vote returns a handler that votes dec with msg; an empty dec abstains.
func vote(dec HookDecision, msg string) HookHandler {
	return func(context.Context, *HookPayload) (*HookResult, error) {
		if dec == "" {
			return nil, nil
		}
		return &HookResult{Decision: dec, Message: msg}, nil
	}
}
