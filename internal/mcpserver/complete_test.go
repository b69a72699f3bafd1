package mcpserver

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func completion(t testing.TB, cs *mcp.ClientSession, ref *mcp.CompleteReference, name, value string) (mcp.CompletionResultDetails, error) {
	t.Helper()
	res, err := cs.Complete(context.Background(), &mcp.CompleteParams{Ref: ref, Argument: mcp.CompleteParamsArgument{Name: name, Value: value}})
	if err != nil {
		return mcp.CompletionResultDetails{}, err
	}
	return res.Completion, nil
}

// A prompt's argument is completed with its hint's alternatives, or the
// project's paths when it names a file; the template's path with the
// project's paths, at most 100 at a time.
func TestCompletion(t *testing.T) {
	a, _ := commandsProject(t, false)
	for i := range 150 {
		if err := os.WriteFile(filepath.Join(a.Cwd, "src", fmt.Sprintf("gen%03d.go", i)), []byte("package main\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(t.TempDir(), filepath.Join(a.Cwd, "outside")); err != nil {
		t.Fatal(err)
	}
	cs := dial(t, New(a), nil)
	bump := &mcp.CompleteReference{Type: "ref/prompt", Name: "bump"}
	tmpl := &mcp.CompleteReference{Type: "ref/resource", URI: projectTemplate(a.Cwd)}
	for _, tc := range []struct {
		ref         *mcp.CompleteReference
		name, value string
		want        []string
	}{
		{bump, "arg1", "", []string{"major", "minor", "patch"}},
		{bump, "arg1", "MI", []string{"minor"}},
		{bump, "file", "V", []string{"VERSION"}},
		{bump, "file", "sr", []string{"src/"}},
		{bump, "file", "src/ma", []string{"src/main.go"}},
		{bump, "file", ".cl", []string{".claude/"}},
		{bump, "file", "../", nil},
		{bump, "file", "outside/", nil},
		{&mcp.CompleteReference{Type: "ref/prompt", Name: "commit"}, "arguments", "fi", nil},
		{tmpl, "path", "src/m", []string{"src/main.go", "src/more.go"}},
		{tmpl, "path", "n", []string{"notes.txt"}},
	} {
		got, err := completion(t, cs, tc.ref, tc.name, tc.value)
		if err != nil || !slices.Equal(got.Values, tc.want) || got.HasMore || got.Values == nil {
			t.Errorf("%s %s %q: %+v, %v; want %q", tc.ref.Name+tc.ref.URI, tc.name, tc.value, got, err, tc.want)
		}
	}
	got, err := completion(t, cs, tmpl, "path", "src/")
	if err != nil || len(got.Values) != 100 || !got.HasMore || got.Total != 152 || got.Values[0] != "src/gen000.go" {
		t.Errorf("src/: %d values, hasMore %v, total %d, %v", len(got.Values), got.HasMore, got.Total, err)
	}
	for _, tc := range []struct {
		ref  *mcp.CompleteReference
		name string
	}{
		{&mcp.CompleteReference{Type: "ref/prompt", Name: "missing"}, "x"},
		{bump, "nope"},
		{&mcp.CompleteReference{Type: "ref/resource", URI: "file:///{+path}"}, "path"},
		{tmpl, "name"},
	} {
		if _, err := completion(t, cs, tc.ref, tc.name, ""); !isRPC(err, jsonrpc.CodeInvalidParams, "") {
			t.Errorf("%+v %s: %v", tc.ref, tc.name, err)
		}
	}
}
