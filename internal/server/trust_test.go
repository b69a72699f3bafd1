package server

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
)

// /healthz and /plugins list the project code that does not run, each
// with its kind, name, state and what that means, in the shape the OpenAPI
// document declares.
func TestSkippedCodeInAPI(t *testing.T) {
	srv := newServer(t, "", apptest.Project{Untrusted: true, Files: map[string]string{
		".podcode/plugins/guard/podcode-plugin.json": `{"id": "rm-guard", "contributes": {"hooks": [
			{"event": "PreToolUse", "matcher": "bash", "failClosed": true, "handler": {"command": "sh ./deny.sh"}}]}}`,
		".podcode/plugins/guard/deny.sh": "exit 2\n",
		".podcode/plugins/audit/podcode-plugin.json": `{"id": "audit", "contributes": {"hooks": [
			{"event": "PostToolUse", "handler": {"command": "cat >/dev/null"}}]}}`,
	}})
	type skipped struct {
		Kind, Name, State, Effect, Meaning string
		Guards                             []string
	}
	for _, path := range []string{"/healthz", "/plugins"} {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			OK      *bool
			Skipped []skipped
		}
		err = json.NewDecoder(res.Body).Decode(&body)
		res.Body.Close()
		if err != nil || res.StatusCode != 200 {
			t.Fatalf("%s: %d %v", path, res.StatusCode, err)
		}
		if path == "/healthz" && (body.OK == nil || !*body.OK) {
			t.Errorf("%s: ok is not true", path)
		}
		byName := map[string]skipped{}
		for _, s := range body.Skipped {
			byName[s.Kind+" "+s.Name] = s
		}
		guard, audit := byName["manifest .podcode/plugins/guard"], byName["manifest .podcode/plugins/audit"]
		if len(body.Skipped) != 2 || guard.State != "never trusted" || guard.Effect != "denying" || !strings.Contains(guard.Meaning, "podcode trust") ||
			len(guard.Guards) != 1 || !strings.Contains(guard.Guards[0], "rm-guard") {
			t.Errorf("%s: guard %+v (all: %+v)", path, guard, body.Skipped)
		}
		if audit.State != "never trusted" || audit.Effect != "skipped" || !strings.Contains(audit.Meaning, "podcode trust") {
			t.Errorf("%s: audit %+v", path, audit)
		}
	}

	// The document declares that shape: both answers' skipped is a list
	// of Skipped, which requires what a client shows.
	doc := loadOpenAPI(t)
	skippedRef := doc.Components.Schemas["Skipped"]
	if skippedRef == nil || skippedRef.Value == nil {
		t.Fatal("components.schemas.Skipped is missing")
	}
	if got := strings.Join(skippedRef.Value.Required, ","); got != "kind,name,state,effect,meaning" {
		t.Errorf("Skipped requires %s", got)
	}
	for _, path := range []string{"/healthz", "/plugins"} {
		op := doc.Paths.Find(path).Get
		answer := op.Responses.Status(200).Value.Content.Get("application/json").Schema.Value
		list := answer.Properties["skipped"]
		if list == nil || list.Value.Items == nil || list.Value.Items.Ref != "#/components/schemas/Skipped" || !slices.Contains(answer.Required, "skipped") {
			t.Errorf("%s does not declare a required skipped list of Skipped: %+v", path, list)
		}
	}
}
