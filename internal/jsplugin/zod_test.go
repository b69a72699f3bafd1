package jsplugin_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/tool"
)

// zodVersions are the fixtures of testdata/plugins/zod-versions, each
// importing one zod release installed from npm (testdata/package.json).
var zodVersions = []string{
	"zod-3-23", "zod-3-25", "zod-3-25-v4", "zod-4-0", "zod-4-0-v4", "zod-4-1", "zod-4-1-v4", "zod-4-latest", "zod-4-latest-v4",
}

// zodToolSchema is the JSON Schema of the zod-versions fixtures' tool.
const zodToolSchema = `{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object",
 "properties": {"query": {"type": "string", "minLength": 1, "description": "what to look for"},
  "limit": {"type": "number", "default": 10}, "note": {"type": "string"},
  "mode": {"type": "string", "enum": ["fast", "thorough"]}, "tags": {"type": "array", "items": {"type": "string"}}},
 "required": ["query", "mode", "tags"]}`

// Every zod release from 3.23 on works as a tool's parameters: the model
// reads the same JSON Schema, the arguments are checked by the schema's own
// zod (its defaults applied) and an error names the field.
//
// covers H11
func TestToolParametersWithEveryZodRelease(t *testing.T) {
	apptest.RequireNodeModules(t, "testdata", "zod", "zod3", "zod-3-23", "zod-4-0", "zod-4-1")
	var plugins []string
	for _, v := range zodVersions {
		plugins = append(plugins, fixture(t, filepath.Join("zod-versions", v+".ts")))
	}
	a, logs := apptest.Boot(t, apptest.Project{Plugins: plugins})
	if got := ids(a.Plugins.Plugins); got != strings.Join(zodVersions, ",") {
		t.Fatalf("loaded %q; logs:\n%s", got, strings.Join(logs.Lines(), "\n"))
	}
	ctx := context.Background()
	for _, v := range zodVersions {
		t.Run(v, func(t *testing.T) {
			id := strings.ReplaceAll(v, "-", "_")
			def, ok := a.Tools.Get(id)
			if !ok {
				t.Fatalf("no tool %s", id)
			}
			// The model reads the same JSON Schema whichever zod made it; a
			// field with a default is optional for the model.
			var got, want any
			if err := json.Unmarshal(def.Parameters, &got); err != nil {
				t.Fatal(err)
			}
			json.Unmarshal([]byte(zodToolSchema), &want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("JSON Schema for the model:\n%s\nwant\n%s", def.Parameters, zodToolSchema)
			}
			res, _, err := a.Runner.CallTool(ctx, tool.Call{}, id, map[string]any{"query": "go", "mode": "fast", "tags": []any{"a"}})
			// execute receives what the schema parsed: the default filled in.
			if err != nil || res.Output != `{"limit":10,"mode":"fast","query":"go","tags":["a"]}` {
				t.Errorf("call: %+v %v", res, err)
			}
			for args, field := range map[string]string{
				`{"query": "", "mode": "fast", "tags": []}`:                "query",
				`{"query": "x", "mode": "slow", "tags": []}`:               "mode",
				`{"query": "x", "mode": "fast", "tags": [1]}`:              "tags.0",
				`{"query": "x", "mode": "fast", "tags": [], "limit": "9"}`: "limit",
			} {
				var m map[string]any
				json.Unmarshal([]byte(args), &m)
				_, _, err := a.Runner.CallTool(ctx, tool.Call{}, id, m)
				if err == nil || !strings.Contains(err.Error(), field+": ") || !strings.Contains(err.Error(), id) {
					t.Errorf("%s: err %v, want one naming %q", args, err, field)
				}
			}
		})
	}
}
