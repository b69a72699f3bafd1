package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
)

// notesPlugin is an opencode plugin as published ones are written: in the
// project's .opencode/plugin folder, using node:fs, child_process, Bun's
// $ and opencode's client around a tool call.
const notesPlugin = `import { appendFileSync } from "node:fs"
import { execFileSync } from "node:child_process"
export const Notes = async ({ client, $, directory }) => ({
  "tool.execute.after": async (input, output) => {
    const bun = (await $` + "`echo from-bun`" + `.text()).trim()
    const cp = execFileSync("printf", ["%s", "from-cp"]).toString()
    const msgs = await client.session.messages({ path: { id: input.sessionID } })
    appendFileSync(directory + "/notes.log", input.tool + " " + bun + " " + cp + " " + msgs.data.length + "\n")
    await client.app.log({ body: { service: "notes", level: "info", message: "noted " + input.tool } })
  },
})
`

// A published-style opencode plugin runs unchanged in the real server,
// once the project is trusted: its Node modules, its processes and its
// client (answered by the server, over the session the turn runs in).
func TestOpencodePluginInTheServer(t *testing.T) {
	dir, srv := notesServer(t, "{}")
	data, err := os.ReadFile(filepath.Join(dir, "notes.log"))
	if err != nil {
		t.Fatalf("the plugin wrote nothing: %v\n%s", err, srv.logs)
	}
	// the turn's user message and the model's call were stored when the
	// tool's result came back
	if !regexp.MustCompile(`^read from-bun from-cp [2-9]\n$`).Match(data) {
		t.Errorf("notes.log: %q", data)
	}
	srv.logs.Await(t, "plugin=notes", "noted read") // client.app.log, with the plugin's id
}

// The user's permission rule for plugin_exec holds in the real server: the
// plugin's process is refused before it runs, and the plugin hears why.
func TestOpencodePluginProcessDeniedInTheServer(t *testing.T) {
	dir, srv := notesServer(t, `{"permission": {"plugin_exec": "deny"}}`)
	if _, err := os.Stat(filepath.Join(dir, "notes.log")); err == nil {
		t.Error("the plugin went on after its process was refused")
	}
	srv.logs.Await(t, "plugin=notes", "plugin_exec was denied: the user's permission rule") // the refusal, with the plugin's id
}

// notesServer serves a trusted project holding notesPlugin, for a user
// whose config is userConfig, after one turn that reads a file.
func notesServer(t *testing.T, userConfig string) (string, *server) {
	t.Helper()
	dir := apptest.Dir(t, apptest.Project{Files: map[string]string{
		".opencode/plugin/notes.js": notesPlugin,
		"notes.txt":                 "meeting at noon\n",
	}})
	home := userHome(t, userConfig)
	if out, err := podcode(dir, home, "trust", "--yes"); err != nil {
		t.Fatalf("podcode trust: %v\n%s", err, out)
	}
	srv := start(t, dir, home)
	var sess struct{ ID string }
	if code := srv.do("POST", "/sessions", map[string]any{"title": "e2e"}, &sess); code != 201 {
		t.Fatalf("create session: %d", code)
	}
	var turn struct{ Error string }
	if code := srv.do("POST", "/sessions/"+sess.ID+"/messages", map[string]any{"text": "/tool read {\"path\": \"notes.txt\"}"}, &turn); code != 200 {
		t.Fatalf("turn: %d %s\n%s", code, turn.Error, srv.logs)
	}
	return dir, srv
}
