package plugin

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// A report says when the dispatch started, and each handler when it
// started after that: handlers run one after another, so each starts
// where the one before it ended, and one left out starts where the
// dispatch stopped.
func TestReportSaysWhenEachHandlerStarted(t *testing.T) {
	d, _ := newTestDispatcher(t)
	work := func(ctx context.Context, p *HookPayload) (*HookResult, error) { return nil, nil }
	for i := 0; i <= MaxHandlersPerEvent; i++ {
		mustRegister(t, d, HookSessionStart, work, WithSource(fmt.Sprintf("h%d", i)))
	}
	before := time.Now()
	rep, err := d.DispatchReport(context.Background(), &HookPayload{Event: HookSessionStart})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Start.Before(before) || rep.Start.After(time.Now()) {
		t.Errorf("the dispatch started at %v, not during the call from %v", rep.Start, before)
	}
	hs := rep.Handlers
	if len(hs) != MaxHandlersPerEvent+1 || hs[0].Start < 0 {
		t.Fatalf("handlers %+v", hs)
	}
	for i := 1; i < MaxHandlersPerEvent; i++ {
		if hs[i].Start != hs[i-1].Start+hs[i-1].Duration {
			t.Errorf("%s starts at %v, not where %s (%v + %v) ended", hs[i].Source, hs[i].Start, hs[i-1].Source, hs[i-1].Start, hs[i-1].Duration)
		}
	}
	last, out := hs[MaxHandlersPerEvent-1], hs[MaxHandlersPerEvent]
	if out.Outcome != OutcomeLeftOut || out.Start < last.Start+last.Duration {
		t.Errorf("the handler left out (%s) starts at %v, before the last one that ran ended (%v + %v)", out.Outcome, out.Start, last.Start, last.Duration)
	}
}
