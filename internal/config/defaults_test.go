package config_test

import (
	"testing"
	"time"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/jsplugin"
)

// A project's value of a lowering key is compared with the default when
// the user's file sets none: the table's defaults are the ones the code
// uses (bash's two minutes are tool.Options.BashTimeout's).
func TestTableDefaultsAreTheCodes(t *testing.T) {
	for key, want := range map[string]float64{
		"agent.max_steps":         agent.DefaultMaxSteps,
		"agent.loop_guard":        guard.DefaultLoopLimit,
		"tools.plugin_timeout_ms": float64(jsplugin.DefaultToolTimeout / time.Millisecond),
		"tools.bash_timeout_ms":   float64(2 * time.Minute / time.Millisecond),
	} {
		if r, ok := config.Describe(key); !ok || r.Default != want {
			t.Errorf("%s: the table's default %v, the code's %v", key, r.Default, want)
		}
	}
}
