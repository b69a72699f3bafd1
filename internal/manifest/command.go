package manifest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/podcode/podcode/internal/proc"
	"github.com/podcode/podcode/plugin"
)

// DefaultCommandTimeout bounds a command handler without a timeout; the
// dispatch deadline bounds it too.
const DefaultCommandTimeout = 60 * time.Second

// maxOutput bounds what a command may write to stdout or stderr.
const maxOutput = 1 << 20

// commandHandler runs command once per call, through sh, in dir:
//
//   - the HookPayload as JSON on stdin;
//   - exit 0 with a HookResult as JSON on stdout is its vote; nothing on
//     stdout abstains;
//   - exit 2 denies, with stderr as the message;
//   - any other exit, a timeout, or unreadable stdout is an error, and the
//     dispatcher's isolation rules apply (fail-closed when the entry asks).
//
// The answer is complete when sh exits (proc.Run): children it left
// running are killed with its process group, and cannot hold up or spoil
// its answer.
func commandHandler(command string, timeout time.Duration, dir string, env []string) plugin.HookHandler {
	if timeout <= 0 {
		timeout = DefaultCommandTimeout
	}
	return func(ctx context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
		input, err := json.Marshal(p)
		if err != nil {
			return nil, err
		}
		ctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		cmd := exec.Command("sh", "-c", command)
		cmd.Dir, cmd.Env = dir, env
		code, stdout, stderr, err := proc.Output(ctx, cmd, input, maxOutput)
		switch {
		case ctx.Err() != nil:
			return nil, fmt.Errorf("command %q did not finish in time: %w", command, ctx.Err())
		case err != nil:
			return nil, fmt.Errorf("command %q: %w", command, err)
		case code == 2:
			msg := strings.TrimSpace(string(stderr))
			if msg == "" {
				msg = fmt.Sprintf("command %q denied it (exit 2)", command)
			}
			return &plugin.HookResult{Decision: plugin.DecisionDeny, Message: msg}, nil
		case code != 0:
			return nil, fmt.Errorf("command %q exited with status %d: %s", command, code, strings.TrimSpace(string(stderr)))
		}
		return decodeResult(stdout, "command "+command)
	}
}

// decodeResult reads a HookResult from a handler's output; empty output
// abstains.
func decodeResult(out []byte, who string) (*plugin.HookResult, error) {
	out = bytes.TrimSpace(out)
	if len(out) == 0 || string(out) == "null" {
		return nil, nil
	}
	var res plugin.HookResult
	if err := json.Unmarshal(out, &res); err != nil {
		return nil, fmt.Errorf("%s: its output is not a HookResult: %v", who, err)
	}
	return &res, nil
}
