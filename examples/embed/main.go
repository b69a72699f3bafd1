// Command embed is a Podcode binary with a Go lifecycle handler compiled
// in: a PreToolUse guard that refuses destructive shell commands, in the
// managed layer, failing closed. Everything else is the podcode command.
//
//	go build -o podcode ./examples/embed && ./podcode run '/tool bash {"command": "rm -rf /"}'
package main

import (
	"context"
	"encoding/json"
	"regexp"

	"github.com/podcode/podcode"
	"github.com/podcode/podcode/plugin"
)

var destructive = regexp.MustCompile(`\brm\s+-[a-zA-Z]*(r[a-zA-Z]*f|f[a-zA-Z]*r)|\bmkfs\b|\bdd\s+if=`)

// Guard denies bash commands that match destructive, allows other bash
// commands, and abstains on every other tool.
func Guard(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
	if p.ToolName != "bash" {
		return nil, nil
	}
	var args struct {
		Command string `json:"command"`
	}
	if err := json.Unmarshal([]byte(p.ToolInput), &args); err != nil {
		return nil, err // fails closed: a bash call we cannot read does not run
	}
	if destructive.MatchString(args.Command) {
		return &plugin.HookResult{Decision: plugin.DecisionDeny, Message: "destructive commands are not allowed here"}, nil
	}
	return &plugin.HookResult{Decision: plugin.DecisionAllow}, nil
}

func main() {
	podcode.Main(podcode.WithHook(plugin.HookPreToolUse, Guard,
		plugin.WithSource("embed-guard"), plugin.WithLayer(plugin.LayerManaged), plugin.FailClosed()))
}
