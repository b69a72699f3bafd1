// Package cli is the podcode command: its subcommands, each booting Podcode
// the way the server does.
package cli

import (
	"fmt"
	"os"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/trust"
	"github.com/podcode/podcode/internal/version"
)

// Main runs the podcode command with os.Args and exits; opts are the boot
// options every subcommand uses (an embedding program's handlers).
func Main(opts app.Options) {
	if os.Getenv(trust.EnvTrustAll) == "1" {
		opts.TrustAll = true
	}
	bootOptions = opts
	if err := newRoot().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "podcode:", err)
		os.Exit(exitCode(err))
	}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "podcode",
		Short:         "Podcode: an agent server built around its plugins",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().BoolVar(&bootOptions.TrustAll, "trust-all", bootOptions.TrustAll,
		"run the project's code without asking the trust store (for CI; PODCODE_TRUST_ALL=1 does the same)")
	root.AddCommand(newVersionCmd(), newServeCmd(), newRunCmd(), newChatCmd(), newModelsCmd(), newPluginCmd(), newToolCmd(), newHookCmd(), newTrustCmd(), newMCPCmd(), newACPCmd())
	suggestHelp(root)
	// With no arguments in a terminal, the chat; otherwise the help, or
	// what suggestHelp says of an unknown command.
	var chat chatFlags
	chat.add(root)
	root.Long = "Podcode: an agent server built around its plugins.\n\nIn a terminal, podcode with no arguments opens the chat (podcode chat --help says more)."
	unknown := root.RunE
	root.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 && inTerminal(cmd) {
			return runChat(cmd, chat)
		}
		return unknown(cmd, args)
	}
	return root
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print Podcode's version and the plugin runtime version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "podcode %s (plugin runtime %s, %s %s/%s)\n",
				version.App(), version.PluginRuntime, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
