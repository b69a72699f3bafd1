// Package provider knows the model providers and their models: the
// built-in offline provider, and whatever the config adds.
package provider

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

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
	Options    map[string]any `json:"options,omitempty"` // request options: the provider's, then the model's, merged
	// Connection is how to reach the provider (baseURL, apiKey, headers,
	// timeout), with {env:NAME} substituted. It never goes into a request
	// body, a hook payload, a log line or the API.
	Connection Connection `json:"-"`
}

// Connection settings of a provider, from its options.
type Connection struct {
	BaseURL    string
	APIKey     string
	Headers    map[string]string
	Timeout    time.Duration
	MaxRetries int
	Replay     string // the offline model: a recorded conversation to replay
}

// connectionKeys are the provider options that configure the connection,
// not the request.
var connectionKeys = map[string]bool{"baseURL": true, "apiKey": true, "headers": true, "timeout": true, "maxRetries": true, "replay": true}

// copyRequestOptions copies the options of src that configure the request,
// not the connection, into dst.
func copyRequestOptions(dst, src map[string]any) {
	for k, v := range src {
		if !connectionKeys[k] {
			dst[k] = v
		}
	}
}

// connection reads the connection settings out of a provider's options.
func connection(pid string, opts map[string]any) Connection {
	c := Connection{MaxRetries: 3, Timeout: 10 * time.Minute}
	if v, ok := opts["baseURL"].(string); ok {
		c.BaseURL = strings.TrimRight(config.ExpandEnv(v), "/")
	}
	if v, ok := opts["apiKey"].(string); ok {
		c.APIKey = config.ExpandEnv(v)
	}
	if h, ok := opts["headers"].(map[string]any); ok {
		c.Headers = map[string]string{}
		for k, v := range h {
			if s, ok := v.(string); ok {
				c.Headers[k] = config.ExpandEnv(s)
			}
		}
	}
	if v, ok := opts["timeout"].(float64); ok && v > 0 {
		c.Timeout = time.Duration(v) * time.Millisecond
	}
	if v, ok := opts["maxRetries"].(float64); ok && v >= 0 {
		c.MaxRetries = int(v)
	}
	if v, ok := opts["replay"].(string); ok {
		c.Replay = config.ExpandEnv(v)
	}
	if pid == "openai" {
		if c.BaseURL == "" {
			c.BaseURL = "https://api.openai.com/v1"
		}
		if c.APIKey == "" {
			c.APIKey = os.Getenv("OPENAI_API_KEY")
		}
	}
	return c
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
		// The provider's options reach the models Podcode knows of it too.
		for name, m := range c.models {
			if m.ProviderID != pid || len(p.Options) == 0 {
				continue
			}
			m.Options = maps.Clone(m.Options)
			if m.Options == nil {
				m.Options = map[string]any{}
			}
			copyRequestOptions(m.Options, p.Options)
			m.Connection = connection(pid, p.Options)
			c.models[name] = m
		}
		for mid, m := range p.Models {
			name := pid + "/" + mid
			base := c.models[name]
			all := map[string]any{}
			maps.Copy(all, p.Options)
			maps.Copy(all, m.Options)
			opts := map[string]any{}
			copyRequestOptions(opts, all)
			limit := m.Limit
			if limit.Context == 0 {
				limit.Context = base.Limit.Context
			}
			if limit.Output == 0 {
				limit.Output = base.Limit.Output
			}
			c.models[name] = Model{ProviderID: pid, ModelID: mid, Limit: limit, Reasoning: m.Reasoning || base.Reasoning, Options: opts,
				Connection: connection(pid, all)}
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
