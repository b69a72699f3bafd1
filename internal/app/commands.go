package app

import (
	"slices"
	"strings"
)

// Command is a slash command as every channel lists it (GET /commands,
// ACP's available_commands_update, the web page's and the terminal chat's
// completion).
type Command struct {
	Name         string // as typed after "/"
	Description  string
	ArgumentHint string
	// Source is where it is defined: "user", "project", "plugin <key>"
	// (Claude Code's layout), or "mcp:<server>" (an MCP server's prompt).
	Source string
}

// Commands lists the slash commands a prompt may invoke now, by name: the
// commands of Claude Code's layout (App.Claude), and the prompts of the MCP
// servers that are ready (App.MCPHub: /mcp__<server>__<prompt>), whose
// list changes as servers start, stop and say their prompts changed. A
// name both define is the Claude Code command's, which is what runs.
func (a *App) Commands() []Command {
	out := []Command{}
	taken := map[string]bool{}
	for _, c := range a.Claude.Commands() {
		out = append(out, Command{Name: c.Name, Description: c.Value.Description, ArgumentHint: c.Value.ArgumentHint, Source: c.Value.Source.Label})
		taken[c.Name] = true
	}
	for _, p := range a.MCPHub.Prompts() {
		if !taken[p.Command] {
			out = append(out, Command{Name: p.Command, Description: p.Description, ArgumentHint: p.ArgumentHint(), Source: "mcp:" + p.Server})
		}
	}
	slices.SortFunc(out, func(x, y Command) int { return strings.Compare(x.Name, y.Name) })
	return out
}
