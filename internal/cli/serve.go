package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/server"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/webhook"
)

func newServeCmd() *cobra.Command {
	var addr string
	cmd := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:4096]",
		Short: "Serve the HTTP API in the current directory",
		Long: `Serves the HTTP API (see /openapi.json). Loopback by default; any other address
needs an API token (PODCODE_API_TOKEN, or server.token in the config), sent as
Authorization: Bearer on every request; server.tokens in the user's config give
tenants their own tokens. The config's webhooks are served at POST /webhooks/{name}
(signed, no token) and its cron jobs run while the server does. SIGTERM and Ctrl-C
stop it gracefully: cron stops, running turns are cancelled and marked interrupted,
then the database is closed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, stop := signal.NotifyContext(cmdContext(cmd), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return bootedCtx(ctx, func(a *app.App) error {
				token := os.Getenv("PODCODE_API_TOKEN")
				if token == "" {
					token = a.Config.Server.Token
				}
				if addr == "" {
					addr = a.Config.Server.Addr
				}
				if addr == "" {
					addr = server.DefaultAddr
				}
				tokens, err := server.ExpandTokens(a.Config.Server.Tokens)
				if err != nil {
					return err
				}
				if err := server.CheckAddr(addr, token != "" || len(tokens) > 0); err != nil {
					return err
				}
				st, err := store.Open(ctx, filepath.Join(a.Cwd, DBFile))
				if err != nil {
					return err
				}
				defer st.Close()
				ag := agent.New(a, st)
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
				hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second}
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
	return cmd
}
