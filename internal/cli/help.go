package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// helpHint is the line that ends a usage error of command path.
func helpHint(path string) string {
	return fmt.Sprintf("Run '%s --help' for usage.", path)
}

// suggestHelp makes every usage error of root's commands (an unknown
// command, an unknown flag, wrong arguments) end with where the usage is
// (helpHint). A command that only groups others (podcode, plugin, tool,
// hook) prints its help when given nothing, and refuses an unknown
// subcommand, naming the closest ones, where cobra would print the help
// and succeed.
func suggestHelp(root *cobra.Command) {
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError(fmt.Errorf("%w\n%s", err, helpHint(c.CommandPath())))
	})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		switch {
		case c.HasSubCommands() && !c.Runnable():
			c.SuggestionsMinimumDistance = 2
			c.Args = cobra.ArbitraryArgs
			c.RunE = func(c *cobra.Command, args []string) error {
				if len(args) == 0 {
					return c.Help()
				}
				msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
				if s := c.SuggestionsFor(args[0]); len(s) > 0 {
					msg += " (did you mean " + strings.Join(s, " or ") + "?)"
				}
				return usageError(errors.New(msg + "\n" + helpHint(c.CommandPath())))
			}
		case c.Args != nil:
			check := c.Args
			c.Args = func(c *cobra.Command, args []string) error {
				if err := check(c, args); err != nil {
					return usageError(fmt.Errorf("%w\n%s", err, helpHint(c.CommandPath())))
				}
				return nil
			}
		}
	}
	walk(root)
}
