package e2e

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// shapes writes each event of a session as its type and the sorted keys
// of its properties, in order.
func shapes(t *testing.T, items []map[string]any, session string) []string {
	t.Helper()
	var out []string
	for _, it := range items {
		props, _ := it["properties"].(map[string]any)
		id, _ := props["sessionID"].(string)
		if s, ok := props["session"].(map[string]any); ok && it["type"] == "session.created" {
			id, _ = s["id"].(string)
		}
		if id != session {
			continue
		}
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		out = append(out, it["type"].(string)+"{"+strings.Join(keys, ",")+"}")
	}
	return out
}

// `podcode run --json` prints the events of its turn as JSON lines: the
// objects GET /events sends for the same turn, in the same order.
func TestRunJSONIsTheEventStream(t *testing.T) {
	dir, home := project(t)
	srv := start(t, dir, home)
	ev := srv.events()
	prompt := "read my notes\n/tool read {\"path\": \"notes.txt\"}"
	var sess struct{ ID string }
	if code := srv.do("POST", "/sessions", map[string]any{"title": "e2e"}, &sess); code != 201 {
		t.Fatalf("create session: %d", code)
	}
	if code := srv.do("POST", "/sessions/"+sess.ID+"/messages", map[string]any{"text": prompt}, nil); code != 200 {
		t.Fatalf("turn: %d\n%s", code, srv.logs)
	}
	api := shapes(t, ev.waitFor(t, "turn.finished"), sess.ID)

	cmd := exec.Command(binary, "run", "--json", prompt)
	cmd.Dir, cmd.Env = dir, env(home)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("podcode run --json: %v\n%s", err, out)
	}
	var items []map[string]any
	session := ""
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		var it map[string]any
		if err := json.Unmarshal([]byte(line), &it); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		if props, _ := it["properties"].(map[string]any); session == "" {
			session, _ = props["sessionID"].(string)
		}
		items = append(items, it)
	}
	cli := shapes(t, items, session)
	if len(cli) != len(items) {
		t.Errorf("%d of %d lines are about another session:\n%s", len(items)-len(cli), len(items), out)
	}
	if strings.Join(cli, "\n") != strings.Join(api, "\n") {
		t.Errorf("podcode run --json:\n%s\nGET /events:\n%s", strings.Join(cli, "\n"), strings.Join(api, "\n"))
	}
}
