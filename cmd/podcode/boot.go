package main

import (
	"context"
	"encoding/json"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/podcode/podcode/internal/app"
)

// booted boots Podcode in the current directory exactly as the server
// does, runs fn, and stops the plugins.
func booted(cmd *cobra.Command, fn func(a *app.App) error) error {
	cwd, err := os.Getwd()
	if err != nil {
		return err
	}
	a, err := app.Boot(cmdContext(cmd), cwd, app.Options{})
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

// printJSON writes v to w as indented JSON.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
