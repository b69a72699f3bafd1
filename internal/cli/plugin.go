package cli

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/claudecode"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/mcpclient"
	"github.com/podcode/podcode/internal/safetext"
	"github.com/podcode/podcode/internal/trust"
	"github.com/podcode/podcode/plugin"
)

func newPluginCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "plugin", Short: "Inspect and create plugins"}
	cmd.AddCommand(newPluginListCmd(), newPluginCheckCmd(), newPluginInitCmd(), newPluginTypesCmd())
	return cmd
}

type pluginInfo struct {
	ID     string   `json:"id"`
	Source string   `json:"source"`
	Spec   string   `json:"spec"`
	Path   string   `json:"path"`
	Hooks  []string `json:"hooks"`
	Tools  []string `json:"tools"`
	BootMs int64    `json:"boot_ms"`
	// Status is "running", "running; suspended after N timeouts in a
	// row: <hooks>", "stopped: <why>" (jsplugin.Plugin.Status), or, for a
	// plugin that did not load, "failed: <what>: <error>".
	Status string `json:"status"`
	// Stack is where a plugin that did not load threw, a frame a line.
	Stack []string `json:"stack,omitempty"`
	// UnknownKeys are the keys of its hooks that are no hook.
	UnknownKeys []jsplugin.UnknownKey `json:"unknown_keys,omitempty"`
}

// pluginReport is what plugin list prints, and plugin check looks at.
type pluginReport struct {
	Plugins   []pluginInfo         `json:"plugins"`
	Lifecycle []plugin.HandlerInfo `json:"lifecycle"`
	Warnings  []string             `json:"warnings"`
	// Skipped is the project code that does not run.
	Skipped []trust.Skip `json:"skipped"`
	// MCP is the MCP servers and the tools they give.
	MCP []mcpclient.Status `json:"mcp"`
	// Claude is the commands, agents and skills of Claude Code's layout.
	Claude []claudeComponent `json:"claude"`
}

// newPluginReport is a's plugins, handlers, servers and components, with
// every warning of its boot (logged, collected by warns) once.
func newPluginReport(a *app.App, logged []string) pluginReport {
	out := pluginReport{Plugins: []pluginInfo{}, Lifecycle: []plugin.HandlerInfo{}, Warnings: []string{}, Skipped: a.Trust.Skipped(),
		MCP: a.MCPStatus(), Claude: claudeComponents(a.Claude)}
	for _, w := range listedWarnings(a, logged) {
		if !slices.ContainsFunc(a.Plugins.Failed, func(f jsplugin.Failure) bool { return f.Warning == w }) {
			out.Warnings = append(out.Warnings, w) // a failure is its plugin's row
		}
	}
	for _, ev := range plugin.HookEvents() {
		out.Lifecycle = append(out.Lifecycle, a.Hooks.Handlers(ev)...)
	}
	for _, p := range a.Plugins.Plugins {
		info := pluginInfo{ID: p.ID, Source: p.Source, Spec: p.Spec, Path: p.Path, Hooks: p.Hooks, Tools: []string{},
			BootMs: p.Boot.Milliseconds(), Status: p.Status(), UnknownKeys: p.UnknownKeys}
		if info.Hooks == nil {
			info.Hooks = []string{}
		}
		// Only the tools in effect: one refused (a protected id) or
		// replaced by a later plugin is not the plugin's.
		for _, t := range p.Tools {
			if d, ok := a.Tools.Get(t.ID); ok && d == t {
				info.Tools = append(info.Tools, t.ID)
			}
		}
		for _, k := range p.UnknownKeys {
			out.Warnings = append(out.Warnings, fmt.Sprintf("plugin %s: %q is not a hook and is never called; did you mean %q?", p.ID, k.Key, k.Closest))
		}
		out.Plugins = append(out.Plugins, info)
	}
	for _, f := range a.Plugins.Failed {
		status := "failed: " + f.Reason
		if f.Error != "" {
			status += ": " + f.Error
		}
		path := f.Path
		if path == "" {
			path = "named at " + f.Where
		}
		out.Plugins = append(out.Plugins, pluginInfo{ID: f.Plugin, Source: f.Source, Spec: f.Plugin, Path: path, Hooks: []string{}, Tools: []string{},
			Status: status, Stack: f.Stack})
	}
	return out
}

// failedPlugins is the error of a report with plugins that did not load
// (exit status 3), nil for none.
func (r pluginReport) failedPlugins() error {
	var failed []string
	for _, p := range r.Plugins {
		if strings.HasPrefix(p.Status, "failed: ") {
			failed = append(failed, p.ID)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return problems("%d of %d plugins did not load: %s", len(failed), len(r.Plugins), strings.Join(failed, ", "))
}

// bootForReport boots as plugin list and plugin check do: every warning
// of the boot collected (listed, not logged), the trust gate's refusals
// left to the list of skipped code.
func bootForReport(cmd *cobra.Command, fn func(a *app.App, logged []string) error) error {
	var next slog.Handler
	if bootOptions.Logger != nil {
		next = bootOptions.Logger.Handler()
	}
	warns := newWarnCollector(next)
	o := bootOptions
	o.Logger, o.TrustLog = slog.New(warns), slog.New(slog.DiscardHandler)
	return bootedWith(cmdContext(cmd), o, func(a *app.App) error { return fn(a, warns.Lines()) })
}

func newPluginListCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the loaded plugins in pipeline order, every lifecycle handler, the project code that does not run, and the load warnings",
		Long: `Lists the plugins in pipeline order (then those that did not load, with their
error and where they threw), every lifecycle handler in dispatch order, the MCP
servers, the Claude Code commands, agents and skills, the project code that does
not run, and every warning of the boot. The exit status is 3 when a plugin did
not load.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return bootForReport(cmd, func(a *app.App, logged []string) error {
				out := newPluginReport(a, logged)
				if asJSON {
					if err := printJSON(cmd.OutOrStdout(), out); err != nil {
						return err
					}
					return out.failedPlugins()
				}
				w := cmd.OutOrStdout()
				tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tSOURCE\tSTATUS\tHOOKS\tTOOLS\tPATH")
				for _, p := range out.Plugins {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", safetext.Line(p.ID), safetext.Line(orDash(nonEmpty(p.Source))), safetext.Line(p.Status), safetext.Line(orDash(p.Hooks)), safetext.Line(orDash(p.Tools)), safetext.Line(p.Path))
				}
				tw.Flush()
				printStacks(w, out.Plugins, false)
				if len(out.Lifecycle) > 0 {
					fmt.Fprintln(w, "\nLifecycle handlers, in dispatch order:")
					tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
					fmt.Fprintln(tw, "EVENT\tMATCHER\tLAYER\tSOURCE")
					for _, h := range out.Lifecycle {
						source := h.Source
						if h.FailClosed {
							source += " (fail-closed)"
						}
						if h.LeftOut {
							source += " (left out: more than 10 handlers)"
						}
						fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", h.Event, safetext.Line(orDash(nonEmpty(h.Matcher))), h.Layer, safetext.Line(source))
					}
					tw.Flush()
				}
				if len(out.MCP) > 0 {
					fmt.Fprintln(w, "\nMCP servers:")
					printMCPServers(w, out.MCP)
				}
				if len(out.Claude) > 0 {
					fmt.Fprintln(w, "\nClaude Code commands, agents and skills:")
					tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
					fmt.Fprintln(tw, "KIND\tNAME\tSOURCE\tFILE")
					for _, c := range out.Claude {
						fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", c.Kind, safetext.Line(c.Name), safetext.Line(c.Source), safetext.Line(c.File))
					}
					tw.Flush()
				}
				if len(out.Skipped) > 0 {
					fmt.Fprintln(w)
					printSkipped(w, a)
				}
				for _, warning := range out.Warnings {
					if !saidBySkipped(a, warning) {
						fmt.Fprintln(w, "warning:", safetext.Line(warning))
					}
				}
				return out.failedPlugins()
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

// printStacks writes each plugin that did not load with its error and
// where it threw, a frame a line; with all false, only those that threw
// (under plugin list's table, which has the others' errors already).
func printStacks(w io.Writer, plugins []pluginInfo, all bool) {
	for _, p := range plugins {
		if !strings.HasPrefix(p.Status, "failed: ") || !all && len(p.Stack) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n%s %s\n", safetext.Line(p.ID), safetext.Line(p.Status))
		for _, f := range p.Stack {
			fmt.Fprintln(w, "    "+safetext.Line(f))
		}
	}
}

func newPluginCheckCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "check",
		Short: "Load the plugins and say what is wrong with them: exit status 3 when anything is",
		Long: `Loads the plugins as the server would and prints only what is wrong, for a plugin
author or CI: a plugin that did not load (its error and where it threw), a key of
a plugin's hooks that is no hook (with the closest one: "tool.before" is never
called; did you mean "tool.execute.before"?), a lifecycle key that is no event,
and every other warning of the boot (a Claude Code command that does not parse,
an MCP server that cannot start, an unknown config key). The exit status is 0
with nothing to say, 3 otherwise. The server loads a plugin with an unknown key
all the same (its other hooks run): the check is where the mistake shows.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return bootForReport(cmd, func(a *app.App, logged []string) error {
				out := newPluginReport(a, logged)
				w := cmd.OutOrStdout()
				printStacks(w, out.Plugins, true)
				var n int
				for _, p := range out.Plugins {
					if strings.HasPrefix(p.Status, "failed: ") {
						n++
					}
				}
				for _, s := range out.Skipped {
					fmt.Fprintf(w, "not checked: %s %s (%s): run `podcode trust` to load it\n", s.Kind, safetext.Line(s.Name), s.State)
					n++
				}
				for _, warning := range out.Warnings {
					if !saidBySkipped(a, warning) {
						fmt.Fprintln(w, "warning:", safetext.Line(warning))
						n++
					}
				}
				if n > 0 {
					return problems("%s in %s", plural(n, "problem"), plural(len(out.Plugins), "plugin"))
				}
				fmt.Fprintf(w, "ok: %s, %s, %d Claude Code commands, agents and skills; nothing to say\n",
					plural(len(out.Plugins), "plugin"), plural(len(out.Lifecycle), "lifecycle handler"), len(out.Claude))
				return nil
			})
		},
	}
}

// claudeComponent is a command, agent or skill as plugin list shows it.
type claudeComponent struct {
	Kind        string `json:"kind"` // command, agent, skill
	Name        string `json:"name"`
	Source      string `json:"source"` // user, project, plugin <key>
	File        string `json:"file"`
	Description string `json:"description"`
}

func claudeComponents(c *claudecode.Catalog) []claudeComponent {
	out := []claudeComponent{}
	for _, n := range c.Commands() {
		out = append(out, claudeComponent{"command", n.Name, n.Value.Source.Label, n.Value.File, n.Value.Description})
	}
	for _, n := range c.Agents() {
		out = append(out, claudeComponent{"agent", n.Name, n.Value.Source.Label, n.Value.File, n.Value.Description})
	}
	for _, n := range c.Skills() {
		out = append(out, claudeComponent{"skill", n.Name, n.Value.Source.Label, n.Value.File, n.Value.Description})
	}
	return out
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

func orDash(s []string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, ",")
}

var pluginName = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

func newPluginInitCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "init <name>",
		Short: "Write a starter TypeScript plugin to .podcode/plugins/<name>.ts, with its types and tsconfig.json",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := args[0]
			if !pluginName.MatchString(name) {
				return fmt.Errorf("plugin name %q: use lower-case letters, digits, '.', '_' and '-'", name)
			}
			dir := filepath.Join(".podcode", "plugins")
			file := filepath.Join(dir, name+".ts")
			if _, err := os.Stat(file); err == nil {
				return fmt.Errorf("%s already exists", file)
			} else if !errors.Is(err, os.ErrNotExist) {
				return err
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			// The declarations follow this Podcode; a tsconfig.json already
			// there is the user's and stays as it is.
			types := filepath.Join(".podcode", jsplugin.TypesFile)
			if err := os.WriteFile(types, []byte(jsplugin.Types), 0o644); err != nil {
				return err
			}
			tsconfig := filepath.Join(".podcode", jsplugin.TSConfigFile)
			wroteTSConfig := false
			if _, err := os.Stat(tsconfig); errors.Is(err, os.ErrNotExist) {
				if err := os.WriteFile(tsconfig, []byte(jsplugin.TSConfig), 0o644); err != nil {
					return err
				}
				wroteTSConfig = true
			} else if err != nil {
				return err
			}
			if err := os.WriteFile(file, []byte(jsplugin.Starter(name)), 0o644); err != nil {
				return err
			}
			// The user asked for this file: trust it as written, so that
			// it loads; any edit needs `podcode trust` again.
			if err := trustNew(cmd, filepath.ToSlash(file)); err != nil {
				return err
			}
			wrote := file + " and " + types
			if wroteTSConfig {
				wrote = file + ", " + types + " and " + tsconfig
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (trusted as written; after editing it, run `podcode trust`)\nrun `podcode plugin list` to see it load; `npx tsc -p .podcode` to type-check it\n", wrote)
			return nil
		},
	}
}

// trustNew records the trust of the project plugin named name (as the
// trust gate names it), surveying the project without running it.
func trustNew(cmd *cobra.Command, name string) error {
	return surveyed(cmd, func(a *app.App) error {
		for _, it := range a.Trust.Asked() {
			if it.Kind == trust.KindPlugin && it.Name == name {
				return a.Trust.Store.Record(a.Cwd, []trust.Item{it.Item})
			}
		}
		return fmt.Errorf("%s was written but is not loadable; run `podcode plugin list` to see why", name)
	})
}

func newPluginTypesCmd() *cobra.Command {
	var tsconfig bool
	cmd := &cobra.Command{
		Use:   "types",
		Short: "Print the TypeScript declarations of the plugin API (or, with --tsconfig, the tsconfig.json `plugin init` writes)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			text := jsplugin.Types
			if tsconfig {
				text = jsplugin.TSConfig
			}
			_, err := fmt.Fprint(cmd.OutOrStdout(), text)
			return err
		},
	}
	cmd.Flags().BoolVar(&tsconfig, "tsconfig", false, "print the tsconfig.json for .podcode instead: no DOM, no @types/node, bundler resolution")
	return cmd
}
