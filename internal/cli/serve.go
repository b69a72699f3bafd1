package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/server"
	"github.com/podcode/podcode/internal/webhook"
)

func newServeCmd() *cobra.Command {
	var addr, data string
	cmd := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:4096]",
		Short: "Serve the HTTP API in the current directory",
		Long: `Serves the HTTP API (see /openapi.json). Loopback by default; any other address
needs an API token (PODCODE_API_TOKEN, or server.token in the user's config), sent as
Authorization: Bearer on every request; server.tokens in the user's config give
tenants their own tokens. Clients are held to timeouts and connection caps
(server.*_timeout_ms, server.max_conns, server.max_unauthenticated_conns in the
user's config); an /events client that stops reading is disconnected and can
resume with Last-Event-ID. The config's webhooks are served at POST /webhooks/{name}
(signed, no token) and its cron jobs run while the server does. SIGTERM and Ctrl-C
stop it gracefully: cron stops, running turns are cancelled and marked interrupted,
then the database is closed.

Each tenant works in a directory of its own under the data directory (tenants/<id>),
never in the project, and its bash commands run in the operating system's sandbox
(Landlock): its workspace read-write, system directories read-only, no network unless
tools.sandbox_network. The default tenant works in the project; tools.sandbox
sandboxes it too.

PODCODE_CPUPROFILE=<file> writes a CPU profile of the server's whole life, boot
included, for go tool pprof, when it stops gracefully (SIGTERM, Ctrl-C).

` + dataHelp,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmdContext(cmd), os.Interrupt, syscall.SIGTERM)
			defer stop()
			stopProfile, err := startCPUProfile(os.Getenv("PODCODE_CPUPROFILE"))
			if err != nil {
				return err
			}
			// Deferred before the boot, so the profile covers it and is
			// written after the graceful stop (SIGTERM, Ctrl-C); kill -9
			// leaves no profile.
			defer stopProfile()
			return bootedWith(ctx, withData(data), func(a *app.App) error {
				token := os.Getenv("PODCODE_API_TOKEN")
				if token == "" {
					var err error
					if token, err = server.ExpandToken(a.Config.Server.Token); err != nil {
						return err
					}
				}
				if addr == "" {
					addr = a.Config.Server.Addr
				}
				if addr == "" {
					addr = server.DefaultAddr
				}
				tokens, err := server.ExpandTokens(token, a.Config.Server.Tokens)
				if err != nil {
					return err
				}
				if err := server.CheckAddr(addr, token != "" || len(tokens) > 0); err != nil {
					return err
				}
				logSandbox(a, len(tokens) > 0)
				ag, release, err := startAgent(ctx, a, "serve")
				if err != nil {
					return err
				}
				defer release()
				srv := server.New(ag, token, tokens...)
				if err := srv.EnableWebhooks(a.Config.Webhooks, webhook.Options{}); err != nil {
					return err
				}
				sched, err := srv.StartCron(ctx, a.Config.Cron, nil)
				if err != nil {
					return err
				}
				defer sched.Stop()
				ln, err := net.Listen("tcp", addr)
				if err != nil {
					return err
				}
				// Timeouts and connection caps: server.* in the user's config.
				hs, ln := srv.HTTP(ln, server.LimitsFrom(a.Config.Server))
				printSkipped(cmd.ErrOrStderr(), a) // where the person who started it looks
				printModelChoice(cmd.ErrOrStderr(), a)
				fmt.Fprintf(cmd.ErrOrStderr(), "podcode serving on http://%s\n", ln.Addr())
				a.Log.Info("server: listening", "addr", ln.Addr().String(), "plugins", len(a.Plugins.Plugins))
				errc := make(chan error, 1)
				go func() { errc <- hs.Serve(ln) }()
				select {
				case err := <-errc:
					return err
				case <-ctx.Done():
				}
				a.Log.Info("server: stopping: cancelling running turns")
				sched.Stop()
				shut, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				// Turns first: new ones are refused from here on, so none
				// can start between the cancelling and the end.
				if err := srv.Shutdown(shut); err != nil {
					a.Log.Warn("server: stopping", "error", err.Error())
				}
				if err := hs.Shutdown(shut); err != nil && !errors.Is(err, context.DeadlineExceeded) {
					return err
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&addr, "addr", "", "the address to listen on (default 127.0.0.1:4096, or server.addr)")
	dataFlag(cmd, &data)
	return cmd
}

// startCPUProfile starts a CPU profile into path (PODCODE_CPUPROFILE) for
// go tool pprof; "" profiles nothing. The returned func stops it and
// closes the file.
func startCPUProfile(path string) (stop func(), err error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("PODCODE_CPUPROFILE: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("PODCODE_CPUPROFILE %s: %w", path, err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}
