package cli

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/mcpclient"
	"github.com/podcode/podcode/internal/safetext"
)

func init() { mcpCommands = append(mcpCommands, newMCPAuthCmd, newMCPLogoutCmd) }

func newMCPAuthCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "auth <server>",
		Short: "Sign Podcode in to a remote MCP server that asks for OAuth",
		Long: `Signs Podcode in to the remote MCP server of that name (podcode.json's mcp, or the
project's .mcp.json once trusted), with OAuth 2.1: the authorization URL is opened with the
command $BROWSER names, and printed; once you have authorized Podcode in the browser, the
token is kept in your data folder ($XDG_DATA_HOME/podcode/mcp-auth, one file per server,
readable by you only), refreshed when it expires, and every Podcode you run uses it.

A server that asks for authorization starts the same login by itself the first times it
does; this command starts one whatever happened before (a login nobody answered, a token the
server refuses), and waits for it (at most 5 minutes, or Ctrl-C). A server that is ready is
left as it is: podcode mcp logout forgets its token, to sign in again.
`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, stop := signal.NotifyContext(cmdContext(cmd), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return bootedWith(ctx, bootOptions, func(a *app.App) error {
				s, err := mcpServerNamed(a, args[0])
				if err != nil {
					return err
				}
				if s.Status().State == mcpclient.StateReady {
					// Signed in while Podcode started (the server asked), or
					// no need to.
					fmt.Fprintf(cmd.OutOrStdout(), "%s is ready: no need to sign in (podcode mcp logout %s forgets its token).\n", safetext.Line(args[0]), safetext.Line(args[0]))
					printMCPServers(cmd.OutOrStdout(), []mcpclient.Status{s.Status()})
					return nil
				}
				err = s.Login(ctx, func(u string) {
					fmt.Fprintf(cmd.ErrOrStderr(), "Open this URL in a browser to authorize Podcode to use %s:\n\n  %s\n\n", safetext.Line(args[0]), safetext.Line(u))
				})
				if err != nil {
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "Signed in to %s.\n", safetext.Line(args[0]))
				// The server starts again with the token: say how it went.
				deadline := time.Now().Add(10 * time.Second)
				for s.Status().State != mcpclient.StateReady && time.Now().Before(deadline) && ctx.Err() == nil {
					time.Sleep(50 * time.Millisecond)
				}
				printMCPServers(cmd.OutOrStdout(), []mcpclient.Status{s.Status()})
				return nil
			})
		},
	}
}

func newMCPLogoutCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "logout <server>",
		Short: "Forget the OAuth token Podcode keeps for a remote MCP server",
		Long: `Deletes the OAuth token (and the refresh token, and the client registered for it) that
Podcode keeps for the remote MCP server of that name in your data folder. The server's next
request for authorization signs in again. Nothing is started.
`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cwd, err := os.Getwd()
			if err != nil {
				return err
			}
			userDir := bootOptions.UserDir
			if userDir == "" {
				if userDir, err = config.UserDir(); err != nil {
					return err
				}
			}
			cfg, err := config.LoadFrom(cwd, userDir)
			if err != nil {
				return err
			}
			specs, _, err := mcpclient.Specs(cfg, cwd)
			if err != nil {
				return err
			}
			i := slices.IndexFunc(specs, func(s mcpclient.Spec) bool { return s.Name == args[0] })
			if i < 0 {
				return usageError(fmt.Errorf("no MCP server %q (%s)", args[0], serverNames(specs)))
			}
			path, err := mcpclient.TokenFile(specs[i], cwd)
			if err != nil {
				return err
			}
			switch err := os.Remove(path); {
			case errors.Is(err, os.ErrNotExist):
				fmt.Fprintf(cmd.OutOrStdout(), "No token kept for %s.\n", safetext.Line(args[0]))
			case err != nil:
				return err
			default:
				fmt.Fprintf(cmd.OutOrStdout(), "Forgot the token kept for %s.\n", safetext.Line(args[0]))
			}
			return nil
		},
	}
}

// mcpServerNamed is the running server of that name.
func mcpServerNamed(a *app.App, name string) (*mcpclient.Server, error) {
	var specs []mcpclient.Spec
	for _, s := range a.MCP.Servers() {
		if s.Name() == name {
			return s, nil
		}
		specs = append(specs, mcpclient.Spec{Name: s.Name()})
	}
	return nil, usageError(fmt.Errorf("no MCP server %q (%s)", name, serverNames(specs)))
}

func serverNames(specs []mcpclient.Spec) string {
	if len(specs) == 0 {
		return "none is declared"
	}
	var names []string
	for _, s := range specs {
		names = append(names, safetext.Line(s.Name))
	}
	return "known: " + strings.Join(names, ", ")
}
