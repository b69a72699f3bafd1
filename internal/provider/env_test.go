package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/config"
)

// An {env:NAME} of a provider's settings whose variable is not set is a
// warning naming the variable, the file, the position and the key; a set
// one is not.
func TestUnsetEnvIsAWarning(t *testing.T) {
	t.Setenv("PODCODE_TEST_SET_KEY", "sk-1")
	t.Setenv("PODCODE_TEST_UNSET_KEY", "")
	os.Unsetenv("PODCODE_TEST_UNSET_KEY")
	t.Setenv("PODCODE_TEST_UNSET_ORG", "")
	os.Unsetenv("PODCODE_TEST_UNSET_ORG")
	root := t.TempDir()
	user := filepath.Join(root, "user")
	os.MkdirAll(user, 0o755)
	os.WriteFile(filepath.Join(user, config.FileName), []byte(`{
  "model": "local/m",
  "provider": {
    "local": {
      "options": {"baseURL": "http://127.0.0.1:1/v1", "apiKey": "{env:PODCODE_TEST_UNSET_KEY}",
                  "headers": {"X-Org": "{env:PODCODE_TEST_UNSET_ORG}"}},
      "models": {"m": {"options": {"apiKey": "{env:PODCODE_TEST_SET_KEY}"}}}
    }
  }
}`), 0o644)
	cfg, err := config.LoadFrom(filepath.Join(root, "project"), user)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCatalog(cfg)
	file := filepath.Join(user, config.FileName)
	want := []string{
		file + `:5:55: key "provider.local.options.apiKey": the environment variable PODCODE_TEST_UNSET_KEY is not set, so {env:…} gives an empty value`,
		file + `:6:19: key "provider.local.options.headers": the environment variable PODCODE_TEST_UNSET_ORG is not set, so {env:…} gives an empty value`,
	}
	if got := strings.Join(c.Warnings, "\n"); got != strings.Join(want, "\n") {
		t.Errorf("warnings:\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	if m, _ := c.Default(); m.Connection.APIKey != "sk-1" {
		t.Errorf("the model's own key: %q", m.Connection.APIKey)
	}
}
