package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/guard"
)

func newRunCmd() *cobra.Command {
	var sessionID, model, data string
	cmd := &cobra.Command{
		Use:   `run [--session ID] "prompt"`,
		Short: "Run one turn: print the assistant's text and each tool call as it happens",
		Long: `Runs one turn in a new session (or the given one) and prints the assistant's
text on stdout and each tool call on stderr as it happens. Without a provider in the
config it uses the built-in offline model: a line "/tool <id> <json-args>" in the
prompt makes it call that tool. Ctrl-C cancels the turn. The exit status is non-zero
when the turn fails.

` + dataHelp,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmdContext(cmd), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return bootedWith(ctx, withData(data), func(a *app.App) error {
				printSkipped(cmd.ErrOrStderr(), a) // before anything of the turn runs
				st, err := openStore(ctx, a)
				if err != nil {
					return err
				}
				defer st.Close()
				if isTerminal(os.Stdin) {
					a.Guard.Asker = &terminalAsker{in: bufio.NewReader(os.Stdin), out: cmd.ErrOrStderr()}
				}
				ag := agent.New(a, st)
				if sessionID == "" {
					sess, err := ag.NewSession(ctx, agent.SessionRequest{Channel: "cli", Model: model, Title: title(args[0])})
					if err != nil {
						return err
					}
					sessionID = sess.ID
				}
				out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
				printer := &turnPrinter{out: out, err: errOut}
				_, err = ag.Run(ctx, agent.TurnRequest{SessionID: sessionID, Prompt: args[0], Channel: "cli", OnEvent: printer.event})
				printer.finish()
				fmt.Fprintf(errOut, "session %s\n", sessionID)
				if errors.Is(ctx.Err(), context.Canceled) {
					return fmt.Errorf("the turn was cancelled")
				}
				return err
			})
		},
	}
	cmd.Flags().StringVar(&sessionID, "session", "", "continue this session instead of starting a new one")
	cmd.Flags().StringVar(&model, "model", "", `the model of a new session, "provider/model" (default: the config's)`)
	dataFlag(cmd, &data)
	return cmd
}

func title(prompt string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(prompt), "\n")
	return chat.Shorten(line, 60)
}

// turnPrinter writes a turn's progress: text as it streams on out, tool
// calls on err.
type turnPrinter struct {
	out, err io.Writer
	mid      bool // the last text did not end a line
}

func (p *turnPrinter) event(e agent.Event) {
	switch e.Type {
	case "text":
		fmt.Fprint(p.out, e.Text)
		p.mid = !strings.HasSuffix(e.Text, "\n")
	case "tool.start":
		p.finish()
		fmt.Fprintf(p.err, "-> %s %s\n", printable(e.Call.Tool), printable(string(e.Call.Args)))
	case "tool.end":
		status := "ok"
		if e.Result.IsError {
			status = "error: " + firstLine(e.Result.Output)
		}
		fmt.Fprintf(p.err, "<- %s %s: %s\n", printable(e.Call.Tool), printable(e.Result.Title), printable(status))
	}
}

func (p *turnPrinter) finish() {
	if p.mid {
		fmt.Fprintln(p.out)
		p.mid = false
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// terminalAsker asks permission questions on the terminal.
type terminalAsker struct {
	mu  sync.Mutex
	in  *bufio.Reader
	out io.Writer
}

func (t *terminalAsker) Ask(ctx context.Context, q guard.Question) (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	// The arguments come from the model, the reason from hooks: shown as
	// JSON and escaped, neither can rewrite the question on the terminal.
	args, err := json.Marshal(q.Args)
	if err != nil {
		args = fmt.Appendf(nil, "%v", q.Args)
	}
	fmt.Fprintf(t.out, "? %s wants to run: %s (%s). Allow? [y/N] ", printable(q.Tool), printable(string(args)), printable(q.Reason))
	answer := make(chan string, 1)
	go func() {
		line, _ := t.in.ReadString('\n')
		answer <- strings.TrimSpace(strings.ToLower(line))
	}()
	select {
	case a := <-answer:
		return a == "y" || a == "yes", nil
	case <-ctx.Done():
		fmt.Fprintln(t.out)
		return false, ctx.Err()
	}
}
