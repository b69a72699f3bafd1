package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/version"
)

func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	bootOptions = app.Options{} // flags of an earlier run do not carry over
	root := newRoot()
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestVersion(t *testing.T) {
	out, err := run(t, "version")
	if err != nil {
		t.Fatal(err)
	}
	want := "podcode " + version.App() + " (plugin runtime " + version.PluginRuntime + ", go"
	if !strings.HasPrefix(out, want) {
		t.Errorf("version printed %q, want prefix %q", out, want)
	}
	if _, err := run(t, "version", "extra"); err == nil {
		t.Error("version accepted an argument")
	}
	if _, err := run(t, "nonsense"); err == nil || !strings.Contains(err.Error(), "nonsense") {
		t.Errorf("unknown command: %v", err)
	}
}
