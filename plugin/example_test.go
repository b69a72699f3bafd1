package plugin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"github.com/podcode/podcode/plugin"
)

// A guard that denies dangerous bash commands, in the project layer, failing
// closed; and a user-layer handler that allows everything. The deny wins:
// layers order handlers, they never outvote one another.
func Example() {
	d := plugin.NewDispatcher()

	dangerous := regexp.MustCompile(`\brm\s+-rf\b`)
	guard := func(ctx context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
		if p.ToolName != "bash" {
			return nil, nil // abstain
		}
		var args struct{ Command string }
		if err := json.Unmarshal([]byte(p.ToolInput), &args); err != nil {
			return nil, fmt.Errorf("bash input: %w", err)
		}
		if dangerous.MatchString(args.Command) {
			return &plugin.HookResult{Decision: plugin.DecisionDeny, Message: "rm -rf is not allowed"}, nil
		}
		return nil, nil
	}
	_ = d.Register(plugin.HookPreToolUse, guard, plugin.WithLayer(plugin.LayerProject), plugin.WithSource("rm-guard"), plugin.FailClosed())
	_ = d.Register(plugin.HookPreToolUse, plugin.AllowHook(), plugin.WithLayer(plugin.LayerUser), plugin.WithSource("allow-all"))

	for _, cmd := range []string{`ls -la`, `rm -rf /`} {
		input, _ := json.Marshal(map[string]string{"command": cmd})
		rep, err := d.DispatchReport(context.Background(), &plugin.HookPayload{
			Event: plugin.HookPreToolUse, ToolName: "bash", ToolInput: string(input),
		})
		if err != nil {
			panic(err)
		}
		fmt.Printf("%-9s -> %s %q\n", cmd, rep.Result.Decision, rep.Result.Message)
		for _, h := range rep.Handlers {
			fmt.Printf("  %s (%s): %s\n", h.Source, h.Layer, strings.TrimSpace(string(h.Outcome)+" "+string(h.Decision)))
		}
	}
	// Output:
	// ls -la    -> allow ""
	//   allow-all (user): voted allow
	//   rm-guard (project): abstained
	// rm -rf /  -> deny "rm -rf is not allowed"
	//   allow-all (user): voted allow
	//   rm-guard (project): voted deny
}
