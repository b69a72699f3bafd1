// Command gosdk shows Podcode's Go SDK for lifecycle hooks: a guard that
// denies bash commands matching a pattern, a logger, and the dispatches a
// turn would make.
//
//	go run ./examples/gosdk
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"

	"github.com/podcode/podcode/plugin"
)

func main() {
	if err := run(context.Background(), os.Stdout, slog.New(slog.NewTextHandler(os.Stderr, nil))); err != nil {
		fmt.Fprintln(os.Stderr, "gosdk:", err)
		os.Exit(1)
	}
}

// bashGuard denies bash commands that match deny. It abstains on every other
// tool, so it never decides for them.
func bashGuard(deny *regexp.Regexp) plugin.HookHandler {
	return func(ctx context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
		if p.ToolName != "bash" {
			return nil, nil
		}
		var args struct {
			Command string `json:"command"`
		}
		if err := json.Unmarshal([]byte(p.ToolInput), &args); err != nil {
			return nil, fmt.Errorf("bash arguments: %w", err)
		}
		if deny.MatchString(args.Command) {
			return &plugin.HookResult{
				Decision: plugin.DecisionDeny,
				Message:  fmt.Sprintf("command %q matches %s", args.Command, deny),
			}, nil
		}
		return &plugin.HookResult{Decision: plugin.DecisionAllow}, nil
	}
}

func run(ctx context.Context, out io.Writer, logger *slog.Logger) error {
	d := plugin.NewDispatcher(plugin.WithLogger(logger))
	guard := bashGuard(regexp.MustCompile(`\b(rm\s+-rf|curl\b.*\|\s*sh)\b`))
	// A guard fails closed: if it errors or hangs, the tool does not run.
	if err := d.Register(plugin.HookPreToolUse, guard,
		plugin.WithLayer(plugin.LayerProject), plugin.WithSource("bash-guard"), plugin.FailClosed()); err != nil {
		return err
	}
	for _, ev := range []plugin.HookEvent{plugin.HookPreToolUse, plugin.HookPostToolUse, plugin.HookUserPromptSubmit} {
		if err := d.Register(ev, plugin.LogHook(logger, "hook fired"), plugin.WithSource("audit-log")); err != nil {
			return err
		}
	}

	extra := map[string]any{plugin.ExtraModel: "offline/echo", plugin.ExtraMaxContext: 128000}
	payloads := []*plugin.HookPayload{
		{Event: plugin.HookUserPromptSubmit, SessionID: "ses_demo", Channel: "cli", Extra: extra},
		{Event: plugin.HookPreToolUse, ToolName: "bash", ToolInput: `{"command":"ls -la"}`, SessionID: "ses_demo", Channel: "cli", Extra: extra},
		{Event: plugin.HookPreToolUse, ToolName: "bash", ToolInput: `{"command":"rm -rf /"}`, SessionID: "ses_demo", Channel: "cli", Extra: extra},
		{Event: plugin.HookPreToolUse, ToolName: "bash", ToolInput: `not json`, SessionID: "ses_demo", Channel: "cli", Extra: extra},
		{Event: plugin.HookPreToolUse, ToolName: "read", ToolInput: `{"path":"go.mod"}`, SessionID: "ses_demo", Channel: "cli", Extra: extra},
		{Event: plugin.HookAgentStop, SessionID: "ses_demo", Channel: "cli", Extra: extra},
	}
	for _, p := range payloads {
		rep, err := d.DispatchReport(ctx, p)
		if err != nil {
			return err
		}
		what := string(p.Event)
		if p.ToolName != "" {
			what += " " + p.ToolName + " " + p.ToolInput
		}
		fmt.Fprintf(out, "%s\n  -> %s", what, rep.Result.Decision)
		if rep.Votes == 0 {
			fmt.Fprint(out, " (no hook decided: the host's policy applies)")
		}
		if rep.Result.Message != "" {
			fmt.Fprintf(out, ": %s", rep.Result.Message)
		}
		fmt.Fprintln(out)
		for _, h := range rep.Handlers {
			fmt.Fprintf(out, "     %-10s %-8s %s %s\n", h.Source, h.Layer, h.Outcome, h.Decision)
		}
	}
	return nil
}
