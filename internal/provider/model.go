// Package provider knows the model providers and their models: the
// built-in offline provider, and whatever the config adds.
package provider

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/podcode/podcode/internal/config"
)

// Offline is the built-in provider that needs no key and no network.
const Offline = "offline"

// DefaultModel is the model used when the config names none.
const DefaultModel = "offline/echo"

// Model is one model of one provider, with what Podcode needs to call it.
type Model struct {
	ProviderID string         `json:"providerID"`
	ModelID    string         `json:"modelID"`
	Limit      config.Limit   `json:"limit"`
	Reasoning  bool           `json:"reasoning,omitempty"`
	Options    map[string]any `json:"options,omitempty"` // the provider's options, then the model's, merged
}

// Name is "provider/model".
func (m Model) Name() string { return m.ProviderID + "/" + m.ModelID }

// builtin are the models Podcode knows without any config.
var builtin = map[string]Model{
	DefaultModel: {ProviderID: Offline, ModelID: "echo", Limit: config.Limit{Context: 128000, Output: 4096}},
}

// Catalog is every known model.
type Catalog struct {
	models map[string]Model
	def    string
}

// NewCatalog returns the built-in models plus the config's; a model the
// config names under a provider is added to (or overrides) that provider.
func NewCatalog(cfg *config.Config) *Catalog {
	c := &Catalog{models: maps.Clone(builtin), def: DefaultModel}
	if cfg == nil {
		return c
	}
	for pid, p := range cfg.Provider {
		for mid, m := range p.Models {
			name := pid + "/" + mid
			base := c.models[name]
			opts := map[string]any{}
			maps.Copy(opts, p.Options)
			maps.Copy(opts, m.Options)
			limit := m.Limit
			if limit.Context == 0 {
				limit.Context = base.Limit.Context
			}
			if limit.Output == 0 {
				limit.Output = base.Limit.Output
			}
			c.models[name] = Model{ProviderID: pid, ModelID: mid, Limit: limit, Reasoning: m.Reasoning || base.Reasoning, Options: opts}
		}
	}
	if cfg.Model != "" {
		c.def = cfg.Model
	}
	return c
}

// Default returns the model the config selects (offline/echo without one).
func (c *Catalog) Default() (Model, error) { return c.Lookup(c.def) }

// Lookup returns the model named "provider/model".
func (c *Catalog) Lookup(name string) (Model, error) {
	if m, ok := c.models[name]; ok {
		return m, nil
	}
	pid, mid, ok := strings.Cut(name, "/")
	if !ok {
		return Model{}, fmt.Errorf("model %q is not of the form provider/model", name)
	}
	return Model{}, fmt.Errorf("unknown model %q: add it under provider.%s.models.%s with its limits (known: %s)",
		name, pid, mid, strings.Join(c.Names(), ", "))
}

// Names lists the known models, sorted.
func (c *Catalog) Names() []string {
	return slices.Sorted(maps.Keys(c.models))
}

// Params are the request parameters of one model call, as chat.params and
// Podcode's defaults left them.
type Params struct {
	Model           string         `json:"model"`
	Temperature     *float64       `json:"temperature,omitempty"`
	TopP            *float64       `json:"topP,omitempty"`
	TopK            *float64       `json:"topK,omitempty"`
	MaxOutputTokens int            `json:"maxOutputTokens"`
	Options         map[string]any `json:"options"`
}
