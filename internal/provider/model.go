// Package provider knows the model providers and their models: the
// built-in offline provider, and whatever the config adds.
package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
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
	// ReplaySum is the SHA-256 (hex) the recording had at start-up when the
	// project's file named it (it ran only because the user trusted that
	// content): LoadReplay refuses a recording changed since, by a tool
	// call or anything else. Empty for the user's own replays.
	ReplaySum string
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
	// Warnings name what of the config the catalog did not take (a
	// project's model it does not know), with file, position and key.
	Warnings []string
}

// NewCatalog returns the built-in models plus the config's; a model the
// config names under a provider is added to (or overrides) that provider.
// The default model is the user's choice, or the project's when it names a
// model the catalog knows (config.Choose): a project's file cannot make
// Podcode call a model the user never set up.
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
			pinReplay(cfg, &m.Connection, "provider."+pid+".options.replay")
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
			model := Model{ProviderID: pid, ModelID: mid, Limit: limit, Reasoning: m.Reasoning || base.Reasoning, Options: opts,
				Connection: connection(pid, all)}
			if _, ok := m.Options["replay"]; ok {
				pinReplay(cfg, &model.Connection, "provider."+pid+".models."+mid+".options.replay")
			} else {
				pinReplay(cfg, &model.Connection, "provider."+pid+".options.replay")
			}
			c.models[name] = model
		}
	}
	c.Warnings = append(c.Warnings, unsetEnv(cfg)...)
	if cfg.Model != "" {
		c.def = cfg.Model
	}
	if pm := cfg.ProjectModel; pm != "" {
		if _, ok := c.models[pm]; ok {
			c.def = pm
		} else {
			at := config.FileName + `: key "model"`
			if o := cfg.Origins("model"); len(o) > 0 {
				at = o[len(o)-1].At()
			}
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %q ignored: a project's file may only pick a model the user's file or Podcode defines (known: %s)",
				at, pm, strings.Join(c.Names(), ", ")))
		}
	}
	return c
}

// unsetEnv warns about each {env:NAME} of the providers' connection
// settings whose variable is not set: the value silently becomes empty
// (a key, an endpoint), and the provider's answer (401, a refused
// connection) would not say why. Each warning names the variable and
// where the setting was written: file, position and key.
func unsetEnv(cfg *config.Config) []string {
	var out []string
	check := func(key string, opts map[string]any) {
		for _, k := range []string{"baseURL", "apiKey", "headers", "replay"} {
			var values []string
			switch v := opts[k].(type) {
			case string:
				values = []string{v}
			case map[string]any:
				for _, name := range slices.Sorted(maps.Keys(v)) {
					if s, ok := v[name].(string); ok {
						values = append(values, s)
					}
				}
			}
			at := config.FileName + `: key "` + key + "." + k + `"`
			if o := cfg.Origins(key + "." + k); len(o) > 0 {
				at = o[len(o)-1].At()
			}
			for _, v := range values {
				_, unset := config.ExpandEnvUnset(v)
				for _, name := range unset {
					out = append(out, fmt.Sprintf("%s: the environment variable %s is not set, so {env:…} gives an empty value", at, name))
				}
			}
		}
	}
	for _, pid := range slices.Sorted(maps.Keys(cfg.Provider)) {
		p := cfg.Provider[pid]
		check("provider."+pid+".options", p.Options)
		for _, mid := range slices.Sorted(maps.Keys(p.Models)) {
			check("provider."+pid+".models."+mid+".options", p.Models[mid].Options)
		}
	}
	return out
}

// pinReplay pins a replay the project's file set (key) to the content it
// has now, at start-up, which is what the trust gate just fingerprinted:
// the path is made absolute (relative to that file) and its SHA-256 kept
// in ReplaySum. A missing file is pinned as empty.
func pinReplay(cfg *config.Config, c *Connection, key string) {
	o := cfg.Origins(key)
	if c.Replay == "" || len(o) == 0 || !o[len(o)-1].Project {
		return
	}
	if !filepath.IsAbs(c.Replay) {
		c.Replay = filepath.Join(filepath.Dir(o[len(o)-1].File), c.Replay)
	}
	data, _ := os.ReadFile(c.Replay)
	sum := sha256.Sum256(data)
	c.ReplaySum = hex.EncodeToString(sum[:])
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
