package cli

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/safetext"
	"github.com/podcode/podcode/internal/trust"
)

func newTrustCmd() *cobra.Command {
	var yes, asJSON, all, files bool
	cmd := &cobra.Command{
		Use:   "trust [path...]",
		Short: "Show the code this project would run and trust it",
		Long: `trust lists every piece of code that came with the project in the current
directory (plugins in .podcode/plugins or named by its podcode.json, manifest
plugins and the programs they run, .claude/settings.json hooks and their
scripts, with what those source, include or run in turn, or the whole
directory a command runs in where that cannot be known, and the settings of its podcode.json that run code or use your
credentials: a replay, request options, models, cron jobs, webhooks), with
whether it is trusted. What is trusted already is not listed (--all lists it).
A package (a plugin folder with a package.json, or more than a few files) is
one line with its file count (--files lists every file). An item changed since
it was trusted shows which files were added, removed or changed, when
podcode trust recorded them (it keeps a digest of each file it trusts; for an
item trusted otherwise it can only say that the item changed). A guard you
trusted that the project has since removed or weakened (no longer
fail-closed, another matcher, made async, its entry, file or folder gone) is
marked with a "!": trusting gives it up. Confirmed (or with --yes), it
records their fingerprints and guards in the user's config folder: they run
from then on, until their content changes. Nothing of it that is not trusted
runs while it is listed (what was trusted before loads, as with any command).

With paths (podcode trust .podcode/plugins/x.ts), only the items of those
names, or that run those files, are listed and trusted.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// Nothing untrusted runs while the project is surveyed.
			return surveyed(cmd, func(a *app.App) error {
				asked, err := selectItems(a.Cwd, a.Trust.Asked(), args)
				if err != nil {
					return err
				}
				out := cmd.OutOrStdout()
				if asJSON && !yes {
					return printJSON(out, map[string]any{"project": a.Cwd, "items": orEmpty(asked)})
				}
				if len(asked) == 0 {
					fmt.Fprintf(out, "%s brings no code of its own: nothing to trust\n", a.Cwd)
					return nil
				}
				digests, derr := openDigests()
				if derr != nil {
					a.Log.Warn("trust: the digests of trusted files are not read", "error", derr.Error())
				}
				var todo []trust.Item
				var forget []string
				lost, quiet := 0, 0
				fmt.Fprintf(out, "Code in %s:\n", a.Cwd)
				for _, it := range asked {
					if it.State == trust.Trusted && !it.Missing && len(it.Lost) == 0 && !all {
						quiet++
						continue
					}
					state := string(it.State)
					if it.Missing {
						state = "removed since it was trusted, or no longer loads"
					}
					fs, cmds := splitRuns(it.Runs)
					if isPackage(a.Cwd, it.Item, fs) && !files {
						fmt.Fprintf(out, "\n  %s %s (%s): %s\n", it.Kind, safetext.Line(it.Name), state, plural(len(fs), "file"))
						fs = nil
					} else {
						fmt.Fprintf(out, "\n  %s %s (%s)\n", it.Kind, safetext.Line(it.Name), state)
					}
					if it.State == trust.Changed && !it.Missing {
						printChanges(out, digests.diff(a.Cwd, it.Item))
					}
					for _, r := range append(fs, cmds...) {
						fmt.Fprintf(out, "      %s\n", safetext.Line(r))
						if it.Kind == trust.KindConfig {
							// What trusting this setting of podcode.json allows.
							if key, _, ok := strings.Cut(r, " = "); ok {
								if row, ok := config.Describe(key); ok {
									fmt.Fprintf(out, "          (%s)\n", row.Why)
								}
							}
						}
					}
					printLostGuards(out, it)
					lost += len(it.Lost)
					switch {
					case it.Missing:
						forget = append(forget, it.Key())
					case it.State != trust.Trusted:
						todo = append(todo, it.Item)
					}
				}
				if quiet > 0 {
					fmt.Fprintf(out, "\n%s trusted already, not listed (--all lists them).\n", plural(quiet, "item"))
				}
				if len(todo) == 0 && len(forget) == 0 {
					fmt.Fprintln(out, "\nAll of it is trusted.")
					return nil
				}
				question := fmt.Sprintf("Trust these %d and let them run", len(todo))
				if len(todo) == 0 {
					question = "Accept these removals"
				}
				if lost > 0 {
					question += fmt.Sprintf(", giving up %s marked ! above", plural(lost, "guard"))
				}
				if !yes && !confirm(cmd.InOrStdin(), out, "\n"+question+"? [y/N] ") {
					return fmt.Errorf("not trusted; nothing recorded")
				}
				if err := a.Trust.Store.Update(a.Cwd, todo, forget); err != nil {
					return err
				}
				if digests != nil {
					// Only for the next diff: a failure loses no trust.
					if err := digests.record(a.Cwd, todo, forget); err != nil {
						a.Log.Warn("trust: the digests of trusted files are not written", "error", err.Error())
					}
				}
				if lost > 0 {
					fmt.Fprintf(out, "Gave up %s you had trusted.\n", plural(lost, "guard"))
				}
				if len(todo) == 0 {
					return nil
				}
				fmt.Fprintf(out, "Trusted %d; they run from the next start until their content changes.\n", len(todo))
				return nil
			})
		},
	}
	cmd.Flags().BoolVarP(&yes, "yes", "y", false, "trust without asking")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print what would run as JSON and record nothing")
	cmd.Flags().BoolVar(&all, "all", false, "list what is trusted already too")
	cmd.Flags().BoolVar(&files, "files", false, "list every file of a package")
	return cmd
}

// printLostGuards writes, under an item `podcode trust` lists, each guard
// the user trusted that trusting the item as it is now gives up (removed,
// or weakened: no longer fail-closed, another matcher, made async, its
// entry, file or folder gone), and what the item declares now.
func printLostGuards(w io.Writer, it trust.Asked) {
	if len(it.Lost) == 0 {
		return
	}
	why := "this content no longer declares it as you trusted it"
	if it.Missing {
		why = "the project no longer has it"
	}
	for _, g := range it.Lost {
		fmt.Fprintf(w, "      ! trusting this gives up the guard %s (%s): %s\n", safetext.Line(g.Source), safetext.Line(g.Describe()), why)
	}
	if it.Missing {
		return
	}
	now := "none"
	if len(it.Declared) > 0 {
		var ds []string
		for _, g := range it.Declared {
			ds = append(ds, g.Source+" ("+g.Describe()+")")
		}
		now = strings.Join(ds, "; ")
	}
	fmt.Fprintf(w, "      guards it declares now: %s\n", safetext.Line(now))
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// printSkipped writes, for a person, the project code that does not run
// and what that means (skipped, or denying what its guards match), each
// with how to make it run; nothing when all of it runs.
func printSkipped(w io.Writer, a *app.App) {
	skipped := a.Trust.Skipped()
	if len(skipped) == 0 {
		return
	}
	fmt.Fprintln(w, "Project code that does not run:")
	for _, s := range skipped {
		fmt.Fprintf(w, "  %s %s (%s): %s\n", s.Kind, safetext.Line(s.Name), s.State, safetext.Line(s.Meaning))
	}
}

func confirm(in io.Reader, out io.Writer, prompt string) bool {
	fmt.Fprint(out, prompt)
	line, _ := bufio.NewReader(in).ReadString('\n')
	a := strings.ToLower(strings.TrimSpace(line))
	return a == "y" || a == "yes"
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
