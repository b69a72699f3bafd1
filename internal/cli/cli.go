// Package cli is the podcode command: its subcommands, each booting Podcode
// the way the server does.
package cli

import (
	"fmt"
	"os"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/safetext"
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
		// The error may quote a plugin, a hook or a project's file.
		fmt.Fprintln(os.Stderr, "podcode:", safetext.Text(err.Error()))
		os.Exit(exitCode(err))
	}
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "podcode",
		Short:         "Podcode: an agent server built around its plugins",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       currentVersion().Version,
	}
	root.SetVersionTemplate(currentVersion().String() + "\n")
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

// versionInfo is what podcode version --json prints.
type versionInfo struct {
	Version       string `json:"version"`
	PluginRuntime string `json:"plugin_runtime"`
	Go            string `json:"go"`
	OS            string `json:"os"`
	Arch          string `json:"arch"`
}

func currentVersion() versionInfo {
	return versionInfo{Version: version.App(), PluginRuntime: version.PluginRuntime, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
}

func (v versionInfo) String() string {
	return fmt.Sprintf("podcode %s (plugin runtime %s, %s %s/%s)", v.Version, v.PluginRuntime, v.Go, v.OS, v.Arch)
}

func newVersionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "Print Podcode's version and the plugin runtime version (podcode --version prints the same line)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if asJSON {
				return printJSON(cmd.OutOrStdout(), currentVersion())
			}
			_, err := fmt.Fprintln(cmd.OutOrStdout(), currentVersion())
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON: version, plugin_runtime, go, os, arch")
	return cmd
}
