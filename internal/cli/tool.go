package cli

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/tool"
)

func newToolCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "tool", Short: "List and run tools"}
	cmd.AddCommand(newToolListCmd(), newToolRunCmd())
	return cmd
}

type toolInfo struct {
	ID          string          `json:"id"`
	Source      string          `json:"source"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

func toolInfos(r *tool.Registry) []toolInfo {
	out := []toolInfo{}
	for _, d := range r.List() {
		params := d.Parameters
		if len(params) == 0 {
			params = json.RawMessage(`{"type":"object"}`)
		}
		out = append(out, toolInfo{ID: d.ID, Source: d.Source, Description: d.Description, Parameters: params})
	}
	return out
}

func newToolListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the merged tool registry: built-ins, plugin tools and the tools of MCP servers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return booted(cmd, func(a *app.App) error {
				infos := toolInfos(a.Tools)
				if asJSON {
					return printJSON(cmd.OutOrStdout(), infos)
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tSOURCE\tDESCRIPTION")
				for _, t := range infos {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", t.ID, t.Source, t.Description)
				}
				return tw.Flush()
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

func newToolRunCmd() *cobra.Command {
	var argsJSON string
	cmd := &cobra.Command{
		Use:   "run <id> --args JSON",
		Short: "Run one tool call through the path a turn uses, and print what the model would see",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var toolArgs map[string]any
			if err := json.Unmarshal([]byte(argsJSON), &toolArgs); err != nil {
				return usageError(fmt.Errorf("--args: not a JSON object: %w", err))
			}
			return booted(cmd, func(a *app.App) error {
				cwd, _ := os.Getwd()
				call := tool.Call{SessionID: "cli", MessageID: "cli", CallID: "call_" + randomID(), Agent: "cli", Cwd: cwd}
				res, _, err := a.Runner.CallTool(cmdContext(cmd), call, args[0], toolArgs)
				if err != nil {
					return err
				}
				return printJSON(cmd.OutOrStdout(), res)
			})
		},
	}
	cmd.Flags().StringVar(&argsJSON, "args", "{}", "the tool's arguments, a JSON object")
	return cmd
}

func randomID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return hex.EncodeToString(b)
}
