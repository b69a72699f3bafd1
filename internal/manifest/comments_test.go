package manifest

import (
	"errors"
	"strings"
	"testing"
)

// covers L2: a manifest is JSON with comments and trailing commas, as
// podcode.json is.
func TestManifestAcceptsComments(t *testing.T) {
	src := `// the audit plugin
{
  "id": "audit", /* its name */
  "contributes": {
    "hooks": [
      // every bash call
      {"event": "PreToolUse", "matcher": "bash", "handler": {"command": "true",},},
    ],
  },
}
`
	m, err := Parse("/p/podcode-plugin.json", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if m.ID != "audit" || len(m.Contributes.Hooks) != 1 || m.Contributes.Hooks[0].Handler.Command != "true" {
		t.Fatalf("parsed %+v", m)
	}
}

// covers L2: errors give the line and column of what they are about.
func TestManifestErrorsGiveLineAndColumn(t *testing.T) {
	cases := []struct {
		src       string
		line, col int
		want      string
	}{
		{"{\n  \"id\": \"x\",\n  \"contributes\": {\"hooks\": [\n    {\"event\": \"Nope\", \"handler\": {\"command\": \"a\"}}\n  ]}\n}", 4, 15, `/p/podcode-plugin.json:4:15: contributes.hooks[0].event: plugin: unknown hook event "Nope"`},
		{"{\n  // comment\n  \"id\": \"x\",\n  \"extra\": 1\n}", 4, 3, `/p/podcode-plugin.json:4:3: unknown field "extra"`},
		{"{\n  \"id\": \"x\",\n  \"contributes\": {\"hooks\": [\n    {\"event\": \"AgentStop\", \"handler\": {\"command\": \"a\", \"hander\": 1}}\n  ]}\n}", 4, 56, `/p/podcode-plugin.json:4:56: contributes.hooks[0]: unknown field "hander"`},
		{"{\n  \"id\": 5\n}", 2, 9, `/p/podcode-plugin.json:2:9: id: want string, found a JSON number`},
		{"{\n  \"id\": \"x\"\n  \"version\": \"1\"\n}", 3, 3, `/p/podcode-plugin.json:3:3: `},
	}
	for _, c := range cases {
		_, err := Parse("/p/podcode-plugin.json", []byte(c.src))
		var me *Error
		if !errors.As(err, &me) {
			t.Fatalf("%s: err %v", c.src, err)
		}
		if me.Line != c.line || me.Col != c.col || len(err.Error()) < len(c.want) || err.Error()[:len(c.want)] != c.want {
			t.Errorf("%s\n  got  %v (line %d col %d)\n  want %s", c.src, err, me.Line, me.Col, c.want)
		}
	}
}

// Deep nesting is an error with its position, not an exhausted stack.
func TestManifestDeepNesting(t *testing.T) {
	data := []byte(`{"id": "x", "version": ` + strings.Repeat("[", 1<<20) + `}`)
	_, err := Parse("/p/podcode-plugin.json", data)
	var me *Error
	if !errors.As(err, &me) || me.Line != 1 || !strings.Contains(err.Error(), "nest deeper") {
		t.Errorf("err %v", err)
	}
}
