package plugin

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

const abstain HookDecision = "" // a handler that returns (nil, nil)

var votes = []HookDecision{DecisionAllow, DecisionDeny, DecisionAsk, DecisionDefer, abstain}

// oracle states SPEC L8 as a list: the first decision of this list that
// anybody voted wins; nobody voting means defer.
func oracle(vs []HookDecision) HookDecision {
	for _, d := range []HookDecision{DecisionDeny, DecisionDefer, DecisionAsk, DecisionAllow} {
		for _, v := range vs {
			if v == d {
				return d
			}
		}
	}
	return DecisionDefer
}

func dispatchVotes(t *testing.T, vs []HookDecision) (*Report, error) {
	t.Helper()
	d, _ := newTestDispatcher(t)
	for i, v := range vs {
		mustRegister(t, d, HookPreToolUse, vote(v, fmt.Sprintf("m%d", i)), WithSource(fmt.Sprintf("h%d", i)))
	}
	return d.DispatchReport(context.Background(), &HookPayload{Event: HookPreToolUse, ToolName: "bash"})
}

func checkMerge(t *testing.T, vs []HookDecision, want HookDecision) {
	t.Helper()
	rep, err := dispatchVotes(t, vs)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Result.Decision != want {
		t.Errorf("votes %q: decision %q, want %q", vs, rep.Result.Decision, want)
	}
	var msgs []string
	n := 0
	for i, v := range vs {
		if v != abstain {
			n++
		}
		if v == want {
			msgs = append(msgs, fmt.Sprintf("m%d", i))
		}
	}
	if got := strings.Join(msgs, "; "); rep.Result.Message != got {
		t.Errorf("votes %q: message %q, want %q", vs, rep.Result.Message, got)
	}
	if rep.Votes != n {
		t.Errorf("votes %q: Votes = %d, want %d", vs, rep.Votes, n)
	}
}

// covers L8
func TestMergeTwoVotes(t *testing.T) {
	cases := []struct {
		a, b, want HookDecision
	}{
		{DecisionAllow, DecisionAllow, DecisionAllow},
		{DecisionAllow, DecisionDeny, DecisionDeny},
		{DecisionAllow, DecisionAsk, DecisionAsk},
		{DecisionAllow, DecisionDefer, DecisionDefer},
		{DecisionAllow, abstain, DecisionAllow},
		{DecisionDeny, DecisionAllow, DecisionDeny},
		{DecisionDeny, DecisionDeny, DecisionDeny},
		{DecisionDeny, DecisionAsk, DecisionDeny},
		{DecisionDeny, DecisionDefer, DecisionDeny},
		{DecisionDeny, abstain, DecisionDeny},
		{DecisionAsk, DecisionAllow, DecisionAsk},
		{DecisionAsk, DecisionDeny, DecisionDeny},
		{DecisionAsk, DecisionAsk, DecisionAsk},
		{DecisionAsk, DecisionDefer, DecisionDefer},
		{DecisionAsk, abstain, DecisionAsk},
		{DecisionDefer, DecisionAllow, DecisionDefer},
		{DecisionDefer, DecisionDeny, DecisionDeny},
		{DecisionDefer, DecisionAsk, DecisionDefer},
		{DecisionDefer, DecisionDefer, DecisionDefer},
		{DecisionDefer, abstain, DecisionDefer},
		{abstain, DecisionAllow, DecisionAllow},
		{abstain, DecisionDeny, DecisionDeny},
		{abstain, DecisionAsk, DecisionAsk},
		{abstain, DecisionDefer, DecisionDefer},
		{abstain, abstain, DecisionDefer},
	}
	if len(cases) != len(votes)*len(votes) {
		t.Fatalf("table has %d rows, want every pair (%d)", len(cases), len(votes)*len(votes))
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s+%s", name(c.a), name(c.b)), func(t *testing.T) {
			if o := oracle([]HookDecision{c.a, c.b}); o != c.want {
				t.Fatalf("table row disagrees with SPEC L8's order: %q", o)
			}
			checkMerge(t, []HookDecision{c.a, c.b}, c.want)
		})
	}
}

// covers L8
func TestMergeThreeVotes(t *testing.T) {
	for _, a := range votes {
		for _, b := range votes {
			for _, c := range votes {
				vs := []HookDecision{a, b, c}
				t.Run(name(a)+"+"+name(b)+"+"+name(c), func(t *testing.T) {
					checkMerge(t, vs, oracle(vs))
				})
			}
		}
	}
}

func name(d HookDecision) string {
	if d == abstain {
		return "abstain"
	}
	return string(d)
}

// covers L8: no handler at all is the same as every handler abstaining.
func TestMergeNoHandlers(t *testing.T) {
	d, _ := newTestDispatcher(t)
	rep, err := d.DispatchReport(context.Background(), &HookPayload{Event: HookAgentStop})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Result.Decision != DecisionDefer || rep.Votes != 0 || len(rep.Handlers) != 0 {
		t.Errorf("no handlers: %+v", rep)
	}
	res, err := d.Dispatch(context.Background(), &HookPayload{Event: HookAgentStop})
	if err != nil || res.Decision != DecisionDefer {
		t.Errorf("Dispatch with no handlers = %v, %v", res, err)
	}
}

// covers L8: explicit defer is a vote, abstaining is not; the host tells them apart.
func TestExplicitDeferIsAVote(t *testing.T) {
	rep, _ := dispatchVotes(t, []HookDecision{abstain, abstain})
	if rep.Result.Decision != DecisionDefer || rep.Votes != 0 {
		t.Errorf("all abstain: %+v", rep.Result)
	}
	rep, _ = dispatchVotes(t, []HookDecision{DecisionDefer, abstain})
	if rep.Result.Decision != DecisionDefer || rep.Votes != 1 {
		t.Errorf("one defer: decision %q votes %d", rep.Result.Decision, rep.Votes)
	}
	if rep.Handlers[0].Outcome != OutcomeVoted || rep.Handlers[1].Outcome != OutcomeAbstained {
		t.Errorf("outcomes %q, %q", rep.Handlers[0].Outcome, rep.Handlers[1].Outcome)
	}
}

// covers L8: Data maps merge in dispatch order, later keys win, abstainers included.
func TestMergeData(t *testing.T) {
	d, _ := newTestDispatcher(t)
	data := func(dec HookDecision, m map[string]any) HookHandler {
		return func(context.Context, *HookPayload) (*HookResult, error) {
			return &HookResult{Decision: dec, Data: m}, nil
		}
	}
	first := map[string]any{"a": 1, "b": 1}
	mustRegister(t, d, HookPreCompact, data(DecisionAllow, first))
	mustRegister(t, d, HookPreCompact, data(abstain, map[string]any{"b": 2, "c": 2}))
	mustRegister(t, d, HookPreCompact, data(DecisionDeny, map[string]any{"c": 3}))
	mustRegister(t, d, HookPreCompact, func(context.Context, *HookPayload) (*HookResult, error) {
		return &HookResult{Decision: DecisionDeny, Data: map[string]any{"a": "lost"}}, fmt.Errorf("boom")
	})
	res, err := d.Dispatch(context.Background(), &HookPayload{Event: HookPreCompact})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"a": 1, "b": 2, "c": 3}; !reflect.DeepEqual(res.Data, want) {
		t.Errorf("Data = %v, want %v", res.Data, want)
	}
	res.Data["a"] = "changed"
	if first["a"] != 1 {
		t.Error("the merged Data shares a handler's map")
	}
}

// covers L8: additional_context is text for the model, so the strings of
// several handlers are joined in dispatch order rather than replaced; an
// empty string or a value that is not text adds nothing.
func TestMergeAdditionalContext(t *testing.T) {
	d, _ := newTestDispatcher(t)
	ctxData := func(dec HookDecision, v any) HookHandler {
		return func(context.Context, *HookPayload) (*HookResult, error) {
			return &HookResult{Decision: dec, Data: map[string]any{DataAdditionalContext: v}}, nil
		}
	}
	mustRegister(t, d, HookUserPromptSubmit, ctxData(abstain, "the branch is main"))
	mustRegister(t, d, HookUserPromptSubmit, ctxData(DecisionAllow, ""))
	mustRegister(t, d, HookUserPromptSubmit, ctxData(abstain, 42))
	mustRegister(t, d, HookUserPromptSubmit, ctxData(DecisionDeny, "tests are red"))
	res, err := d.Dispatch(context.Background(), &HookPayload{Event: HookUserPromptSubmit})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Data[DataAdditionalContext]; got != "the branch is main\n\ntests are red" {
		t.Errorf("context = %q", got)
	}

	// Only a value that is not text: no key at all.
	d2, _ := newTestDispatcher(t)
	mustRegister(t, d2, HookUserPromptSubmit, ctxData(abstain, map[string]any{"x": 1}))
	res, _ = d2.Dispatch(context.Background(), &HookPayload{Event: HookUserPromptSubmit})
	if res.Data != nil {
		t.Errorf("Data = %v", res.Data)
	}
}
