package cli

import (
	"bufio"
	"bytes"
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
	"github.com/podcode/podcode/internal/safetext"
)

func newRunCmd() *cobra.Command {
	var sessionID, model, data string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   `run [--session ID] [--json] <prompt…> | -`,
		Short: "Run one turn: print the assistant's text and each tool call as it happens",
		Long: `Runs one turn in a new session (or the given one) and prints the assistant's
text on stdout and each tool call on stderr as it happens. The words after run are the
prompt, joined by spaces (podcode run summarise README.md); a lone - reads the prompt
from standard input. Put -- before a prompt that starts with a dash.

Without a provider in the config it uses the built-in offline model: a line
"/tool <id> <json-args>" in the prompt makes it call that tool.

--json prints the turn's events on stdout instead, one JSON object a line: the events
GET /events of the HTTP API streams (the same objects), of this session and of the
sub-agents it starts.

When a tool call needs permission ("ask"), the question goes to the terminal; when
nobody can answer it (standard input is not a terminal, is closed, or held the prompt)
the call is refused, as every "ask" without an answer is, and the question and the
refusal are shown. Ctrl-C cancels the turn. The exit status is 1 when the turn fails or
is cancelled, and 3 when it ended but a tool call failed, was denied or had arguments its
schema refused.

` + dataHelp,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errors.New(`run needs a prompt: podcode run summarise README.md, or podcode run - to read it from standard input`)
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			prompt, fromStdin, err := readPrompt(args, cmd.InOrStdin())
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(cmdContext(cmd), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return bootedWith(ctx, withData(data), func(a *app.App) error {
				printSkipped(cmd.ErrOrStderr(), a) // before anything of the turn runs
				a.Guard.SetAsker(stdinAsker(cmd, fromStdin))
				out, errOut := cmd.OutOrStdout(), cmd.ErrOrStderr()
				var onEvent func(agent.Event)
				var events *jsonEvents
				printer := &turnPrinter{out: out, err: errOut}
				if asJSON {
					events = &jsonEvents{w: out, redact: a.Redact.String}
					defer a.Bus.Subscribe("", "podcode run --json", events.publish)()
				} else {
					onEvent = printer.event
				}
				// On a shared store, a turn here is a node's like any other:
				// leased, so that no server runs the session beside it.
				ag, release, err := startAgent(ctx, a, "run")
				if err != nil {
					return err
				}
				defer release()
				if sessionID == "" {
					if model == "" {
						printModelChoice(errOut, a)
					}
					sess, err := ag.NewSession(ctx, agent.SessionRequest{Channel: "cli", Model: model})
					if err != nil {
						return err
					}
					sessionID = sess.ID
				}
				events.follow(sessionID)
				res, err := ag.Run(ctx, agent.TurnRequest{SessionID: sessionID, Prompt: prompt, Channel: "cli", OnEvent: onEvent})
				printer.finish() // the text's last line ends before the session line
				printPluginTrouble(errOut, a)
				if res != nil && !asJSON {
					if line := res.Usage.Line(); line != "" {
						fmt.Fprintln(errOut, line)
					}
				}
				fmt.Fprintf(errOut, "session %s\n", sessionID)
				if errors.Is(ctx.Err(), context.Canceled) {
					return fmt.Errorf("the turn was cancelled")
				}
				if err != nil || res == nil {
					return err
				}
				return failedCalls(res.Messages)
			})
		},
	}
	cmd.Flags().StringVar(&sessionID, "session", "", "continue this session instead of starting a new one")
	cmd.Flags().StringVar(&model, "model", "", `the model of a new session, "provider/model" (default: the config's)`)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the turn's events as JSON lines (those GET /events streams) instead of its text")
	dataFlag(cmd, &data)
	return cmd
}

// maxPrompt bounds a prompt read from standard input.
const maxPrompt = 8 << 20

// readPrompt is the prompt of run's arguments: the words joined by
// spaces, or, for a lone "-", standard input (fromStdin says so); a "-"
// among other words is one of them ("compare a - b").
func readPrompt(args []string, stdin io.Reader) (prompt string, fromStdin bool, err error) {
	if len(args) == 1 && args[0] == "-" { // among other words, a dash is a word
		b, err := io.ReadAll(io.LimitReader(stdin, maxPrompt+1))
		if err != nil {
			return "", true, fmt.Errorf("reading the prompt from standard input: %w", err)
		}
		if len(b) > maxPrompt {
			return "", true, fmt.Errorf("the prompt on standard input is longer than %d MiB", maxPrompt>>20)
		}
		prompt = strings.TrimSpace(string(b))
		if prompt == "" {
			return "", true, errors.New("the prompt on standard input is empty")
		}
		return prompt, true, nil
	}
	prompt = strings.TrimSpace(strings.Join(args, " "))
	if prompt == "" {
		return "", false, fmt.Errorf("the prompt is empty\n%s", helpHint("podcode run"))
	}
	return prompt, false, nil
}

// stdinAsker is who answers run's permission questions: the terminal on
// standard input, or, when there is none to ask, nobody (an asker that
// shows the question and says why nobody can answer it).
func stdinAsker(cmd *cobra.Command, promptRead bool) guard.Asker {
	errOut := cmd.ErrOrStderr()
	switch f, ok := cmd.InOrStdin().(*os.File); {
	case promptRead:
		return &nobody{out: errOut, why: "standard input held the prompt"}
	case !ok || !isTerminal(f):
		return &nobody{out: errOut, why: "standard input is not a terminal"}
	default:
		return &terminalAsker{in: f, out: errOut}
	}
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
		fmt.Fprintf(p.err, "-> %s %s\n", safetext.Line(e.Call.Tool), safetext.Line(string(e.Call.Args)))
	case "tool.end":
		status := "ok"
		if e.Result.IsError {
			status = "error: " + firstLine(e.Result.Output)
		}
		fmt.Fprintf(p.err, "<- %s %s: %s\n", safetext.Line(e.Call.Tool), safetext.Line(e.Result.Title), safetext.Line(status))
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

// question writes q for the person who answers it: the tool, its
// arguments as indented JSON and why it is asked. The arguments come from
// the model, the reason from hooks: JSON-encoded and escaped (printable),
// neither can rewrite what the terminal shows.
func question(q guard.Question) string {
	if q.Tool == "prompt" && q.Args == nil { // UserPromptSubmit asked
		return "? A hook wants the prompt confirmed\n  (" + safetext.Line(q.Reason) + ")"
	}
	if q.Form != nil {
		return formQuestion(q)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // "a && b" stays readable
	enc.SetIndent("    ", "  ")
	if err := enc.Encode(q.Args); err != nil {
		b.Reset()
		fmt.Fprintf(&b, "%v", q.Args)
	}
	var w strings.Builder
	fmt.Fprintf(&w, "? %s wants to run:\n    ", safetext.Line(q.Tool))
	for i, line := range strings.Split(strings.TrimRight(b.String(), "\n"), "\n") {
		if i > 0 {
			w.WriteString("\n")
		}
		w.WriteString(safetext.Line(line))
	}
	if q.Reason != "" {
		fmt.Fprintf(&w, "\n  (%s)", safetext.Line(q.Reason))
	}
	return w.String()
}

// formQuestion writes an MCP server's form (elicitation) for a terminal,
// which answers it yes (accept the defaults) or no (decline): the
// server's message, then each field with its default.
func formQuestion(q guard.Question) string {
	var w strings.Builder
	fmt.Fprintf(&w, "? %s asks (during %s):", safetext.Line(q.Form.Who()), safetext.Line(q.Tool))
	for _, line := range strings.Split(q.Form.Message, "\n") {
		w.WriteString("\n    " + safetext.Line(line))
	}
	for _, f := range q.Form.Fields {
		fmt.Fprintf(&w, "\n    - %s (%s", safetext.Line(f.Name), f.Type)
		if f.Required {
			w.WriteString(", required")
		}
		if f.Default != nil {
			def, _ := json.Marshal(f.Default)
			fmt.Fprintf(&w, ", default %s", safetext.Line(string(def)))
		}
		w.WriteString(")")
		if f.Title != "" || f.Description != "" {
			fmt.Fprintf(&w, ": %s", safetext.Line(strings.TrimSpace(f.Title+" "+f.Description)))
		}
	}
	// A form with a required field without a default is declined before
	// a terminal is asked (guard.AskForm).
	w.WriteString("\n  (yes sends the defaults, no declines)")
	return w.String()
}

// nobody is the asker of a run that has nobody to ask: it shows the
// question and answers guard.ErrNobodyToAsk, saying why; the guard then
// refuses the call, as it refuses every question nobody answers.
type nobody struct {
	mu  sync.Mutex
	out io.Writer
	why string
}

func (n *nobody) Ask(_ context.Context, q guard.Question) (bool, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	fmt.Fprintf(n.out, "%s\n  Nobody can answer (%s): refused.\n", question(q), n.why)
	return false, fmt.Errorf("%w (%s)", guard.ErrNobodyToAsk, n.why)
}

// terminalAsker asks permission questions on the terminal. One goroutine
// reads its input, a line at a time, for as long as the process runs (a
// read cannot be interrupted); a question takes the first line typed after
// it was shown. Once the input is closed (Ctrl-D, or it ends), nobody can
// answer: that question and every later one are refused, saying so.
type terminalAsker struct {
	mu     sync.Mutex
	in     io.Reader
	out    io.Writer
	lines  chan string // closed at the end of the input
	closed bool
}

func (t *terminalAsker) Ask(ctx context.Context, q guard.Question) (bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.lines == nil {
		t.lines = make(chan string, 16)
		go func() {
			defer close(t.lines)
			r := bufio.NewReader(t.in)
			for {
				line, err := r.ReadString('\n')
				if line != "" || err == nil {
					t.lines <- line
				}
				if err != nil {
					return
				}
			}
		}()
	}
	// What was typed before the question is not its answer.
	for drained := false; !drained && !t.closed; {
		select {
		case _, ok := <-t.lines:
			t.closed = !ok
		default:
			drained = true
		}
	}
	const why = "standard input is closed"
	if t.closed {
		fmt.Fprintf(t.out, "%s\n  Nobody can answer (%s): refused.\n", question(q), why)
		return false, fmt.Errorf("%w (%s)", guard.ErrNobodyToAsk, why)
	}
	prompt := "Allow?"
	if q.Form != nil {
		prompt = "Accept?"
	}
	fmt.Fprintf(t.out, "%s\n  %s [y/N] ", question(q), prompt)
	select {
	case line, ok := <-t.lines:
		if !ok {
			t.closed = true
			fmt.Fprintf(t.out, "\n  Nobody can answer (%s): refused.\n", why)
			return false, fmt.Errorf("%w (%s)", guard.ErrNobodyToAsk, why)
		}
		a := strings.TrimSpace(strings.ToLower(line))
		return a == "y" || a == "yes", nil
	case <-ctx.Done():
		fmt.Fprintln(t.out)
		return false, ctx.Err()
	}
}

// printPluginTrouble says, after a turn, which plugins no longer run
// whole: stopped (over their memory budget) or with hooks suspended after
// repeated timeouts. The log says it once when it happens; this is where
// the person who ran the turn looks.
func printPluginTrouble(w io.Writer, a *app.App) {
	for _, p := range a.Plugins.Plugins {
		if st := p.Status(); st != "running" {
			fmt.Fprintf(w, "plugin %s: %s\n", safetext.Line(p.ID), safetext.Line(st))
		}
	}
}

// printModelChoice says which model a new session uses when the config
// names none and a provider's key in the environment picked it, and warns,
// before anything runs, when that model's provider has no key to call it
// with (its turns would fail at their first model call).
func printModelChoice(w io.Writer, a *app.App) {
	m, err := a.Models.Default()
	if err != nil {
		return
	}
	if why := a.Models.DefaultWhy(); why != "" {
		fmt.Fprintf(w, "model %s (%s; another: --model provider/model, or \"model\" in podcode.json; podcode models lists them)\n", safetext.Line(m.Name()), safetext.Line(why))
	}
	if err := m.MissingKey(); err != nil {
		fmt.Fprintf(w, "warning: %s; until then its turns fail\n", safetext.Line(err.Error()))
	}
}

// failedCalls is the error of a turn whose tool calls failed, were
// denied or had arguments their schema refused (exit status 3), naming
// the first; nil when every call succeeded.
func failedCalls(msgs []chat.Message) error {
	var calls, failed int
	var first string
	turn := false // the results before its prompt close an earlier turn's calls
	for _, m := range msgs {
		if m.Role == chat.RoleUser {
			turn = true
		}
		if !turn || m.Role != chat.RoleTool || m.Result == nil {
			continue
		}
		calls++
		if m.Result.IsError {
			if failed++; failed == 1 {
				out, _, _ := strings.Cut(m.Result.Output, "\n")
				first = m.Result.Tool + ": " + out
			}
		}
	}
	if failed == 0 {
		return nil
	}
	return problems("the turn ended, but %d of its %d tool calls failed (%s)", failed, calls, safetext.Line(first))
}
