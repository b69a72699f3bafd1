package cli

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/mcpserver"
)

// mcpCommands make the subcommands of `podcode mcp`; a file of this
// package adds its own here (or appends in an init function).
var mcpCommands = []func() *cobra.Command{newMCPServeCmd}

func newMCPCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "mcp", Short: "Podcode and the Model Context Protocol"}
	for _, sub := range mcpCommands {
		cmd.AddCommand(sub())
	}
	return cmd
}

func newMCPServeCmd() *cobra.Command {
	var data string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the project's tools to another agent over MCP on standard input and output",
		Long: `Serves the tools of the project in the current directory (built-ins, plugin tools, the
tools of the MCP servers it uses) to
another agent over the Model Context Protocol, on standard input and output: the agent
starts this command as an MCP server ("command": "podcode", "args": ["mcp", "serve"]).
Every tools/call goes through the path a tool call of a turn takes: validation, PreToolUse
and the permission rules, tool.execute.before, the tool, tool.execute.after, PostToolUse,
with channel "mcp". A denied or failed call is a result with isError and the reason. A
permission "ask" is refused, saying that nobody can answer: standard input carries the
protocol. The log goes to standard error, nothing but the protocol to standard output. The
command ends when its input ends (requests not yet answered are dropped: the client is
gone), or on SIGTERM or Ctrl-C.

The same tools are served by podcode serve at /mcp (streamable HTTP, behind the token).
`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, in, out, done := speakOnStdio(cmd)
			defer done()
			return bootedWith(ctx, withData(data), func(a *app.App) error {
				a.Guard.SetAsker(&nobody{out: cmd.ErrOrStderr(), why: "standard input carries the MCP protocol"})
				printSkipped(cmd.ErrOrStderr(), a)
				srv := mcpserver.New(a)
				defer srv.Close()
				a.Log.Info("mcp: serving on standard input and output", "tools", len(a.Tools.List()), "plugins", len(a.Plugins.Plugins))
				return srv.Serve(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
			})
		},
	}
	dataFlag(cmd, &data)
	return cmd
}

// nopWriteCloser is w, which the transport closes at its end, left open:
// it belongs to the command.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// speakOnStdio prepares a command whose standard output carries a protocol
// (`podcode mcp serve`, `podcode acp`): its context ends on SIGTERM or
// Ctrl-C, and whatever else in the process writes to os.Stdout (an
// embedder's handler) goes to standard error until done is called.
func speakOnStdio(cmd *cobra.Command) (ctx context.Context, in io.Reader, out io.Writer, done func()) {
	ctx, stop := signal.NotifyContext(cmdContext(cmd), os.Interrupt, syscall.SIGTERM)
	in, out = cmd.InOrStdin(), cmd.OutOrStdout()
	if f, ok := out.(*os.File); ok && f == os.Stdout {
		os.Stdout = os.Stderr
		return ctx, in, out, func() { os.Stdout = f; stop() }
	}
	return ctx, in, out, stop
}
