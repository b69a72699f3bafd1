// Package provider calls the models: the built-in offline model, and the
// model providers' own APIs (Anthropic's Messages, OpenAI's Responses and
// chat completions, Google's Gemini on its API and on Vertex AI, Anthropic's
// models on Amazon Bedrock, and every server compatible with OpenAI's chat
// completions). The catalog (Catalog) says which models exist, what they
// take and cost: the config's, and those of the catalog embedded in the
// binary (catalog.go), never fetched at run time.
package provider

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/closest"
	"github.com/podcode/podcode/internal/config"
)

// Offline is the built-in provider that needs no key and no network.
const Offline = "offline"

// DefaultModel is the model used when the config names none and no
// provider's key is in the environment.
const DefaultModel = "offline/echo"

// The APIs a model is called with (Connection.API, the option "api").
const (
	APIOffline   = "offline"          // the built-in model
	APIChat      = "openai-chat"      // OpenAI's chat completions, and every server compatible with it
	APIResponses = "openai-responses" // OpenAI's Responses API
	APIAnthropic = "anthropic"        // Anthropic's Messages API, and servers compatible with it
	APIBedrock   = "bedrock"          // Anthropic's models on Amazon Bedrock
	APIGemini    = "gemini"           // Google's Gemini API, with a key
	APIVertex    = "vertex"           // Gemini models on Google Cloud's Vertex AI
)

// APIs lists the APIs in the order the documentation gives them.
var APIs = []string{APIAnthropic, APIResponses, APIChat, APIGemini, APIVertex, APIBedrock, APIOffline}

// Model is one model of one provider, with what Podcode needs to call it.
type Model struct {
	ProviderID string       `json:"providerID"`
	ModelID    string       `json:"modelID"`
	Limit      config.Limit `json:"limit"`
	Reasoning  bool         `json:"reasoning,omitempty"`
	// ReasoningLevels are the reasoning efforts the model takes, when the
	// catalog knows them (Anthropic's adaptive thinking takes an effort;
	// older Claude models a thinking budget).
	ReasoningLevels []string `json:"reasoningLevels,omitempty"`
	// DefaultEffort is the reasoning effort Podcode asks of a reasoning
	// model when nothing else does (chat.params, SPEC H15).
	DefaultEffort string         `json:"defaultReasoningEffort,omitempty"`
	Price         Price          `json:"price,omitzero"`
	Options       map[string]any `json:"options,omitempty"` // request options: the provider's, then the model's, merged
	// Connection is how to reach the provider (baseURL, apiKey, headers,
	// timeout), with {env:NAME} substituted. It never goes into a request
	// body, a hook payload, a log line or the API.
	Connection Connection `json:"-"`
}

// Price is what a model costs, in US dollars per million tokens: input
// read afresh, output, input read from the prompt cache, input written to
// it. All zero: not known.
type Price struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead,omitempty"`
	CacheWrite float64 `json:"cacheWrite,omitempty"`
}

// Cost is what u costs at m's prices, in US dollars (0 when they are not
// known). Input read afresh is what the cache neither served nor stored.
func (m Model) Cost(u chat.Usage) float64 {
	p := m.Price
	fresh := max(u.Input-u.CacheRead-u.CacheWrite, 0)
	return (float64(fresh)*p.Input + float64(u.Output)*p.Output + float64(u.CacheRead)*p.CacheRead + float64(u.CacheWrite)*p.CacheWrite) / 1e6
}

// Connection settings of a provider, from its options.
type Connection struct {
	API     string // one of the API constants
	BaseURL string
	APIKey  string
	// KeyEnv is the environment variable APIKey was read from, when it
	// came from there, so that an error about the key can name it.
	KeyEnv     string
	Headers    map[string]string
	Timeout    time.Duration
	MaxRetries int
	Region     string // Bedrock: the AWS region; Vertex AI: the location
	Project    string // Vertex AI: the Google Cloud project
	Profile    string // Bedrock: the AWS profile
	Replay     string // the offline model: a recorded conversation to replay
	// ReplaySum is the SHA-256 (hex) the recording had at start-up when the
	// project's file named it (it ran only because the user trusted that
	// content): LoadReplay refuses a recording changed since, by a tool
	// call or anything else. Empty for the user's own replays.
	ReplaySum string
}

// Endpoint is where the connection's requests go, for messages: the base
// URL, or the cloud service and region.
func (c Connection) Endpoint() string {
	switch {
	case c.BaseURL != "":
		return c.BaseURL
	case c.API == APIBedrock:
		return "Amazon Bedrock in " + orUnset(c.Region)
	case c.API == APIVertex:
		return "Vertex AI in " + orUnset(c.Region) + ", project " + orUnset(c.Project)
	}
	return c.API
}

func orUnset(s string) string {
	if s == "" {
		return "(not set)"
	}
	return s
}

// connectionKeys are the provider options that configure the connection,
// not the request.
var connectionKeys = map[string]bool{"api": true, "baseURL": true, "apiKey": true, "headers": true, "timeout": true, "maxRetries": true,
	"region": true, "project": true, "profile": true, "replay": true}

// copyRequestOptions copies the options of src that configure the request,
// not the connection, into dst.
func copyRequestOptions(dst, src map[string]any) {
	for k, v := range src {
		if !connectionKeys[k] {
			dst[k] = v
		}
	}
}

// getenv is os.Getenv; an empty value counts as not set.
var getenv = os.Getenv

// connection reads the connection settings out of a provider's options,
// over what the catalog knows of the provider (kp, nil for none): its API,
// its endpoint and the variable that holds its key.
func connection(pid string, opts map[string]any, kp *knownProvider) Connection {
	c := Connection{MaxRetries: 3, Timeout: 10 * time.Minute}
	str := func(k string) string {
		v, _ := opts[k].(string)
		return config.ExpandEnv(v)
	}
	c.API, c.BaseURL, c.APIKey = str("api"), strings.TrimRight(str("baseURL"), "/"), str("apiKey")
	c.Region, c.Project, c.Profile, c.Replay = str("region"), str("project"), str("profile"), str("replay")
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
	if c.API == "" {
		c.API = defaultAPI(pid, c.BaseURL, kp)
	}
	if c.BaseURL == "" && kp != nil {
		c.BaseURL = kp.endpoint
	}
	if v := getenv(ownBaseEnv[pid]); c.BaseURL == "" && v != "" && c.API == defaultAPI(pid, "", kp) {
		c.BaseURL = strings.TrimRight(v, "/") // a proxy of the user's, as the providers' own clients take it
	}
	keyEnvs := apiKeyEnv[c.API]
	if kp != nil && (kp.endpoint != "" || (kp.keyEnv != "" && !slices.Contains(keyEnvs, kp.keyEnv))) {
		// Another service's, at its own endpoint: its own variable only,
		// never the variable of the API it speaks (OPENAI_API_KEY).
		keyEnvs = nil
		if kp.keyEnv != "" {
			keyEnvs = []string{kp.keyEnv}
		}
	}
	if c.APIKey == "" && (kp != nil || pid == "openai") {
		// A provider's own key variable, for the providers Podcode knows:
		// never for an endpoint of the user's that speaks their API.
		for _, name := range keyEnvs {
			if v := getenv(name); v != "" {
				c.APIKey, c.KeyEnv = v, name
				break
			}
		}
	}
	switch c.API {
	case APIChat:
		if c.BaseURL == "" && pid == "openai" {
			c.BaseURL = "https://api.openai.com/v1"
		}
	case APIBedrock:
		c.Region = cmp.Or(c.Region, getenv("AWS_REGION"), getenv("AWS_DEFAULT_REGION"))
	case APIVertex:
		c.Project = cmp.Or(c.Project, getenv("GOOGLE_CLOUD_PROJECT"), getenv("GCLOUD_PROJECT"))
		c.Region = cmp.Or(c.Region, getenv("GOOGLE_CLOUD_LOCATION"), getenv("GOOGLE_CLOUD_REGION"), "global")
	}
	return c
}

// ownBaseEnv are the variables that move the providers' own endpoints (to
// a proxy, a gateway), as their own SDKs and tools read them.
var ownBaseEnv = map[string]string{"anthropic": "ANTHROPIC_BASE_URL", "openai": "OPENAI_BASE_URL", "gemini": "GOOGLE_GEMINI_BASE_URL"}

// apiKeyEnv are the variables that hold a key of each API's own service,
// in the order they are read.
var apiKeyEnv = map[string][]string{
	APIAnthropic: {"ANTHROPIC_API_KEY"},
	APIResponses: {"OPENAI_API_KEY"},
	APIChat:      {"OPENAI_API_KEY"},
	APIGemini:    {"GEMINI_API_KEY", "GOOGLE_API_KEY"},
}

// defaultAPI is the API of a provider whose options name none: the one
// the catalog knows it by; OpenAI's Responses API for "openai" at its own
// endpoint; chat completions for any endpoint given by its baseURL.
func defaultAPI(pid, baseURL string, kp *knownProvider) string {
	switch {
	case pid == Offline:
		return APIOffline
	case pid == "openai" && baseURL != "":
		return APIChat // an endpoint of the user's that OpenAI's clients talk to, as before the Responses API
	case kp != nil:
		return kp.api
	case baseURL != "":
		return APIChat
	}
	return ""
}

// Name is "provider/model".
func (m Model) Name() string { return m.ProviderID + "/" + m.ModelID }

// builtin are the models Podcode knows without any config or catalog.
var builtin = map[string]Model{
	DefaultModel: {ProviderID: Offline, ModelID: "echo", Limit: config.Limit{Context: 128000, Output: 4096}, Connection: Connection{API: APIOffline}},
}

// Catalog is every model Podcode can call: the built-in offline model,
// the models the config defines, and the models of the embedded catalog
// (known), which a provider's key makes callable.
//
// Lookup finds a model in that order. A model of the embedded catalog
// takes the options of its provider in the config (the connection, the
// request options), and a model the config defines under a provider the
// catalog knows starts from the catalog's entry (its limits, prices and
// reasoning) and overrides what it sets.
type Catalog struct {
	models map[string]Model // the built-in and the config's
	def    string
	// defWhy says why def was picked when the config named no model (a
	// provider's key in the environment); empty otherwise.
	defWhy string
	cfg    *config.Config
	// Warnings name what of the config the catalog did not take (a
	// project's model it does not know), with file, position and key.
	Warnings []string
}

// NewCatalog returns the built-in models plus the config's; a model the
// config names under a provider is added to (or overrides) that provider.
// The default model is the user's choice, or the project's when it names a
// model the user's file or Podcode defines (config.Choose): a project's
// file cannot make Podcode call a model the user never set up. With no
// choice at all, a provider's key in the environment picks that provider's
// default model (DefaultWhy says which and why).
func NewCatalog(cfg *config.Config) *Catalog {
	c := &Catalog{models: maps.Clone(builtin), def: DefaultModel, cfg: cfg}
	if cfg == nil {
		return c
	}
	for pid, p := range cfg.Provider {
		kp := known(pid)
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
			m.Connection = connection(pid, p.Options, kp)
			pinReplay(cfg, &m.Connection, "provider."+pid+".options.replay")
			c.models[name] = m
		}
		for mid, m := range p.Models {
			name := pid + "/" + mid
			base, ok := c.models[name]
			if !ok {
				base, _ = knownModel(pid, mid)
			}
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
			model := Model{ProviderID: pid, ModelID: mid, Limit: limit, Reasoning: m.Reasoning || base.Reasoning,
				ReasoningLevels: base.ReasoningLevels, DefaultEffort: base.DefaultEffort, Price: base.Price, Options: opts,
				Connection: connection(pid, all, kp)}
			if m.Cost != nil {
				model.Price = Price(*m.Cost)
			}
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
			hint := ""
			if _, known := c.lookupKnown(pm); known == nil {
				hint = fmt.Sprintf(" (to use it, name it in your own file: \"provider\": {%q: {\"models\": {%q: {}}}}, or pass --model %s)",
					strings.SplitN(pm, "/", 2)[0], strings.SplitN(pm, "/", 2)[1], pm)
			}
			c.Warnings = append(c.Warnings, fmt.Sprintf("%s: %q ignored: a project's file may only pick a model the user's file or Podcode defines (defined: %s)%s",
				at, pm, strings.Join(c.Names(), ", "), hint))
		}
	}
	if cfg.Model == "" && c.def == DefaultModel {
		c.def, c.defWhy = envDefault()
	}
	return c
}

// envDefault is the model picked when no config names one: the default
// model of the first provider whose key is in the environment (Anthropic,
// then OpenAI, then Gemini), with the reason; offline/echo without any.
func envDefault() (model, why string) {
	for _, c := range []struct{ pid, api string }{{"anthropic", APIAnthropic}, {"openai", APIResponses}, {"gemini", APIGemini}} {
		for _, name := range apiKeyEnv[c.api] {
			if getenv(name) == "" {
				continue
			}
			if kp := known(c.pid); kp != nil && kp.defaultModel != "" {
				return c.pid + "/" + kp.defaultModel, name + " is set"
			}
		}
	}
	return DefaultModel, ""
}

// KeyVariables are the environment variables whose key makes a provider's
// models callable with no config (and picks the default model): the
// variables tests clear so that nothing reaches a real provider.
func KeyVariables() []string {
	seen := map[string]bool{}
	var out []string
	add := func(n string) {
		if n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	for _, api := range APIs {
		for _, n := range apiKeyEnv[api] {
			add(n)
		}
	}
	for _, pid := range slices.Sorted(maps.Keys(knownProviders())) {
		add(knownProviders()[pid].keyEnv)
	}
	for _, n := range []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE", "AWS_BEARER_TOKEN_BEDROCK",
		"GOOGLE_APPLICATION_CREDENTIALS", "GOOGLE_CLOUD_PROJECT"} {
		add(n)
	}
	return out
}

// unsetEnv warns about each {env:NAME} of the providers' connection
// settings whose variable is not set: the value silently becomes empty
// (a key, an endpoint), and the provider's answer (401, a refused
// connection) would not say why. Each warning names the variable and
// where the setting was written: file, position and key.
func unsetEnv(cfg *config.Config) []string {
	var out []string
	check := func(key string, opts map[string]any) {
		for _, k := range []string{"baseURL", "apiKey", "headers", "replay", "region", "project", "profile"} {
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

// Default returns the model the config selects: offline/echo without one,
// unless a provider's key is in the environment (DefaultWhy).
func (c *Catalog) Default() (Model, error) { return c.Lookup(c.def) }

// Defined says whether name is a model the config defines, the built-in
// one, or the default: what a tenant of the server may pick (the embedded
// catalog's others would be called with whatever credentials the server's
// environment holds).
func (c *Catalog) Defined(name string) bool {
	_, ok := c.models[name]
	return ok || name == c.def
}

// DefaultWhy says why the default model was picked when no config named
// one ("ANTHROPIC_API_KEY is set"); empty when the config named it, or
// when it is the offline model.
func (c *Catalog) DefaultWhy() string { return c.defWhy }

// Lookup returns the model named "provider/model": one the config defines
// (or the built-in offline model), else one of the embedded catalog, with
// its provider's options from the config.
func (c *Catalog) Lookup(name string) (Model, error) {
	if m, ok := c.models[name]; ok {
		return m, nil
	}
	pid, mid, ok := strings.Cut(name, "/")
	if !ok || pid == "" || mid == "" {
		return Model{}, fmt.Errorf("model %q is not of the form provider/model", name)
	}
	m, err := c.lookupKnown(name)
	if err == nil {
		return m, nil
	}
	return Model{}, err
}

// lookupKnown returns a model of the embedded catalog, callable with the
// config's settings of its provider.
func (c *Catalog) lookupKnown(name string) (Model, error) {
	pid, mid, _ := strings.Cut(name, "/")
	m, ok := knownModel(pid, mid)
	if !ok {
		return Model{}, c.unknown(pid, mid)
	}
	var opts map[string]any
	if c.cfg != nil {
		opts = c.cfg.Provider[pid].Options
	}
	m.Options = map[string]any{}
	copyRequestOptions(m.Options, opts)
	m.Connection = connection(pid, opts, known(pid))
	return m, nil
}

// unknown is the error for a model nobody defines: it names where to
// define it and the closest known names.
func (c *Catalog) unknown(pid, mid string) error {
	if kp := known(pid); kp != nil {
		return fmt.Errorf("unknown model %q: %s has no model %q in the catalog (closest: %s; `podcode models %s` lists them all), "+
			"or define it under provider.%s.models.%s with its limits",
			pid+"/"+mid, pid, mid, strings.Join(closest.Names(mid, kp.modelIDs(), 4), ", "), pid, pid, mid)
	}
	return fmt.Errorf("unknown model %q: add it under provider.%s.models.%s with its limits, or pick one of the catalog's (`podcode models`; defined here: %s)",
		pid+"/"+mid, pid, mid, strings.Join(c.Names(), ", "))
}

// Names lists the models the config defines and the built-in one, sorted
// (the embedded catalog's are Known).
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
