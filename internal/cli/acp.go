package cli

import (
	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/acp"
	"github.com/podcode/podcode/internal/app"
)

func newACPCmd() *cobra.Command {
	var data string
	cmd := &cobra.Command{
		Use:   "acp",
		Short: "Be the agent of an editor over the Agent Client Protocol on standard input and output",
		Long: `Speaks the Agent Client Protocol (agentclientprotocol.com) on standard input and output,
for an editor that starts Podcode as its agent (Zed's agent_servers, JetBrains, Neovim,
Emacs): "command": "podcode", "args": ["acp"], in the project's directory. Sessions are
Podcode sessions of channel "acp"; every hook fires as in any other turn. Permission
questions go to the editor; where the editor offers its files, read, write and edit use its
buffers (after the same path checks). The log goes to standard error, nothing but the
protocol to standard output. The command ends when its input ends, or on SIGTERM or Ctrl-C
(running turns are cancelled). See docs/acp.md.

` + dataHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, in, out, done := speakOnStdio(cmd)
			defer done()
			return bootedWith(ctx, withData(data), func(a *app.App) error {
				printSkipped(cmd.ErrOrStderr(), a)
				ag, release, err := startAgent(ctx, a, "acp")
				if err != nil {
					return err
				}
				defer release()
				return acp.New(a, ag, ag.Store).Serve(ctx, in, out)
			})
		},
	}
	dataFlag(cmd, &data)
	return cmd
}
