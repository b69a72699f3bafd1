package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// pluginListJSON is the documented shape of `podcode plugin list --json`.
type pluginListJSON struct {
	Plugins []struct {
		ID     string   `json:"id"`
		Status string   `json:"status"`
		Tools  []string `json:"tools"`
	} `json:"plugins"`
	Lifecycle []map[string]any `json:"lifecycle"`
	Warnings  []string         `json:"warnings"`
	Skipped   []struct {
		Kind string `json:"kind"`
		Name string `json:"name"`
	} `json:"skipped"`
}

// A plugin list names every warning once: a misspelt lifecycle key (only
// logged by the loader), an unknown config key, a refused tool override;
// the refused tool is not listed as the plugin's, and the status shows.
func TestPluginListWarningsOnceAndRefusedTools(t *testing.T) {
	project(t, map[string]string{
		"podcode.json": `{"plugin": ["./plugins/bad.js"], "nonsenseKey": 1}`,
		"plugins/bad.js": `export default { id: "bad", server: () => ({
  tool: () => [{ id: "bash", description: "my bash", parameters: { type: "object" }, execute: () => "x" },
               { id: "mine", description: "mine", parameters: { type: "object" }, execute: () => "y" }],
  lifecycle: { PreToolUsed: () => undefined },
}) }`,
	})
	out, err := run(t, "--trust-all", "plugin", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var list pluginListJSON
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(list.Plugins) != 1 || list.Plugins[0].Status != "running" || !slices.Equal(list.Plugins[0].Tools, []string{"mine"}) {
		t.Errorf("plugins %+v", list.Plugins)
	}
	all := strings.Join(list.Warnings, "\n")
	for _, want := range []string{"key=PreToolUsed", `key "nonsenseKey"`, `tool "bash"`} {
		if n := strings.Count(all, want); n != 1 {
			t.Errorf("%s named %d times in the warnings, want 1:\n%s", want, n, all)
		}
	}
	text, _ := run(t, "--trust-all", "plugin", "list")
	if !strings.Contains(text, "STATUS") || !strings.Contains(text, "running") || strings.Count(text, "key=PreToolUsed") != 1 {
		t.Errorf("plugin list:\n%s", text)
	}
}

// A trust skip is one warning (and one entry of skipped); the text list
// names it once, in its section of code that does not run.
func TestPluginListTrustSkipsOnce(t *testing.T) {
	project(t, map[string]string{
		".podcode/plugins/x.mjs": `export default { id: "x", server: () => ({}) }`,
	})
	out, err := run(t, "plugin", "list", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var list pluginListJSON
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(list.Plugins) != 0 || len(list.Skipped) != 1 || strings.Count(strings.Join(list.Warnings, "\n"), "x.mjs") != 1 {
		t.Errorf("list %+v", list)
	}
	text, _ := run(t, "plugin", "list")
	if strings.Count(text, "x.mjs") != 1 {
		t.Errorf("plugin list names x.mjs other than once:\n%s", text)
	}
}

// plugin list shows each Claude Code command, agent and skill with its
// source, and one that cannot load as a warning naming its file and line.
func TestPluginListShowsClaudeComponents(t *testing.T) {
	project(t, map[string]string{
		".claude/commands/review.md": "---\ndescription: review the change\n---\nReview $ARGUMENTS\n",
		".claude/agents/scout.md":    "---\nname: scout\ndescription: looks around\ntools: Read, Grep\n---\nYou look around.\n",
		".claude/agents/broken.md":   "---\nname: broken\ndescription: [never closed\nplain words\n---\nx\n",
	})
	out, err := run(t, "--trust-all", "plugin", "list")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Claude Code commands, agents and skills:",
		"command  review  project  ",
		"agent    scout   project  ",
		"warning: claude: a command, agent or skill is not loaded: ",
		".claude/agents/broken.md:4: the frontmatter line \"plain words\" is not \"key: value\"",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in:\n%s", want, out)
		}
	}
}
