package cli

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/mcpclient"
	"github.com/podcode/podcode/internal/safetext"
)

func init() { mcpCommands = append(mcpCommands, newMCPListCmd) }

func newMCPListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the MCP servers Podcode uses: their state, their tools, prompts and resources, and their errors",
		Long: `Starts the MCP servers that podcode.json (mcp) and the project's .mcp.json declare, as
podcode serve does, waits for them as long as start-up does, and lists each with its state
(ready, starting, retrying, untrusted), where it is declared, the tools it gives (as the ids
Podcode registers them under, <server>_<tool>), how many prompts (slash commands
/mcp__<server>__<prompt>) and resources (@<server>:<uri>) it offers, and its last error; --json
names the prompts, the resources and the resource templates. A project's server that is not
trusted is not started: podcode trust shows it.
`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return bootedWith(cmdContext(cmd), bootOptions, func(a *app.App) error {
				servers := a.MCPStatus()
				if asJSON {
					return printJSON(cmd.OutOrStdout(), map[string]any{"servers": servers})
				}
				if len(servers) == 0 {
					fmt.Fprintln(cmd.OutOrStdout(), "No MCP servers: declare them in podcode.json (\"mcp\") or the project's .mcp.json.")
					return nil
				}
				printMCPServers(cmd.OutOrStdout(), servers)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printMCPServers prints one line a server, and its error under it.
func printMCPServers(w io.Writer, servers []mcpclient.Status) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tSTATE\tTRANSPORT\tTOOLS\tPROMPTS\tRESOURCES\tDECLARED IN")
	for _, s := range servers {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", safetext.Line(s.Name), s.State, s.Transport, safetext.Line(orDash(s.Tools)),
			len(s.Prompts), len(s.Resources)+len(s.ResourceTemplates), safetext.Line(s.Origin))
	}
	tw.Flush()
	for _, s := range servers {
		if s.Error != "" {
			fmt.Fprintf(w, "%s: %s\n", safetext.Line(s.Name), safetext.Line(strings.TrimSpace(s.Error)))
		}
	}
}
