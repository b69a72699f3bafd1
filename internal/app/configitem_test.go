package app

import (
	"testing"

	"github.com/podcode/podcode/internal/config"
)

// A map key with dots in it is not the path it spells: a provider-level
// option of a provider named "openai.models.gpt-x" and an option of the
// model gpt-x of the provider openai are two settings, with two
// fingerprints, and the item shows them apart.
func TestConfigItemTellsDottedKeysFromPaths(t *testing.T) {
	item := func(src string) (string, []string) {
		t.Helper()
		cfg, err := config.Parse("podcode.json", []byte(src), true)
		if err != nil {
			t.Fatal(err)
		}
		it, err := configItem(t.TempDir(), cfg.Pending())
		if err != nil {
			t.Fatal(err)
		}
		return it.Fingerprint, it.Runs
	}
	dotted, shown := item(`{"provider": {"openai.models.gpt-x": {"options": {"x": 1}}}}`)
	nested, _ := item(`{"provider": {"openai": {"models": {"gpt-x": {"options": {"x": 1}}}}}}`)
	if dotted == nested {
		t.Errorf("one fingerprint for a dotted key and the path it spells: %s", dotted)
	}
	if len(shown) == 0 || shown[0] != `provider."openai.models.gpt-x".options.x = 1` {
		t.Errorf("the item shows %q", shown)
	}
}
