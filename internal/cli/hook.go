package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/jsrt"
	"github.com/podcode/podcode/internal/pipeline"
)

func newHookCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "hook", Short: "Run plugin hooks by hand"}
	cmd.AddCommand(newHookFireCmd())
	return cmd
}

func newHookFireCmd() *cobra.Command {
	var input, inputFile string
	cmd := &cobra.Command{
		Use:   "fire <hook> [--input JSON | --input-file F]",
		Short: "Run one hook's pipeline over a payload and print the result",
		Long: `Runs one hook's pipeline over the payload and prints the final payload.
For tool it prints the merged tool registry. For chat.params the input holds the
tunables the caller specifies (temperature, topP, topK, maxOutputTokens, options)
and optionally sessionID, agent and model ("provider/model"); it prints the
request parameters that would go to the provider.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			hook := args[0]
			if !slices.Contains(jsplugin.Hooks, hook) {
				return fmt.Errorf("unknown hook %q (hooks: %s)", hook, strings.Join(jsplugin.Hooks, ", "))
			}
			raw := []byte(input)
			if inputFile != "" {
				var err error
				if raw, err = os.ReadFile(inputFile); err != nil {
					return err
				}
			}
			payload := map[string]any{}
			if len(strings.TrimSpace(string(raw))) > 0 {
				if err := json.Unmarshal(raw, &payload); err != nil {
					return fmt.Errorf("input: not a JSON object: %w", err)
				}
			}
			return booted(cmd, func(a *app.App) error {
				ctx := cmdContext(cmd)
				switch hook {
				case jsplugin.HookTool:
					return printJSON(cmd.OutOrStdout(), toolInfos(a.Tools))
				case jsplugin.HookChatParams:
					model, err := a.Model()
					if name, ok := payload["model"].(string); ok {
						model, err = a.Models.Lookup(name)
					}
					if err != nil {
						return err
					}
					in := pipeline.ChatInput{Model: model, Specified: map[string]any{}}
					in.SessionID, _ = payload["sessionID"].(string)
					in.Agent, _ = payload["agent"].(string)
					for _, k := range pipeline.Tunables {
						if v, ok := payload[k]; ok {
							in.Specified[k] = v
						}
					}
					req, _ := a.Runner.ChatParams(ctx, in)
					return printJSON(cmd.OutOrStdout(), req)
				}
				out, _ := a.Runner.Run(ctx, hook, payload)
				return printJSON(cmd.OutOrStdout(), jsrt.StripUndefined(out))
			})
		},
	}
	cmd.Flags().StringVar(&input, "input", "", "the payload, a JSON object")
	cmd.Flags().StringVar(&inputFile, "input-file", "", "read the payload from a file")
	return cmd
}
