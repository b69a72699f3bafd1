package config

import (
	"strings"
	"testing"
)

// plugin_limits.memory_mb: the user's value for the user's plugins; a
// project's file may only lower it, and only for its own plugins, so that
// a cloned repository cannot get the user's plugins stopped.
func TestPluginLimits(t *testing.T) {
	for _, c := range []struct {
		name, user, project string
		userMB, projectMB   int
		warn                string
	}{
		{"defaults", ``, ``, DefaultPluginMemoryMB, DefaultPluginMemoryMB, ""},
		{"the user's value", `{"plugin_limits": {"memory_mb": 512}}`, ``, 512, 512, ""},
		{"a project lowers its own plugins' budget only", `{"plugin_limits": {"memory_mb": 512}}`, `{"plugin_limits": {"memory_mb": 64}}`, 512, 64, ""},
		{"a project lowers the default for its own plugins", ``, `{"plugin_limits": {"memory_mb": 100}}`, DefaultPluginMemoryMB, 100, ""},
		{"a project cannot raise the user's", `{"plugin_limits": {"memory_mb": 512}}`, `{"plugin_limits": {"memory_mb": 4096}}`, 512, 512,
			`key "plugin_limits.memory_mb": 4096 ignored: a project's file may only lower it, and the user's value (or the default) is 512`},
		{"a project cannot raise the default", ``, `{"plugin_limits": {"memory_mb": 1024}}`, DefaultPluginMemoryMB, DefaultPluginMemoryMB,
			`key "plugin_limits.memory_mb": 1024 ignored`},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Load(setup(t, c.user, c.project))
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.PluginLimitsFor(false).MemoryMB; got != c.userMB {
				t.Errorf("the user's plugins: %d MiB, want %d", got, c.userMB)
			}
			if got := cfg.PluginLimitsFor(true).MemoryMB; got != c.projectMB {
				t.Errorf("the project's plugins: %d MiB, want %d", got, c.projectMB)
			}
			if w := strings.Join(cfg.Warnings, "\n"); !strings.Contains(w, c.warn) || c.warn == "" && w != "" {
				t.Errorf("warnings %q, want %q", w, c.warn)
			}
		})
	}
	_, err := Parse("podcode.json", []byte("{\n  \"plugin_limits\": {\"memory_mb\": -1}\n}"), false)
	if err == nil || !strings.Contains(err.Error(), `podcode.json:2:34: key "plugin_limits.memory_mb": -1: must not be negative`) {
		t.Errorf("a negative budget: %v", err)
	}
}
