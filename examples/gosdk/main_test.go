package main

import (
	"bytes"
	"context"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// The example's output is its documentation: keep it in a golden file.
// Regenerate with: go test ./examples/gosdk -update
func TestGoSDKExample(t *testing.T) {
	var out, logs bytes.Buffer
	if err := run(context.Background(), &out, slog.New(slog.NewTextHandler(&logs, nil))); err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "output.golden")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	// Handler columns end in spaces for abstentions; compare line by line, trimmed.
	got, exp := lines(out.String()), lines(string(want))
	if strings.Join(got, "\n") != strings.Join(exp, "\n") {
		t.Errorf("output differs from %s:\n%s", golden, out.String())
	}
	for _, want := range []string{`msg="hook fired" event=PreToolUse session_id=ses_demo channel=cli tool_name=bash`, `level=WARN msg="plugin: hook handler failed"`, "source=bash-guard"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("logs lack %q:\n%s", want, logs.String())
		}
	}
}

func lines(s string) []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		out = append(out, strings.TrimRight(l, " "))
	}
	return out
}
