package cli

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
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
		Long: `Lists the code that came with the project in the current directory, and asks
whether to let it run. Nothing of it runs before you say yes, and nothing of it
runs while it is listed.

What counts as code: plugins (.podcode/plugins, or named by podcode.json),
manifest plugins and the programs they run, Claude Code hooks, commands,
agents and skills (.claude, and the Claude Code plugins the project names) with
the scripts they run and what those source, MCP servers of .mcp.json, and the
settings of podcode.json that run code or use your credentials.

Each item says whether it is trusted; what is trusted already is left out
(--all lists it). A package is one line with its file count (--files lists
every file). An item changed since you trusted it says which files changed.
A guard you trusted that the project has removed or weakened is marked "!":
trusting the item as it is gives it up.

The question counts the files to review (npm packages' files apart). Answer
y to trust, n to leave it, s to see the files first. Once trusted, an item
runs until its content changes.

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
				review, packaged, more := reviewFiles(a.Cwd, todo)
				question := fmt.Sprintf("Let %s run? It can do what you can: run commands, read and change your files", plural(len(todo), "item"))
				if n := len(review); n > 0 {
					count := plural(n, "file")
					if more {
						count = "more than " + count // --files lists them all
					}
					question = fmt.Sprintf("Let %s (%s to review", plural(len(todo), "item"), count)
					if packaged > 0 {
						question += fmt.Sprintf(", and %s of npm packages", plural(packaged, "file"))
					}
					question += ") run? It can do what you can: run commands, read and change your files"
				}
				if len(todo) == 0 {
					question = "Accept these removals"
				}
				if lost > 0 {
					question += fmt.Sprintf(". Trusting it gives up %s marked ! above", plural(lost, "guard"))
				}
				if !yes && !ask(cmd.InOrStdin(), out, "\n"+question+".", a.Cwd, review) {
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

// ask puts question, and takes y (yes) or n (no, or nothing); s shows the
// files to review (the start of each), then asks again.
func ask(in io.Reader, out io.Writer, question, project string, review []string) bool {
	r := bufio.NewReader(in)
	for {
		if len(review) > 0 {
			fmt.Fprint(out, question+" [y]es, [n]o, [s]how the files: ")
		} else {
			fmt.Fprint(out, question+" [y/N] ")
		}
		line, err := r.ReadString('\n')
		switch a := strings.ToLower(strings.TrimSpace(line)); {
		case a == "y" || a == "yes":
			return true
		case (a == "s" || a == "show") && len(review) > 0:
			showFiles(out, project, review)
		default:
			return false
		}
		if err != nil {
			return false
		}
	}
}

// showLines is how much of each file ask shows.
const showLines = 200

// showFiles writes the start of each file, its control characters shown
// escaped.
func showFiles(out io.Writer, project string, files []string) {
	for _, f := range files {
		p := f
		if !filepath.IsAbs(p) {
			p = filepath.Join(project, p)
		}
		fmt.Fprintf(out, "\n==> %s <==\n", safetext.Line(f))
		data, err := head(p, 256<<10)
		if err != nil {
			fmt.Fprintf(out, "(%s)\n", safetext.Line(err.Error()))
			continue
		}
		lines := strings.Split(string(data), "\n")
		if len(lines) > showLines {
			fmt.Fprintln(out, safetext.Text(strings.Join(lines[:showLines], "\n")))
			fmt.Fprintf(out, "… %d more lines\n", len(lines)-showLines)
			continue
		}
		fmt.Fprint(out, safetext.Text(string(data)))
	}
	fmt.Fprintln(out)
}

// head is the first n bytes of the regular file p (opened as trust opens
// files: never a FIFO or a device).
func head(p string, n int64) ([]byte, error) {
	f, err := trust.OpenRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, n))
}

// reviewFiles are the files of items a person would review, each once,
// and how many more are npm packages' (node_modules), which nobody reads.
// An item's entries that are not a file (a note, a setting) are not counted.
func reviewFiles(project string, items []trust.Item) (review []string, packaged int, more bool) {
	seen := map[string]bool{}
	for _, it := range items {
		fs, _ := splitRuns(it.Runs)
		for _, r := range it.Runs {
			more = more || strings.HasPrefix(r, "... and ") // a folder past the names an item lists
		}
		for _, f := range fs {
			p := f
			if !filepath.IsAbs(p) {
				p = filepath.Join(project, p)
			}
			if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() || seen[f] {
				continue
			}
			seen[f] = true
			if strings.Contains(filepath.ToSlash(f), "node_modules/") {
				packaged++
				continue
			}
			review = append(review, f)
		}
	}
	return review, packaged, more
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
