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
	"github.com/podcode/podcode/plugin"
)

func newHookCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "hook", Short: "Run plugin hooks by hand"}
	cmd.AddCommand(newHookFireCmd())
	return cmd
}

func newHookFireCmd() *cobra.Command {
	var input, inputFile string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "fire <hook|event> [--input JSON | --input-file F] [--json]",
		Short: "Run one hook's pipeline or one lifecycle event over a payload and print the result",
		Long: `Runs one hook's pipeline over the payload and prints the final payload.
For tool it prints the merged tool registry. For chat.params the input holds the
tunables the caller specifies (temperature, topP, topK, maxOutputTokens, options)
and optionally sessionID, agent and model ("provider/model"); it prints the
request parameters that would go to the provider.

For a lifecycle event (PreToolUse, UserPromptSubmit, SessionStart, ...) it
dispatches the event through every registered handler (Go, JS plugins'
lifecycle, manifest plugins, Claude Code hooks) and prints the decision and
each handler's vote: source, layer, outcome, vote, reason and duration. The
input is the event's payload (tool_name, tool_input as an object or a
string, session_id, extra, ...). It exits non-zero when a handler threw,
timed out or the decision is deny.

For a plugin hook (tool.execute.before, chat.params, ...) it runs the hook's
pipeline over the input and prints the payload it ends with; it exits 3
when a plugin's hook threw, timed out or returned what cannot be the
payload (the payload printed is then without that plugin's change).`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			hook := args[0]
			event := plugin.IsValidHookEvent(hook)
			if !event && !slices.Contains(jsplugin.Hooks, hook) {
				return usageError(fmt.Errorf("unknown hook %q (plugin hooks: %s; lifecycle events: %s)", hook, strings.Join(jsplugin.Hooks, ", "), eventNames()))
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
			if event {
				p, err := lifecyclePayload(plugin.HookEvent(hook), payload)
				if err != nil {
					return err
				}
				return booted(cmd, func(a *app.App) error {
					return fireLifecycle(cmd, a, p, asJSON)
				})
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
					req, steps := a.Runner.ChatParams(ctx, in)
					if err := printJSON(cmd.OutOrStdout(), req); err != nil {
						return err
					}
					return failedSteps(hook, steps)
				}
				out, steps := a.Runner.Run(ctx, hook, payload)
				if err := printJSON(cmd.OutOrStdout(), jsrt.StripUndefined(out)); err != nil {
					return err
				}
				return failedSteps(hook, steps)
			})
		},
	}
	cmd.Flags().StringVar(&input, "input", "", "the payload, a JSON object")
	cmd.Flags().StringVar(&inputFile, "input-file", "", "read the payload from a file")
	cmd.Flags().BoolVar(&asJSON, "json", false, "for a lifecycle event, print the run summary as JSON")
	return cmd
}

// failedSteps is the error of a pipeline run in which a plugin's hook
// failed (exit status 3), naming each; nil when none did.
func failedSteps(hook string, steps []pipeline.Step) error {
	var failed []string
	for _, st := range steps {
		switch st.Outcome {
		case pipeline.Threw, pipeline.TimedOut, pipeline.Invalid:
			why := strings.ReplaceAll(st.Outcome, "_", " ")
			if st.Error != "" {
				first, _, _ := strings.Cut(st.Error, "\n")
				why += ": " + first
			}
			failed = append(failed, fmt.Sprintf("plugin %s %s", st.Plugin, why))
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return problems("%s: %s", hook, strings.Join(failed, "; "))
}
