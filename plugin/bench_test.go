package plugin

import (
	"context"
	"fmt"
	"testing"
)

// Figures for the README come from:
//
//	go test -run '^$' -bench Dispatch -benchmem ./plugin/

// allowDispatcher returns a Dispatcher with n AllowHook handlers on PreToolUse.
func allowDispatcher(b *testing.B, n int) *Dispatcher {
	d := NewDispatcher()
	for i := 0; i < n; i++ {
		if err := d.Register(HookPreToolUse, AllowHook(), WithSource(fmt.Sprintf("allow-%d", i))); err != nil {
			b.Fatal(err)
		}
	}
	return d
}

func benchDispatch(b *testing.B, handlers int, extra map[string]any) {
	d := allowDispatcher(b, handlers)
	p := &HookPayload{Event: HookPreToolUse, ToolName: "bash", ToolInput: `{"command":"ls"}`, SessionID: "s1", Extra: extra}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		res, err := d.Dispatch(ctx, p)
		if err != nil || res.Decision != DecisionAllow {
			b.Fatalf("got %v, %v", res, err)
		}
	}
}

func BenchmarkDispatch1Allow(b *testing.B)  { benchDispatch(b, 1, nil) }
func BenchmarkDispatch10Allow(b *testing.B) { benchDispatch(b, 10, nil) }

// With the session context of SPEC L5 in Extra, which every real dispatch carries.
func BenchmarkDispatch10AllowExtra(b *testing.B) {
	benchDispatch(b, 10, map[string]any{"model": "offline/echo", "max_context": 128000, "usage": map[string]any{"input": 10, "output": 20}})
}

// The server dispatches with DispatchReport, which adds the run summary.
func BenchmarkDispatchReport10Allow(b *testing.B) {
	d := allowDispatcher(b, 10)
	p := &HookPayload{Event: HookPreToolUse, ToolName: "bash", ToolInput: `{"command":"ls"}`}
	b.ReportAllocs()
	for b.Loop() {
		rep, err := d.DispatchReport(context.Background(), p)
		if err != nil || len(rep.Handlers) != 10 {
			b.Fatal(rep, err)
		}
	}
}

// The design this package does not use, for comparison: one goroutine and
// one timer per handler, each abandoned at its own deadline.
func BenchmarkNaiveGoroutinePerHandler10(b *testing.B) {
	h := AllowHook()
	p := &HookPayload{Event: HookPreToolUse, ToolName: "bash"}
	type answer struct {
		res *HookResult
		err error
	}
	b.ReportAllocs()
	for b.Loop() {
		ctx, cancel := context.WithTimeout(context.Background(), DefaultDispatchTimeout)
		for i := 0; i < 10; i++ {
			ch := make(chan answer, 1)
			cp := *p
			go func() { r, err := h(ctx, &cp); ch <- answer{r, err} }()
			select {
			case <-ch:
			case <-ctx.Done():
			}
		}
		cancel()
	}
}
