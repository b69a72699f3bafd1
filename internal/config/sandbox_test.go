package config

import (
	"strings"
	"testing"
)

// A project's file may switch the sandbox on, never off, and may keep the
// network away from it, never let it in.
func TestSandboxKeys(t *testing.T) {
	for _, c := range []struct {
		name, user, project string
		sandbox, network    bool
		warning             string
	}{
		{"defaults", ``, ``, false, false, ""},
		{"the user's", `{"tools": {"sandbox": true, "sandbox_network": true}}`, ``, true, true, ""},
		{"a project switches it on", ``, `{"tools": {"sandbox": true}}`, true, false, ""},
		{"a project cannot switch it off", `{"tools": {"sandbox": true}}`, `{"tools": {"sandbox": false}}`, true, false, `key "tools.sandbox": false ignored`},
		{"a project cannot let the network in", `{"tools": {"sandbox": true}}`, `{"tools": {"sandbox_network": true}}`, true, false, `key "tools.sandbox_network": true ignored`},
		{"a project may keep it out", `{"tools": {"sandbox_network": true}}`, `{"tools": {"sandbox_network": false}}`, false, false, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := Load(setup(t, c.user, c.project))
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Tools.Sandbox != c.sandbox || cfg.Tools.SandboxNetwork != c.network {
				t.Errorf("sandbox %v, network %v; want %v, %v", cfg.Tools.Sandbox, cfg.Tools.SandboxNetwork, c.sandbox, c.network)
			}
			all := strings.Join(cfg.Warnings, "\n")
			if c.warning != "" && !strings.Contains(all, c.warning) || c.warning == "" && all != "" {
				t.Errorf("warnings %q, want %q", all, c.warning)
			}
		})
	}
}
