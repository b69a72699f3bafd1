package provider

import (
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/config"
)

func TestCatalog(t *testing.T) {
	c := NewCatalog(nil)
	m, err := c.Default()
	if err != nil || m.Name() != "offline/echo" || m.Limit != (config.Limit{Context: 128000, Output: 4096}) {
		t.Fatalf("default %+v %v", m, err)
	}
	c = NewCatalog(&config.Config{Model: "acme/big", Provider: map[string]config.Provider{
		"acme":    {Options: map[string]any{"baseURL": "u", "a": 1}, Models: map[string]config.Model{"big": {Limit: config.Limit{Context: 1000, Output: 10}, Options: map[string]any{"a": 2}, Reasoning: true}}},
		"offline": {Models: map[string]config.Model{"echo": {Limit: config.Limit{Output: 100}}}},
	}})
	m, err = c.Default()
	if err != nil || m.Name() != "acme/big" || !m.Reasoning || m.Options["a"] != 2 || m.Options["baseURL"] != nil || m.Connection.BaseURL != "u" {
		t.Errorf("acme/big %+v %v", m, err)
	}
	if e, _ := c.Lookup("offline/echo"); e.Limit.Context != 128000 || e.Limit.Output != 100 {
		t.Errorf("a config limit overrides only what it sets: %+v", e.Limit)
	}
	if _, err := c.Lookup("acme/small"); err == nil || !strings.Contains(err.Error(), "provider.acme.models.small") {
		t.Errorf("unknown model: %v", err)
	}
	if _, err := c.Lookup("nonsense"); err == nil {
		t.Error("a name without provider accepted")
	}
	if strings.Join(c.Names(), ",") != "acme/big,offline/echo" {
		t.Errorf("names %v", c.Names())
	}
}
