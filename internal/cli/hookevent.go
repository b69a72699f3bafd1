package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/safetext"
	"github.com/podcode/podcode/plugin"
)

func eventNames() string {
	var names []string
	for _, ev := range plugin.HookEvents() {
		names = append(names, string(ev))
	}
	return strings.Join(names, ", ")
}

// lifecyclePayload builds the payload of event from the input object: the
// fields of plugin.HookPayload by their JSON names; tool_input may be an
// object (as a person writes it) or the JSON text the dispatcher carries.
func lifecyclePayload(event plugin.HookEvent, in map[string]any) (*plugin.HookPayload, error) {
	if ti, ok := in["tool_input"]; ok {
		if _, isText := ti.(string); !isText {
			b, err := json.Marshal(ti)
			if err != nil {
				return nil, fmt.Errorf("input: tool_input: %w", err)
			}
			in["tool_input"] = string(b)
		}
	}
	if ev, ok := in["event"]; ok && ev != string(event) {
		return nil, fmt.Errorf("input: event is %v, but the command fires %s", ev, event)
	}
	raw, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("input: %w", err)
	}
	p := &plugin.HookPayload{}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(p); err != nil {
		return nil, fmt.Errorf("input: not a %s payload: %w", event, err)
	}
	p.Event = event
	return p, nil
}

// fireLifecycle dispatches p through every handler registered on the App's
// dispatcher, prints the run summary, and fails when a handler failed
// (error, panic, timed out, canceled) or the decision is deny.
func fireLifecycle(cmd *cobra.Command, a *app.App, p *plugin.HookPayload, asJSON bool) error {
	rep, err := a.Hooks.DispatchReport(cmdContext(cmd), p)
	if rep == nil {
		return err
	}
	w := cmd.OutOrStdout()
	if asJSON {
		if perr := printJSON(w, rep); perr != nil {
			return perr
		}
	} else {
		fmt.Fprintf(w, "%s: %s", rep.Event, rep.Result.Decision)
		if rep.Result.Message != "" {
			fmt.Fprintf(w, ": %s", safetext.Line(rep.Result.Message))
		}
		fmt.Fprintf(w, " (%d of %d handlers voted, %s)\n", rep.Votes, len(rep.Handlers), rep.Duration.Round(time.Microsecond))
		if len(rep.Handlers) > 0 {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "SOURCE\tLAYER\tOUTCOME\tVOTE\tREASON\tDURATION")
			for _, h := range rep.Handlers {
				reason := h.Message
				if h.Error != "" {
					reason = h.Error
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", safetext.Line(h.Source), h.Layer, h.Outcome,
					orDash(nonEmpty(string(h.Decision))), safetext.Line(orDash(nonEmpty(reason))), h.Duration.Round(time.Microsecond))
			}
			tw.Flush()
		}
	}
	if err != nil {
		return err
	}
	var failed []string
	for _, h := range rep.Handlers {
		switch h.Outcome {
		case plugin.OutcomeError, plugin.OutcomePanic, plugin.OutcomeTimedOut, plugin.OutcomeCanceled:
			failed = append(failed, fmt.Sprintf("%s %s", h.Source, strings.ReplaceAll(string(h.Outcome), "_", " ")))
		}
	}
	switch {
	case len(failed) > 0:
		return problems("%s: %s", rep.Event, strings.Join(failed, "; "))
	case rep.Result.Decision == plugin.DecisionDeny:
		msg := rep.Result.Message
		if msg == "" {
			msg = "no reason given"
		}
		return problems("%s: denied: %s", rep.Event, msg)
	}
	return nil
}
