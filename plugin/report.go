package plugin

import (
	"log/slog"
	"time"
)

// Outcome says what became of one handler in one dispatch.
type Outcome string

const (
	OutcomeVoted      Outcome = "voted"       // returned a decision
	OutcomeAbstained  Outcome = "abstained"   // returned no result, or one without a decision
	OutcomeError      Outcome = "error"       // returned an error, or an unknown decision
	OutcomePanic      Outcome = "panic"       // panicked (or called runtime.Goexit)
	OutcomeTimedOut   Outcome = "timed_out"   // still running at the dispatch deadline; abandoned
	OutcomeCanceled   Outcome = "canceled"    // still running when the caller's context ended; abandoned
	OutcomeSkipped    Outcome = "skipped"     // never started: the deadline or the caller's context came first
	OutcomeLeftOut    Outcome = "left_out"    // beyond MaxHandlersPerEvent; never runs (SPEC L10)
	OutcomeNotMatched Outcome = "not_matched" // its matcher did not match the tool; it did not run
)

// HandlerRun is what one handler did in one dispatch.
type HandlerRun struct {
	Source  string  `json:"source"`
	Layer   Layer   `json:"layer"`
	Outcome Outcome `json:"outcome"`
	// Decision is the vote that was counted: the handler's own, or deny for
	// a failure of a FailClosed handler; empty when nothing was counted.
	Decision   HookDecision  `json:"decision,omitempty"`
	Message    string        `json:"message,omitempty"`
	Error      string        `json:"error,omitempty"`
	FailClosed bool          `json:"fail_closed,omitempty"`
	Duration   time.Duration `json:"duration_ns"`
	// Start is when the handler started, after the start of the dispatch
	// (Report.Start). Handlers run one after another, so each starts when
	// the one before it ended; one that never ran (skipped, left out)
	// starts where the dispatch stopped waiting.
	Start time.Duration `json:"start_ns"`
}

// Report is the run summary of one dispatch: its merged result and, in
// dispatch order, every handler of the event, including those left out.
type Report struct {
	Event  HookEvent  `json:"event"`
	Result HookResult `json:"result"`
	// Votes counts the handlers whose decision was counted. Zero means no
	// hook decided, and Result.Decision is then DecisionDefer.
	Votes    int           `json:"votes"`
	Handlers []HandlerRun  `json:"handlers"`
	Duration time.Duration `json:"duration_ns"`
	// Start is when the dispatch started (with a monotonic clock reading,
	// so that Sub against another time.Now reading is exact); zero when
	// the event had no handlers.
	Start time.Time `json:"start"`
}

// LogValue lets a Report be logged as one structured attribute.
func (r *Report) LogValue() slog.Value {
	attrs := make([]slog.Attr, 0, 4+len(r.Handlers))
	attrs = append(attrs,
		slog.String("event", string(r.Event)),
		slog.String("decision", string(r.Result.Decision)),
		slog.Int("votes", r.Votes),
		slog.Duration("duration", r.Duration))
	for _, h := range r.Handlers {
		v := string(h.Outcome)
		if h.Decision != "" {
			v += ":" + string(h.Decision)
		}
		attrs = append(attrs, slog.String(h.Source, v))
	}
	return slog.GroupValue(attrs...)
}
