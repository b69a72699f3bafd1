package tool

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// A running bash reports its progress as its output comes: the bytes so
// far, while the command still runs, and none of the output itself (a
// redactor has not seen it yet).
func TestBashReportsProgressWhileItRuns(t *testing.T) {
	bash, _ := bashDef(t)
	var mu sync.Mutex
	var got []Progress
	ctx := WithProgress(NewCallReports(context.Background()), func(p Progress) {
		mu.Lock()
		got = append(got, p)
		mu.Unlock()
	})
	res, err := bash.Execute(ctx, Call{}, map[string]any{"command": "echo secret-one; sleep 0.4; echo secret-two; sleep 0.4; printf done"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Output != "secret-one\nsecret-two\ndone" {
		t.Fatalf("output %q", res.Output)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) < 2 {
		t.Fatalf("progress reports %+v, want one per line at least", got)
	}
	if got[0].Progress != float64(len("secret-one\n")) || got[1].Progress != float64(len("secret-one\nsecret-two\n")) {
		t.Errorf("reports %+v", got)
	}
	for _, p := range got {
		if strings.Contains(p.Message, "secret") {
			t.Errorf("a report shows the output: %+v", p)
		}
	}
}

// Reports closer together than ProgressEvery are dropped, but the one that
// reaches its total; progress that goes back is dropped; a context with
// no listener ignores reports; two listeners both hear.
func TestProgressThrottleAndListeners(t *testing.T) {
	ReportProgress(context.Background(), Progress{Progress: 1}) // nobody listens: no panic
	var outer, inner []float64
	ctx := WithProgress(context.Background(), func(p Progress) { outer = append(outer, p.Progress) })
	ctx = WithProgress(NewCallReports(ctx), func(p Progress) { inner = append(inner, p.Progress) })
	ReportProgress(ctx, Progress{Progress: 1, Total: 10})
	ReportProgress(ctx, Progress{Progress: 2, Total: 10}) // too soon
	ReportProgress(ctx, Progress{Progress: 0, Total: 10}) // back
	ReportProgress(ctx, Progress{Progress: 10, Total: 10})
	time.Sleep(ProgressEvery)
	ReportProgress(ctx, Progress{Progress: 9, Total: 10}) // back
	want := []float64{1, 10}
	if len(inner) != 2 || inner[0] != want[0] || inner[1] != want[1] {
		t.Errorf("inner heard %v, want %v", inner, want)
	}
	if len(outer) != len(inner) {
		t.Errorf("outer heard %v, inner %v", outer, inner)
	}
}

// A call made within another call's Execute reports to its own listeners
// only: the enclosing call's client counts another progress. A message is
// cut at MaxProgressMessage bytes, on a character's boundary.
func TestNestedCallsReportApart(t *testing.T) {
	var outer, inner []Progress
	ctx := WithProgress(context.Background(), func(p Progress) { outer = append(outer, p) })
	ctx = NewCallReports(ctx) // the outer call
	ReportProgress(ctx, Progress{Progress: 1, Message: strings.Repeat("é", MaxProgressMessage)})
	nested := WithProgress(NewCallReports(ctx), func(p Progress) { inner = append(inner, p) })
	ReportProgress(nested, Progress{Progress: 5000})
	if len(outer) != 1 || len(inner) != 1 || inner[0].Progress != 5000 {
		t.Fatalf("outer heard %+v, inner %+v", outer, inner)
	}
	if m := outer[0].Message; len(m) > MaxProgressMessage+len("…") || !utf8.ValidString(m) || !strings.HasSuffix(m, "…") {
		t.Errorf("a long message came as %d bytes: %q", len(m), m)
	}
}

// A progress report reads as its message, with how far of how much when
// the total is known.
func TestProgressString(t *testing.T) {
	for p, want := range map[Progress]string{
		{Progress: 1234}:                                    "1234",
		{Progress: 2, Total: 8}:                             "2 of 8",
		{Progress: 0.5, Total: 1, Message: "half"}:          "half (0.5 of 1)",
		{Progress: 1e6, Message: "1000000 bytes of output"}: "1000000 bytes of output",
	} {
		if got := p.String(); got != want {
			t.Errorf("%+v: %q, want %q", p, got, want)
		}
	}
}
