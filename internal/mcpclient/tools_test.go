package mcpclient

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/logtest"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/plugin"
)

// A server flooding notifications/tools/list_changed costs a list or two,
// not one each: one list runs at a time and at most one waits, and no
// goroutine is left waiting per notification.
func TestToolListChangedFloodListsAtMostTwiceInARow(t *testing.T) {
	spec, logFile := probe(t)
	_, reg, _ := start(t, spec)
	lists := func() int {
		return len(slices.DeleteFunc(events(t, logFile), func(e map[string]any) bool { return e["list"] != true }))
	}
	before := lists()
	base := runtime.NumGoroutine()
	// The probe holds the lists asked for meanwhile, and returns once the
	// client has handled every notification.
	const n = 10000
	if res, err := call(t, reg, "probe_flood", map[string]any{"n": n}); err != nil || res.Output != fmt.Sprintf("sent %d", n) {
		t.Fatalf("flood: %+v %v", res, err)
	}
	if g := runtime.NumGoroutine(); g > base+100 {
		t.Fatalf("%d goroutines once %d notifications were handled, %d before", g, n, base)
	}
	// A change after the flood: once the list that shows it is done, so
	// is every list the flood asked for (one list at a time).
	if _, err := call(t, reg, "probe_grow", nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, "probe_added registered", func() bool { _, ok := reg.Get("probe_added"); return ok })
	// The list under way when the flood began, the one pending after it,
	// the one after grow.
	if got := lists() - before; got > 3 {
		t.Fatalf("%d tools/list requests for %d notifications and one change", got, n)
	}
}

// fakeServer is a Server of name that registers in reg, without a process.
func fakeServer(name string, reg *tool.Registry, log *logtest.Logs) *Server {
	return &Server{spec: Spec{Name: name}, set: &Set{opts: Options{Tools: reg}},
		log: log.Logger().With("mcp_server", name), registered: map[string]string{}, sampling: make(chan struct{}, 1)}
}

// Two servers whose tools get the same ids ("gh" tool "x_1" and "gh_x"
// tool "1" are both gh_x_1), registering at once: each id is one server's,
// the registry's tool is that server's, and the other is told so.
func TestCollidingToolIDsGoToOneServer(t *testing.T) {
	const tools = 500
	var a, b []*sdk.Tool
	for i := range tools {
		a = append(a, &sdk.Tool{Name: fmt.Sprintf("x_%d", i)})
		b = append(b, &sdk.Tool{Name: fmt.Sprint(i)})
	}
	for round := range 100 {
		rec := &logtest.Logs{}
		reg := tool.NewRegistry(rec.Logger())
		gh, ghx := fakeServer("gh", reg, rec), fakeServer("gh_x", reg, rec)
		var wg sync.WaitGroup
		go1 := make(chan struct{})
		for _, c := range []struct {
			s     *Server
			tools []*sdk.Tool
		}{{gh, a}, {ghx, b}} {
			wg.Add(1)
			go func() { defer wg.Done(); <-go1; c.s.register(c.tools) }()
		}
		close(go1)
		wg.Wait()
		for i := range tools {
			id := fmt.Sprintf("gh_x_%d", i)
			d, ok := reg.Get(id)
			_, byGH := gh.registered[id]
			_, byGHX := ghx.registered[id]
			if !ok || byGH == byGHX || byGH != (d.Source == "mcp:gh") {
				t.Fatalf("round %d, %s: registered by gh %v, by gh_x %v; the registry's is %+v", round, id, byGH, byGHX, d)
			}
		}
		if n := rec.Count("has the id already and keeps it"); n != tools {
			t.Fatalf("round %d: %d warnings for %d ids taken", round, n, tools)
		}
		loser, winner := "mcp_server=gh_x", "held_by=mcp:gh"
		if _, byGHX := ghx.registered["gh_x_0"]; byGHX {
			loser, winner = "mcp_server=gh", "held_by=mcp:gh_x"
		}
		rec.Require(t, "has the id already and keeps it", "id=gh_x_0", loser, winner)
	}
}

// A server's tool whose id a built-in reserves is left out, as a plugin's
// is; a server listing its tools again replaces its own.
func TestServerToolsRespectReservedIDsAndReplaceTheirOwn(t *testing.T) {
	rec := &logtest.Logs{}
	reg := tool.NewRegistry(rec.Logger())
	s := fakeServer("browser", reg, rec)
	s.register([]*sdk.Tool{{Name: "click"}})
	if _, ok := reg.Get("browser_click"); ok || len(s.registered) != 0 {
		t.Fatalf("browser_click registered: %v", s.registered)
	}
	s = fakeServer("memo", reg, rec)
	s.register([]*sdk.Tool{{Name: "get", Description: "first"}})
	s.register([]*sdk.Tool{{Name: "get", Description: "second"}})
	if d, ok := reg.Get("memo_get"); !ok || d.Description != "second" {
		t.Fatalf("memo_get after a second list: %+v", d)
	}
}

// With real servers: the server that registers an id first keeps it, and
// the later one's tool is left out with a warning naming both.
func TestCollidingToolIDFirstServerKeepsIt(t *testing.T) {
	first, _ := probe(t)
	first.Env["PROBE_TOOLS"] = "x_y"
	second, _ := probe(t)
	second.Name, second.Env["PROBE_TOOLS"] = "probe_x", "y"
	_, reg, rec := start(t, first)
	set := Start(context.Background(), []Spec{second}, Options{Cwd: t.TempDir(), Log: rec.Logger(), Tools: reg, StartTimeout: 20 * time.Second})
	t.Cleanup(set.Close)
	if st := set.Servers()[0].Status(); st.State != StateReady || slices.Contains(st.Tools, "probe_x_y") || !slices.Contains(st.Tools, "probe_x_shout") {
		t.Fatalf("probe_x: %+v", st)
	}
	if res, err := call(t, reg, "probe_x_y", nil); err != nil || res.Output != "x_y answers" {
		t.Fatalf("probe_x_y: %+v %v", res, err)
	}
	rec.Require(t, "has the id already and keeps it", "mcp_server=probe_x", "tool=y", "id=probe_x_y", "held_by=mcp:probe")
}

// A tool whose name holds a "/" is still covered by a rule on its server's
// Claude Code name: the alias is sanitized as the id is.
func TestSlashInToolNameDoesNotEscapeServerRule(t *testing.T) {
	spec, _ := probe(t)
	spec.Name, spec.Env["PROBE_TOOLS"] = "srv", "x/delete"
	_, reg, _ := start(t, spec)
	d, ok := reg.Get("srv_x_delete")
	if !ok {
		t.Fatalf("no srv_x_delete: %v", ids(reg))
	}
	if d.Alias != "mcp__srv__x_delete" {
		t.Errorf("alias %q", d.Alias)
	}
	p := guard.NewPolicy(map[string]string{"mcp__srv__*": "deny"}, nil)
	if got, by, ok := p.Match(d.ID, d.Alias); !ok || got != plugin.DecisionDeny {
		t.Fatalf("%s (%s): %q by %s, want deny", d.ID, d.Alias, got, by)
	}
}

// A project's server whose name with "_" begins another's (or the other's
// begins its) is left out with a warning that names both: their tools' ids
// can be the same, and a rule for one server's tools ("github_*") would
// cover the other's. Two of the user's both stay.
func TestSpecsRefuseProjectServerOverlappingAnother(t *testing.T) {
	project, user := t.TempDir(), t.TempDir()
	write := func(path, data string) {
		t.Helper()
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(user, "podcode.json"), `{"mcp": {
		"github": {"type": "remote", "url": "https://gh.example.com/mcp"},
		"docs_v2": {"type": "remote", "url": "https://docs.example.com/mcp"},
		"team": {"type": "local", "command": ["team"]},
		"team_a": {"type": "local", "command": ["team-a"]}}}`)
	write(filepath.Join(project, "podcode.json"), `{"mcp": {
		"docs": {"type": "local", "command": ["docs"]},
		"github_x": {"type": "local", "command": ["x"]}}}`)
	write(filepath.Join(project, ".mcp.json"), `{"mcpServers": {"github_evil": {"command": "evil"}, "memo": {"command": "memo"}}}`)
	cfg, err := config.LoadFrom(project, user)
	if err != nil {
		t.Fatal(err)
	}
	specs, warnings, err := Specs(cfg, project)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	if got := strings.Join(names, " "); got != "docs_v2 github team team_a memo" {
		t.Errorf("servers %s", got)
	}
	for _, w := range []string{
		`MCP server "docs" ignored: its tools' ids and those of the user's server "docs_v2"`,
		`MCP server "github_x" ignored: its tools' ids and those of the user's server "github"`,
		`MCP server "github_evil" ignored: its tools' ids and those of the user's server "github"`,
	} {
		if !slices.ContainsFunc(warnings, func(s string) bool { return strings.Contains(s, w) }) {
			t.Errorf("no warning %s…: %q", w, warnings)
		}
	}
	if len(warnings) != 3 {
		t.Errorf("warnings: %q", warnings)
	}
}
