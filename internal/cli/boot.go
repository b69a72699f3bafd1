package cli

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"

	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/opencodeapi"
)

// booted boots Podcode in the current directory exactly as the server
// does, runs fn, and stops the plugins.
func booted(cmd *cobra.Command, fn func(a *app.App) error) error {
	return bootedCtx(cmdContext(cmd), fn)
}

// bootedCtx is booted with a context of the caller's.
func bootedCtx(ctx context.Context, fn func(a *app.App) error) error {
	return bootedWith(ctx, bootOptions, fn)
}

// surveyed is booted without running any untrusted project code and
// without the trust gate's warnings: the gate refuses such code quietly and
// remembers what it was asked (a.Trust.Asked).
func surveyed(cmd *cobra.Command, fn func(a *app.App) error) error {
	o := bootOptions
	o.TrustAll, o.TrustLog = false, slog.New(slog.DiscardHandler)
	return bootedWith(cmdContext(cmd), o, fn)
}

// bootedWith is bootedCtx with other options.
func bootedWith(ctx context.Context, o app.Options, fn func(a *app.App) error) error {
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	if o.PluginAPI == nil {
		o.PluginAPI = func(a *app.App) http.Handler { return opencodeapi.New(a, nil) }
	}
	a, err := app.Boot(ctx, cwd, o)
	if err != nil {
		return err
	}
	defer a.Close()
	return fn(a)
}

func cmdContext(cmd *cobra.Command) context.Context {
	if ctx := cmd.Context(); ctx != nil {
		return ctx
	}
	return context.Background()
}

// bootOptions are the options every command boots with; an embedding
// program adds its lifecycle handlers here (see the podcode package).
var bootOptions app.Options

// printJSON writes v to w as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
