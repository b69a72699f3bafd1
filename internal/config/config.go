// Package config loads Podcode's configuration: a user-level podcode.json
// and the project's podcode.json over it.
//
// Files are JSON with comments and trailing commas allowed. Every error names
// the file, the line and column, and the key; a key Podcode does not know is a
// warning (with its position), never a silent no-op.
//
// Layers, in order: the user's file ($XDG_CONFIG_HOME/podcode/podcode.json,
// by default ~/.config/podcode/podcode.json), then the project's
// (podcode.json in the directory Podcode starts in).
//
// A project's file is code that comes with a cloned repository, and is
// treated as such: one table, Keys, says for every key what a project's
// file may do with it (set it, only tighten it, only add to it, reach only
// its own code, set it once trusted, or nothing), and the merge follows
// it. What needs trust is held back (Pending) until the caller's trust
// gate allows it (ApplyTrusted); a project's {env:NAME} is never expanded.
// Each merged value keeps where it came from (Origins).
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/url"
	"os"
	pathpkg "path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/tailscale/hujson"

	"github.com/podcode/podcode/internal/logging"
	"github.com/podcode/podcode/internal/trust"
)

// FileName is the name of a configuration file.
const FileName = "podcode.json"

// Config is the merged configuration.
type Config struct {
	// Plugin lists plugin specifiers in load order: the user's, then the
	// project's (SPEC H2). A specifier is a path relative to the file that
	// names it, an absolute path, a file:// URL, or an npm package name
	// resolved from the node_modules beside that file.
	Plugin []PluginRef
	// PluginConfig is the user's plugin_config: each plugin's own block,
	// by plugin id (SPEC P9), as raw JSON. A plugin reads the block of its
	// own layer (PluginConfigFor): the project's file cannot change the
	// config of a plugin the user installed.
	PluginConfig map[string]json.RawMessage
	// ProjectPluginConfig is the project's plugin_config: it reaches only
	// the plugins that came with the project.
	ProjectPluginConfig map[string]json.RawMessage
	// DisabledPlugins are ids (or specifiers, or file names) never loaded:
	// the union of both files. The project's file can only disable code
	// that came with the project, and not its guards (the loaders ask
	// DisabledFor(false) for those): ask DisabledFor.
	DisabledPlugins []string
	// disabledByUser are the user's entries of DisabledPlugins.
	disabledByUser []string
	// Model is the user's "provider/model". Empty means the default.
	Model string
	// ProjectModel is the project's choice (Choose): the catalog takes it
	// only if it names a model the user's file, Podcode, or the project's
	// trusted settings define.
	ProjectModel string
	// Provider configures model providers. Endpoints, keys, headers and
	// connection settings are the user's alone; a project's request
	// options, new models and replay files need trust; a project may only
	// lower the limits of the user's models.
	Provider map[string]Provider
	// Tools configures the built-in tools; a project may only tighten them
	// (shorter limits, fewer paths, private fetch off).
	Tools Tools
	// PluginLimits is the user's plugin_limits: what each JavaScript
	// plugin may use. A project's file may only lower them, and its values
	// reach only the plugins that came with the project (PluginLimitsFor):
	// a lower budget stops a plugin sooner, and a cloned repository must
	// not be able to stop the user's plugins (a guard among them).
	PluginLimits PluginLimits
	// projectPluginLimits are the project's plugin_limits, each lower than
	// the user's (or the default) or not set.
	projectPluginLimits PluginLimits
	// Permission is the user's rules: a tool id or a glob over tool ids to
	// allow, ask or deny.
	Permission map[string]string
	// ProjectPermission is the project's rules, kept apart from the
	// user's: for each tool, the stricter of the user's decision and the
	// project's matching rule wins (guard.NewPolicy), so a project's exact
	// "bash": "allow" cannot beat the user's "*": "ask".
	ProjectPermission map[string]string
	// Agent configures the turn loop: a project may only lower max_steps
	// and loop_guard; its system prompt follows the user's.
	Agent Agent
	// Server configures `podcode serve`: the user's file only. Where the
	// server listens and who may call it are not a cloned repository's
	// to decide.
	Server Server
	// Hooks switches lifecycle handlers off by "<plugin id>/<Event>"
	// (false removes that plugin's handlers of that event). The user's
	// entries apply to every handler; the project's only to handlers that
	// came with the project (HookOverridesFor), and never to a guard of
	// the project's (fail-closed manifest entries, .claude PreToolUse
	// hooks: the loaders ask HookOverridesFor(false) for those), so a
	// cloned repository cannot switch off a guard the user relies on, and
	// one the user's file switches off stays off whatever the project's
	// says.
	Hooks map[string]HookOverride
	// Cron jobs, by name. The project's file may add jobs, never replace
	// the user's; its jobs are project code (they run prompts unattended):
	// they are merged only once trusted (ApplyTrusted; Project is set on
	// them).
	Cron []CronJob
	// Webhooks by name, merged as Cron.
	Webhooks map[string]Webhook
	// MCP is the Model Context Protocol servers whose tools Podcode uses,
	// by name: the user's, then the project's, which never replace one of
	// the user's. A project's server is project code: it starts only once
	// its own entry is trusted (package mcpclient).
	MCP map[string]MCPServer
	// DisableProjectPlugins (user's file only) stops all code that comes
	// with the project: its plugins, manifests and .claude hooks. A
	// project's file cannot switch it off.
	DisableProjectPlugins bool
	// Store, Bus and Cluster (user's file only) make the server one node
	// of many: sessions in PostgreSQL, events between nodes over NATS.
	// Where sessions go and which servers hear every event are not a
	// cloned repository's to decide. See docs/deploy.md.
	Store   Store
	Bus     Bus
	Cluster Cluster

	// Files are the configuration files that were read, in layer order.
	Files []string
	// UserDir is the user's Podcode folder the config was read from; its
	// plugins folder is auto-discovered too.
	UserDir string
	// Warnings are problems that did not stop loading (an unknown key, a
	// project's key ignored), each naming its file, position and key.
	Warnings []string

	user    map[string]any       // the user's file, decoded: what a project's Tighten key is compared with
	pending []Setting            // the project's settings that need trust
	origins map[string][]Setting // every merged setting, by key
}

// DefaultPluginMemoryMB is a plugin's memory budget when no file sets one.
const DefaultPluginMemoryMB = 256

// PluginLimits bound what one JavaScript plugin may use (plugin_limits).
type PluginLimits struct {
	// MemoryMB is each plugin's memory budget in MiB (DefaultPluginMemoryMB
	// if zero). A job that grows the heap by more is stopped; a plugin that
	// retains more is stopped for good (see docs/plugins.md). Set by the
	// user; a project's file may only lower it, for its own plugins.
	MemoryMB int `json:"memory_mb,omitempty"`
}

// PluginLimitsFor returns the limits of a plugin of the user's (project
// false: the user's values) or of one that came with the project (the
// project's values where it set them lower), defaults filled in.
func (cfg *Config) PluginLimitsFor(project bool) PluginLimits {
	l := cfg.PluginLimits
	if project && cfg.projectPluginLimits.MemoryMB > 0 {
		l.MemoryMB = cfg.projectPluginLimits.MemoryMB
	}
	if l.MemoryMB <= 0 {
		l.MemoryMB = DefaultPluginMemoryMB
	}
	return l
}

// PluginConfigFor returns the plugin_config block a plugin reads: the
// user's for a plugin of the user's, the project's for one that came with
// the project.
func (cfg *Config) PluginConfigFor(id string, project bool) (json.RawMessage, bool) {
	blocks := cfg.PluginConfig
	if project {
		blocks = cfg.ProjectPluginConfig
	}
	raw, ok := blocks[id]
	return raw, ok
}

// PluginRef is one entry of a plugin array, with where it was written.
type PluginRef struct {
	Spec    string // as written
	Dir     string // the directory of the file that names it: relative specifiers resolve here
	File    string // that file
	Line    int
	Project bool // named by the project's file rather than the user's
}

// Provider is one entry of provider. Its options hold the connection
// (baseURL, apiKey, headers, timeout, maxRetries: the user's file only;
// replay: a project's needs trust) and request options (a project's need
// trust); see Keys.
type Provider struct {
	Options map[string]any   `json:"options,omitempty"`
	Models  map[string]Model `json:"models,omitempty"`
}

// Model is one model of a provider. A project's file may lower the limits
// of a model the user's file defines; defining a model, its options and
// reasoning need trust.
type Model struct {
	Limit     Limit          `json:"limit"`
	Options   map[string]any `json:"options,omitempty"`
	Reasoning bool           `json:"reasoning,omitempty"` // the model takes a reasoning-effort option
	// Cost is what the user pays for the model, replacing the catalog's
	// prices (the user's file only).
	Cost *Cost `json:"cost,omitempty"`
}

// Cost is a model's prices in US dollars per million tokens: of input read
// afresh, of output, of input read from the prompt cache and written to it.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead,omitempty"`
	CacheWrite float64 `json:"cacheWrite,omitempty"`
}

// Limit is a model's token limits.
type Limit struct {
	Context int `json:"context"`
	Output  int `json:"output"`
}

// Tools configures built-in tools.
type Tools struct {
	// AllowedPaths are directories outside the project that file tools and
	// bash may use. Relative paths resolve against the file that names them.
	// A project's list only narrows the user's (narrowAllowedPaths).
	AllowedPaths []string `json:"allowed_paths,omitempty"`
	// BashTimeoutMs is bash's default time limit; a call may ask for less.
	// A project's file may only lower it.
	BashTimeoutMs int `json:"bash_timeout_ms,omitempty"`
	// PluginTimeoutMs limits each execute of a plugin's tool. A project's
	// file may only lower it.
	PluginTimeoutMs int `json:"plugin_timeout_ms,omitempty"`
	// AllowPrivateFetch lets webfetch reach loopback, private and every other
	// special-purpose address (see tool.FetchOptions). The user's file
	// switches it on; a project's may only switch it off.
	AllowPrivateFetch bool `json:"allow_private_fetch,omitempty"`
	// Sandbox runs the default tenant's bash commands confined by the
	// operating system to the project and allowed_paths (package sandbox);
	// other tenants' commands are always confined to their own workspace,
	// whatever this says. Set by the user; a project's file may switch it
	// on, never off.
	Sandbox bool `json:"sandbox,omitempty"`
	// SandboxNetwork lets confined commands use the network. User's file
	// only to switch it on; a project's file may only switch it off.
	SandboxNetwork bool `json:"sandbox_network,omitempty"`
}

// Agent configures the turn loop. A project's file may lower MaxSteps and
// LoopGuard, set AskTimeoutMs, and add to System.
type Agent struct {
	MaxSteps     int    `json:"max_steps,omitempty"`      // model calls per turn; 50 if zero
	LoopGuard    int    `json:"loop_guard,omitempty"`     // identical tool calls in a row that are refused; 3 if zero
	AskTimeoutMs int    `json:"ask_timeout_ms,omitempty"` // how long a permission question waits; 5 minutes if zero
	System       string `json:"system,omitempty"`         // the system prompt: the user's, then the project's
}

// Store is where sessions are kept: the SQLite database in the data
// directory when URL is empty, else the PostgreSQL database it names
// (postgres:// or postgresql://; {env:NAME} expanded when opened).
type Store struct {
	URL string `json:"url,omitempty"`
}

// Bus is how the nodes of a deployment share events, permission answers
// and cancels: the NATS server URL names (nats://; {env:NAME} expanded),
// or none (one node) when empty. It needs Store.URL: nodes that do not
// share their sessions cannot share their turns.
type Bus struct {
	URL string `json:"url,omitempty"`
	// Stream names the deployment's JetStream stream (and the subjects of
	// its requests between nodes); "PODCODE_EVENTS" when empty. Two
	// deployments on one NATS server need two names.
	Stream string `json:"stream,omitempty"`
}

// Cluster tunes a node of many (with Bus.URL set).
type Cluster struct {
	// Node names this node in leases, logs and events; the host name and
	// the process id when empty. Two live nodes must not share a name.
	Node string `json:"node,omitempty"`
	// LeaseMs is how long a turn's lease lasts without renewal (renewed
	// every third of it): a node killed mid-turn has its turn marked
	// interrupted by another node within about this long; 15000 if zero.
	LeaseMs int `json:"lease_ms,omitempty"`
}

// Server configures the HTTP server: the user's file only, every key.
type Server struct {
	Addr  string `json:"addr,omitempty"`  // 127.0.0.1:4096 if empty
	Token string `json:"token,omitempty"` // the API token; PODCODE_API_TOKEN overrides
	// Tokens are further API tokens, each acting for a tenant and a user
	// (user's file only). {env:NAME} in a token is the variable's value.
	Tokens []TenantToken `json:"tokens,omitempty"`
	ServerLimits
}

// ServerLimits bound what HTTP clients may hold of the server (server.*,
// flat beside addr). User's file only: they decide what the server
// withstands, so a project's file cannot set them (a warning says it was
// ignored). Zero or unset means the default; negative is an error.
type ServerLimits struct {
	ReadHeaderTimeoutMs int `json:"read_header_timeout_ms,omitempty"` // to read a request's headers; 10 s
	ReadTimeoutMs       int `json:"read_timeout_ms,omitempty"`        // to read a whole request, headers and body; 60 s
	WriteTimeoutMs      int `json:"write_timeout_ms,omitempty"`       // for each write of an answer or event; 30 s
	IdleTimeoutMs       int `json:"idle_timeout_ms,omitempty"`        // a keep-alive connection between requests; 60 s
	MaxConns            int `json:"max_conns,omitempty"`              // open connections; 512
	// MaxUnauthenticatedConns caps the connections that have not yet sent
	// a request with a valid token; 128.
	MaxUnauthenticatedConns int `json:"max_unauthenticated_conns,omitempty"`
	EventsQueue             int `json:"events_queue,omitempty"`  // events waiting for an /events client before it is disconnected; 256
	EventsReplay            int `json:"events_replay,omitempty"` // latest events kept for clients that resume (Last-Event-ID); 1024
	// MCPPollAfterMs: a tools/call at /mcp still running this long has its
	// event stream closed with a retry: delay, for the client to resume
	// (below a proxy's idle timeout); 50 s.
	MCPPollAfterMs int `json:"mcp_poll_after_ms,omitempty"`
}

// fields are the limits by key, for merging and validating them.
func (l *ServerLimits) fields() []limitField {
	return []limitField{
		{"read_header_timeout_ms", &l.ReadHeaderTimeoutMs}, {"read_timeout_ms", &l.ReadTimeoutMs},
		{"write_timeout_ms", &l.WriteTimeoutMs}, {"idle_timeout_ms", &l.IdleTimeoutMs},
		{"max_conns", &l.MaxConns}, {"max_unauthenticated_conns", &l.MaxUnauthenticatedConns},
		{"events_queue", &l.EventsQueue}, {"events_replay", &l.EventsReplay},
		{"mcp_poll_after_ms", &l.MCPPollAfterMs},
	}
}

type limitField struct {
	key string
	v   *int
}

// mergeServerLimits takes the limits a file sets. Only the user's file
// gets here with any: Keys drops a project's (the server's limits are the
// user's alone).
func (cfg *Config) mergeServerLimits(l ServerLimits) {
	into := cfg.Server.ServerLimits.fields()
	for i, f := range l.fields() {
		mergeNonZero(into[i].v, *f.v)
	}
}

// validateServerLimits refuses negative limits, naming the key.
func validateServerLimits(l ServerLimits, at func(key, msg string) error) error {
	for _, f := range l.fields() {
		if *f.v < 0 {
			return at("server."+f.key, fmt.Sprintf("%d: must not be negative (0 or unset: the default)", *f.v))
		}
	}
	return nil
}

// TenantToken maps an API token to the tenant and user it acts for.
type TenantToken struct {
	Token    string `json:"token"`
	TenantID int64  `json:"tenant_id"`
	UserID   string `json:"user_id"`
}

// HookOverride is one entry of hooks.
type HookOverride struct {
	Enabled *bool `json:"enabled,omitempty"`
	Project bool  `json:"-"` // written in the project's file
}

// CronJob is one entry of cron.
type CronJob struct {
	Name     string `json:"name"`
	Schedule string `json:"schedule"`          // five fields: minute hour day-of-month month day-of-week
	Prompt   string `json:"prompt"`            // what the turn is asked
	Session  string `json:"session,omitempty"` // a session to continue; a new session each run if empty
	Project  bool   `json:"-"`                 // written in the project's file
}

// Webhook is one entry of webhooks.
type Webhook struct {
	Secret  string `json:"secret"` // HMAC-SHA256 key; {env:NAME} is the variable's value
	Prompt  string `json:"prompt"` // a text/template over .Body, .JSON and .Headers
	Project bool   `json:"-"`      // written in the project's file
}

// MCPServer is one entry of mcp, in opencode's shape: a local server is a
// command Podcode starts and talks to over stdio, a remote one a URL
// (streamable HTTP, or SSE for older servers).
type MCPServer struct {
	Type        string            `json:"type"`                  // "local" or "remote"
	Command     []string          `json:"command,omitempty"`     // local: the program and its arguments
	Environment map[string]string `json:"environment,omitempty"` // local: added to the environment; {env:NAME} expanded (user's file)
	URL         string            `json:"url,omitempty"`         // remote: the endpoint; {env:NAME} expanded (user's file)
	Headers     map[string]string `json:"headers,omitempty"`     // remote: sent with every request; {env:NAME} expanded (user's file)
	Enabled     *bool             `json:"enabled,omitempty"`     // false: not started
	Timeout     int               `json:"timeout,omitempty"`     // ms: bounds start-up and each call; 0 for the defaults
	// Sampling: whether the server's sampling/createMessage requests are
	// answered by the model without asking ("allow"), after asking the
	// user ("ask", the default) or never ("deny"). The user's file only.
	Sampling string `json:"sampling,omitempty"`
	// OAuth: remote: the client Podcode signs in to the server's
	// authorization server as, or "oauth": false for none. The user's
	// file only.
	OAuth   *MCPOAuth `json:"oauth,omitempty"`
	Project bool      `json:"-"` // written in the project's file
	File    string    `json:"-"` // the file that declares it
	Line    int       `json:"-"` // the entry's line in File
}

// ValidMCPServer checks one mcp entry: its name (it becomes part of tool
// ids), its type, and what that type needs.
func ValidMCPServer(name string, m MCPServer) error {
	if name == "" || strings.ContainsFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_')
	}) {
		return fmt.Errorf("%q is not a usable MCP server name (letters, digits, - and _: it prefixes the ids of its tools)", name)
	}
	switch m.Type {
	case "local":
		if len(m.Command) == 0 || strings.TrimSpace(m.Command[0]) == "" {
			return fmt.Errorf("a local MCP server needs a command (a list: the program, then its arguments)")
		}
		if m.URL != "" || len(m.Headers) > 0 {
			return fmt.Errorf("a local MCP server takes no url or headers (those are for \"type\": \"remote\")")
		}
	case "remote":
		if m.URL == "" {
			return fmt.Errorf("a remote MCP server needs a url")
		}
		if len(m.Command) > 0 || len(m.Environment) > 0 {
			return fmt.Errorf("a remote MCP server takes no command or environment (those are for \"type\": \"local\")")
		}
	case "":
		return fmt.Errorf("an MCP server needs a type: \"local\" (a command) or \"remote\" (a url)")
	default:
		return fmt.Errorf("type %q is not \"local\" or \"remote\"", m.Type)
	}
	if m.Timeout < 0 {
		return fmt.Errorf("timeout must not be negative")
	}
	switch m.Sampling {
	case "", "allow", "ask", "deny":
	default:
		return fmt.Errorf("sampling %q is not \"allow\", \"ask\" or \"deny\"", m.Sampling)
	}
	if m.OAuth != nil {
		if m.Type != "remote" {
			return fmt.Errorf("oauth is for a remote MCP server")
		}
		if err := m.OAuth.valid(); err != nil {
			return fmt.Errorf("oauth: %w", err)
		}
	}
	return nil
}

// MCPOAuth is a remote MCP server's oauth entry, opencode's shape: how
// Podcode signs in to the authorization server the server names (OAuth
// 2.1, authorization code with PKCE). No entry: a client is registered
// (a Client ID Metadata Document, else dynamic client registration) and
// the scopes are the server's. "oauth": false: no OAuth at all (a 401 is
// an error, as for a server that takes a token in headers).
type MCPOAuth struct {
	Disabled bool `json:"-"` // "oauth": false
	// ClientID is a client the user registered with the authorization
	// server; an https URL with a path is a Client ID Metadata Document,
	// used where the authorization server takes one.
	ClientID string `json:"clientId,omitempty"`
	// ClientSecret goes with ClientID; {env:NAME} expanded.
	ClientSecret string `json:"clientSecret,omitempty"`
	// Scope is scopes, space-separated, asked for besides the server's.
	Scope string `json:"scope,omitempty"`
	// Issuer is the authorization server the client is registered with:
	// another one, named by the server, is refused (and gets no secret).
	Issuer string `json:"issuer,omitempty"`
}

// UnmarshalJSON takes false (no OAuth), true (the default) or the object.
func (o *MCPOAuth) UnmarshalJSON(b []byte) error {
	switch strings.TrimSpace(string(b)) {
	case "false":
		*o = MCPOAuth{Disabled: true}
		return nil
	case "true":
		*o = MCPOAuth{}
		return nil
	}
	type plain MCPOAuth
	var p plain
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("oauth: false, or an object of clientId, clientSecret, scope and issuer: %w", err)
	}
	*o = MCPOAuth(p)
	return nil
}

// MarshalJSON writes false for Disabled.
func (o MCPOAuth) MarshalJSON() ([]byte, error) {
	if o.Disabled {
		return []byte("false"), nil
	}
	type plain MCPOAuth
	return json.Marshal(plain(o))
}

func (o *MCPOAuth) valid() error {
	if o.ClientSecret != "" && o.ClientID == "" {
		return fmt.Errorf("a clientSecret needs its clientId")
	}
	if lower := strings.ToLower(o.ClientID); strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") {
		if u, err := url.Parse(o.ClientID); err != nil || u.Scheme != "https" || u.Host == "" || u.Path == "" || u.Path == "/" {
			return fmt.Errorf("clientId %q: a URL clientId (a Client ID Metadata Document) is https, with a path", o.ClientID)
		}
		if o.ClientSecret != "" {
			return fmt.Errorf("a URL clientId (a Client ID Metadata Document) takes no clientSecret")
		}
	}
	if o.Issuer != "" {
		if u, err := url.Parse(o.Issuer); err != nil || u.Host == "" || u.Scheme != "https" && u.Scheme != "http" {
			return fmt.Errorf("issuer %q is not an http(s) URL", o.Issuer)
		}
		// The issuer pins the client the user registered: without one it
		// would pin nothing, and say it did.
		if o.ClientID == "" || strings.Contains(o.ClientID, "://") {
			return fmt.Errorf("issuer %q names where a registered clientId is valid: it needs one (not a URL clientId)", o.Issuer)
		}
	}
	return nil
}

// ExpandEnv substitutes {env:NAME} in s with the environment variable NAME,
// in one pass: a value that itself holds {env:...} is not expanded again.
// An unset variable expands to nothing; ExpandEnvUnset says which were.
func ExpandEnv(s string) string {
	out, _ := ExpandEnvUnset(s)
	return out
}

// ExpandEnvUnset is ExpandEnv that also returns the names of the variables
// s names that are not set, each once, in order: a value that silently
// became empty (a key, a token) is worth a warning that names them.
func ExpandEnvUnset(s string) (string, []string) {
	var b strings.Builder
	var unset []string
	for {
		i := strings.Index(s, "{env:")
		if i < 0 {
			b.WriteString(s)
			return b.String(), unset
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String(), unset
		}
		b.WriteString(s[:i])
		name := s[i+5 : i+j]
		v, ok := os.LookupEnv(name)
		if !ok && !slices.Contains(unset, name) {
			unset = append(unset, name)
		}
		b.WriteString(v)
		s = s[i+j+1:]
	}
}

// file is the shape of one configuration file.
type file struct {
	Schema          string                     `json:"$schema,omitempty"`
	Plugin          []string                   `json:"plugin,omitempty"`
	PluginConfig    map[string]json.RawMessage `json:"plugin_config,omitempty"`
	DisabledPlugins []string                   `json:"disabled_plugins,omitempty"`
	Model           string                     `json:"model,omitempty"`
	Provider        map[string]Provider        `json:"provider,omitempty"`
	Tools           Tools                      `json:"tools"`
	PluginLimits    PluginLimits               `json:"plugin_limits"`
	Permission      map[string]string          `json:"permission,omitempty"`
	Agent           Agent                      `json:"agent"`
	Server          Server                     `json:"server"`
	Hooks           map[string]HookOverride    `json:"hooks,omitempty"`
	Cron            []CronJob                  `json:"cron,omitempty"`
	Webhooks        map[string]Webhook         `json:"webhooks,omitempty"`
	MCP             map[string]MCPServer       `json:"mcp,omitempty"`
	// DisableProjectPlugins is honoured in the user's file only.
	DisableProjectPlugins *bool   `json:"disable_project_plugins,omitempty"`
	Store                 Store   `json:"store"`
	Bus                   Bus     `json:"bus"`
	Cluster               Cluster `json:"cluster"`
}

// Error is a problem in a configuration file, with its position.
type Error struct {
	File      string
	Line, Col int    // 1-based; zero when unknown
	Key       string // dotted path, e.g. provider.openai.models.gpt.limit.output
	Msg       string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d:%d", e.Line, e.Col)
	}
	if e.Key != "" {
		fmt.Fprintf(&b, ": key %q", e.Key)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

// UserDir is the user's Podcode folder: $XDG_CONFIG_HOME/podcode, else
// ~/.config/podcode.
func UserDir() (string, error) {
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "podcode"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("config: no user config folder: %w", err)
	}
	return filepath.Join(home, ".config", "podcode"), nil
}

// UserDataDir is the user's Podcode data folder, $XDG_DATA_HOME/podcode
// (an absolute XDG_DATA_HOME only, as the XDG spec says), else
// ~/.local/share/podcode: what Podcode keeps for the user outside any
// project (each project's data directory, under projects/; the MCP
// servers' OAuth tokens, under mcp-auth/).
func UserDataDir() (string, error) {
	base := os.Getenv("XDG_DATA_HOME")
	if !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no user data folder (%w); set XDG_DATA_HOME", err)
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "podcode"), nil
}

// Load reads the user's file (if any) and the project's file in cwd (if
// any) and merges them. Missing files are not errors.
func Load(cwd string) (*Config, error) {
	userDir, err := UserDir()
	if err != nil {
		return nil, err
	}
	return LoadFrom(cwd, userDir)
}

// LoadFrom is Load with the user's Podcode folder given.
func LoadFrom(cwd, userDir string) (*Config, error) {
	cfg := &Config{UserDir: userDir}
	for _, layer := range []struct {
		path    string
		project bool
	}{
		{filepath.Join(userDir, FileName), false},
		{filepath.Join(cwd, FileName), true},
	} {
		if layer.project && len(cfg.Files) == 1 && sameFile(cfg.Files[0], layer.path) {
			continue // started in the user's config folder: one file, read once
		}
		data, err := readFile(layer.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		if err := cfg.merge(layer.path, data, layer.project); err != nil {
			return nil, err
		}
	}
	return cfg, nil
}

// Bounds of a configuration file. A project's file is read before the
// user trusted anything: a link to /dev/zero, a FIFO, a huge file or
// arrays nested a million deep must be an error that names the file, not
// a server that hangs, runs out of memory or overflows its stack.
const (
	MaxFileSize = 4 << 20 // bytes
	MaxNesting  = 1000    // objects and arrays one inside another
)

// readFile reads a configuration file: a regular file (wherever its links
// lead) of at most MaxFileSize bytes, opened without blocking on a FIFO.
func readFile(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &Error{File: path, Msg: "not a regular file but " + trust.FileType(fi.Mode())}
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, &Error{File: path, Msg: fmt.Sprintf("larger than %d MiB", MaxFileSize>>20)}
	}
	return data, nil
}

// Nesting returns the offset of the first object or array that lies
// deeper than limit in data (JSON with comments), or -1. Strings and
// comments do not count. Run before parsing what may nest a million deep:
// the parser would overflow its stack.
func Nesting(data []byte, limit int) int {
	depth := 0
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case c == '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '/':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(data) && data[i+1] == '*':
			end := bytes.Index(data[i+2:], []byte("*/"))
			if end < 0 {
				return -1 // the parser says where the comment is not closed
			}
			i += 2 + end + 1
		case c == '{' || c == '[':
			if depth++; depth > limit {
				return i
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return -1
}

func sameFile(a, b string) bool {
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// Parse reads one file's content as the only layer (for tests and tools).
func Parse(path string, data []byte, project bool) (*Config, error) {
	cfg := &Config{}
	if err := cfg.merge(path, data, project); err != nil {
		return nil, err
	}
	return cfg, nil
}

// merge decodes one file and merges it over cfg.
//
// Every key of the file passes the table (Keys) first: the user's file
// sets them all; of the project's, a key the user alone may set is dropped
// with a warning, one that needs trust is held back (Pending), a tightening
// key applies only where it is stricter, and the rest merge as mergeFile
// states for each key.
func (cfg *Config) merge(path string, data []byte, project bool) error {
	_, lines, settings, warnings, err := decode(path, data, project)
	if err != nil {
		return err
	}
	cfg.Files = append(cfg.Files, path)
	cfg.Warnings = append(cfg.Warnings, warnings...)
	if !project {
		cfg.user = tree(settings)
	} else {
		settings = slices.DeleteFunc(settings, func(s Setting) bool { return !cfg.admit(s) })
	}
	return cfg.mergeSettings(path, settings, lines, project)
}

// mergeFile merges one decoded file over cfg; set holds the keys the file
// sets (after the table dropped or held back the project's), so that an
// explicit false or empty list counts.
func (cfg *Config) mergeFile(path string, f *file, lines []int, project bool, set map[string]bool) {
	dir := filepath.Dir(path)
	for i, spec := range f.Plugin {
		ref := PluginRef{Spec: spec, Dir: dir, File: path, Project: project}
		if i < len(lines) {
			ref.Line = lines[i]
		}
		cfg.Plugin = append(cfg.Plugin, ref)
	}
	for id, raw := range f.PluginConfig {
		blocks := &cfg.PluginConfig
		if project {
			blocks = &cfg.ProjectPluginConfig
		}
		if *blocks == nil {
			*blocks = map[string]json.RawMessage{}
		}
		(*blocks)[id] = raw
	}
	for _, id := range f.DisabledPlugins {
		if !slices.Contains(cfg.DisabledPlugins, id) {
			cfg.DisabledPlugins = append(cfg.DisabledPlugins, id)
		}
		if !project {
			cfg.disabledByUser = append(cfg.disabledByUser, id)
		}
	}
	if project {
		mergeNonZero(&cfg.ProjectModel, f.Model)
	} else {
		mergeNonZero(&cfg.Model, f.Model)
	}
	for name, p := range f.Provider {
		if cfg.Provider == nil {
			cfg.Provider = map[string]Provider{}
		}
		cfg.Provider[name] = mergeProvider(cfg.Provider[name], p)
	}
	if project {
		if set["tools.allowed_paths"] {
			cfg.narrowAllowedPaths(path, f.Tools.AllowedPaths)
		}
	} else {
		for _, p := range f.Tools.AllowedPaths {
			cfg.Tools.AllowedPaths = append(cfg.Tools.AllowedPaths, absIn(dir, p))
		}
	}
	// The table let a project's limit through only if it is lower.
	mergeNonZero(&cfg.Tools.BashTimeoutMs, f.Tools.BashTimeoutMs)
	mergeNonZero(&cfg.Tools.PluginTimeoutMs, f.Tools.PluginTimeoutMs)
	if set["tools.allow_private_fetch"] {
		cfg.Tools.AllowPrivateFetch = f.Tools.AllowPrivateFetch
	}
	// The table let a project's plugin limit through only if it is lower;
	// it reaches the project's own plugins (PluginLimitsFor).
	if project {
		mergeNonZero(&cfg.projectPluginLimits.MemoryMB, f.PluginLimits.MemoryMB)
	} else {
		mergeNonZero(&cfg.PluginLimits.MemoryMB, f.PluginLimits.MemoryMB)
	}
	// The table let a project's sandbox switches through only if stricter.
	if set["tools.sandbox"] {
		cfg.Tools.Sandbox = f.Tools.Sandbox
	}
	if set["tools.sandbox_network"] {
		cfg.Tools.SandboxNetwork = f.Tools.SandboxNetwork
	}
	for k, v := range f.Permission {
		rules := &cfg.Permission
		if project {
			rules = &cfg.ProjectPermission
			// The rule still votes where it is stricter; say that here it
			// is not.
			if prev, ok := cfg.Permission[k]; ok && strictness[v] < strictness[prev] {
				cfg.warnAt(path, "permission."+k, fmt.Sprintf("%q ignored: the user's file says %q, and a project's file cannot loosen it", v, prev))
			}
		}
		if *rules == nil {
			*rules = map[string]string{}
		}
		(*rules)[k] = v
	}
	mergeNonZero(&cfg.Agent.MaxSteps, f.Agent.MaxSteps)
	mergeNonZero(&cfg.Agent.LoopGuard, f.Agent.LoopGuard)
	mergeNonZero(&cfg.Agent.AskTimeoutMs, f.Agent.AskTimeoutMs)
	if project && cfg.Agent.System != "" && f.Agent.System != "" {
		cfg.Agent.System += "\n\n" + f.Agent.System
	} else {
		mergeNonZero(&cfg.Agent.System, f.Agent.System)
	}
	mergeNonZero(&cfg.Server.Addr, f.Server.Addr)
	mergeNonZero(&cfg.Server.Token, f.Server.Token)
	cfg.mergeServerLimits(f.Server.ServerLimits)
	// The table dropped the project's server.*, store, bus, cluster and
	// disable_project_plugins.
	mergeNonZero(&cfg.Store.URL, f.Store.URL)
	mergeNonZero(&cfg.Bus.URL, f.Bus.URL)
	mergeNonZero(&cfg.Bus.Stream, f.Bus.Stream)
	mergeNonZero(&cfg.Cluster.Node, f.Cluster.Node)
	mergeNonZero(&cfg.Cluster.LeaseMs, f.Cluster.LeaseMs)
	if !project {
		cfg.Server.Tokens = append(cfg.Server.Tokens, f.Server.Tokens...)
		cfg.DisableProjectPlugins = cfg.DisableProjectPlugins || f.DisableProjectPlugins != nil && *f.DisableProjectPlugins
	}
	for k, o := range f.Hooks {
		if cfg.Hooks == nil {
			cfg.Hooks = map[string]HookOverride{}
		}
		if prev, ok := cfg.Hooks[k]; ok && !prev.Project {
			continue // the user's entry stands
		}
		o.Project = project
		cfg.Hooks[k] = o
	}
	for _, j := range f.Cron {
		j.Project = project
		if slices.ContainsFunc(cfg.Cron, func(c CronJob) bool { return c.Name == j.Name }) {
			cfg.warnAt(path, "cron", fmt.Sprintf("job %q ignored: the user's file has a job of that name", j.Name))
			continue
		}
		cfg.Cron = append(cfg.Cron, j)
	}
	for name, w := range f.Webhooks {
		if cfg.Webhooks == nil {
			cfg.Webhooks = map[string]Webhook{}
		}
		if _, ok := cfg.Webhooks[name]; ok {
			cfg.warnAt(path, "webhooks."+name, "ignored: the user's file has a webhook of that name")
			continue
		}
		w.Project = project
		cfg.Webhooks[name] = w
	}
	for name, m := range f.MCP {
		if cfg.MCP == nil {
			cfg.MCP = map[string]MCPServer{}
		}
		if prev, ok := cfg.MCP[name]; ok && !prev.Project && project {
			cfg.warnAt(path, "mcp."+name, "ignored: the user's file has an MCP server of that name")
			continue
		}
		m.Project, m.File = project, path
		// Each key of the entry is a setting; its type, which every entry
		// has, says where the entry is.
		if o := cfg.Origins("mcp." + name + ".type"); len(o) > 0 {
			m.Line = o[len(o)-1].Line
		}
		cfg.MCP[name] = m
	}
}

// strictness orders permission values: a project's file may only raise it.
var strictness = map[string]int{"allow": 0, "ask": 1, "deny": 2}

// DisabledFor returns the disabled_plugins entries that apply to code from
// the project (project true: both files') or from the user (the user's).
func (cfg *Config) DisabledFor(project bool) []string {
	if project {
		return cfg.DisabledPlugins
	}
	return cfg.disabledByUser
}

// HookOverridesFor returns the hooks entries, "<plugin id>/<Event>" →
// enabled, that apply to handlers from the project (project true) or from
// the user (the user's entries only).
func (cfg *Config) HookOverridesFor(project bool) map[string]bool {
	out := map[string]bool{}
	for k, o := range cfg.Hooks {
		if o.Enabled != nil && (project || !o.Project) {
			out[k] = *o.Enabled
		}
	}
	return out
}

func mergeNonZero[T comparable](dst *T, v T) {
	var zero T
	if v != zero {
		*dst = v
	}
}

func mergeProvider(base, over Provider) Provider {
	out := Provider{Options: mergeMaps(base.Options, over.Options)}
	if len(base.Models)+len(over.Models) > 0 {
		out.Models = make(map[string]Model, len(base.Models)+len(over.Models))
		maps.Copy(out.Models, base.Models)
	}
	for name, m := range over.Models {
		b, ok := out.Models[name]
		if !ok {
			out.Models[name] = m
			continue
		}
		mergeNonZero(&b.Limit.Context, m.Limit.Context)
		mergeNonZero(&b.Limit.Output, m.Limit.Output)
		b.Options = mergeMaps(b.Options, m.Options)
		b.Reasoning = b.Reasoning || m.Reasoning
		if m.Cost != nil {
			b.Cost = m.Cost
		}
		out.Models[name] = b
	}
	return out
}

func mergeMaps(base, over map[string]any) map[string]any {
	if len(base)+len(over) == 0 {
		return nil
	}
	out := make(map[string]any, len(base)+len(over))
	maps.Copy(out, base)
	maps.Copy(out, over)
	return out
}

// ParseJSONC parses a file of JSON with comments and trailing commas
// (podcode.json, a manifest, .mcp.json), refusing objects and arrays that
// nest deeper than maxNesting. Its error is an *Error with the file, line
// and column.
func ParseJSONC(path string, data []byte, maxNesting int) (hujson.Value, *Error) {
	if off := Nesting(data, maxNesting); off >= 0 {
		line, col := Position(data, off)
		return hujson.Value{}, &Error{File: path, Line: line, Col: col, Msg: fmt.Sprintf("objects and arrays nest deeper than %d", maxNesting)}
	}
	ast, perr := hujson.Parse(data)
	if perr != nil {
		e := &Error{File: path, Msg: strings.TrimPrefix(perr.Error(), "hujson: ")}
		// hujson says "line L, column C: what"; keep the position as ours.
		if _, err := fmt.Sscanf(e.Msg, "line %d, column %d:", &e.Line, &e.Col); err == nil {
			_, e.Msg, _ = strings.Cut(e.Msg, ": ")
		}
		if strings.Contains(e.Msg, "after top-level value") {
			e.Msg = "something follows the JSON object: " + e.Msg
		}
		return hujson.Value{}, e
	}
	return ast, nil
}

// decode parses one file. lines holds the line of each plugin entry.
//
// The whole file is decoded and validated, so that a bad value is an error
// wherever it is; what is merged is rebuilt from settings, the keys the
// table knows, spelled exactly (encoding/json would also take "SERVER").
func decode(path string, data []byte, project bool) (f file, lines []int, settings []Setting, warnings []string, err error) {
	ast, perr := ParseJSONC(path, data, MaxNesting)
	if perr != nil {
		return f, nil, nil, nil, perr
	}
	obj, ok := ast.Value.(*hujson.Object)
	if !ok {
		line, col := Position(data, ast.StartOffset)
		return f, nil, nil, nil, &Error{File: path, Line: line, Col: col, Msg: "the file must hold one JSON object"}
	}
	for _, m := range obj.Members {
		if LiteralString(m.Name) == "plugin" {
			if arr, ok := m.Value.Value.(*hujson.Array); ok {
				for _, el := range arr.Elements {
					l, _ := Position(data, el.StartOffset)
					lines = append(lines, l)
				}
			}
		}
	}
	// Standardizing keeps the offsets the positions are read from.
	ast.Standardize()
	std := ast.Pack()

	dec := json.NewDecoder(bytes.NewReader(std))
	if err := dec.Decode(&f); err != nil {
		return f, nil, nil, nil, jsonError(path, data, obj, err)
	}
	if err := validate(path, data, obj, &f); err != nil {
		return f, nil, nil, nil, err
	}
	settings, warnings, err = classify(path, data, obj, project)
	if err != nil {
		return f, nil, nil, nil, err
	}
	return f, lines, settings, warnings, nil
}

// validate checks what the JSON types alone do not.
func validate(path string, data []byte, obj *hujson.Object, f *file) error {
	at := func(key string, msg string) error {
		e := &Error{File: path, Key: key, Msg: msg}
		if v := find(obj, strings.Split(key, ".")); v != nil {
			e.Line, e.Col = Position(data, v.StartOffset)
		}
		return e
	}
	for i, spec := range f.Plugin {
		if strings.TrimSpace(spec) == "" {
			return at("plugin", fmt.Sprintf("entry %d is empty", i))
		}
	}
	if f.Model != "" {
		if p, m, ok := strings.Cut(f.Model, "/"); !ok || p == "" || m == "" {
			return at("model", fmt.Sprintf("%q is not of the form \"provider/model\"", f.Model))
		}
	}
	for pname, p := range f.Provider {
		for mname, m := range p.Models {
			key := "provider." + pname + ".models." + mname + ".limit"
			if m.Limit.Context < 0 || m.Limit.Output < 0 {
				return at(key, "limits must not be negative")
			}
			if m.Limit.Context > 0 && m.Limit.Output > m.Limit.Context {
				return at(key, fmt.Sprintf("output limit %d exceeds the context limit %d", m.Limit.Output, m.Limit.Context))
			}
			if c := m.Cost; c != nil && (c.Input < 0 || c.Output < 0 || c.CacheRead < 0 || c.CacheWrite < 0) {
				return at("provider."+pname+".models."+mname+".cost", "prices must not be negative")
			}
		}
	}
	if f.PluginLimits.MemoryMB < 0 {
		return at("plugin_limits.memory_mb", fmt.Sprintf("%d: must not be negative (0 or unset: %d MiB)", f.PluginLimits.MemoryMB, DefaultPluginMemoryMB))
	}
	if f.Tools.BashTimeoutMs < 0 || f.Tools.PluginTimeoutMs < 0 {
		return at("tools", "timeouts must not be negative")
	}
	for id := range f.PluginConfig {
		if id == "" {
			return at("plugin_config", "a plugin id must not be empty")
		}
	}
	for pattern, v := range f.Permission {
		if v != "allow" && v != "ask" && v != "deny" {
			return at("permission."+pattern, fmt.Sprintf("%q is not allow, ask or deny", v))
		}
		if _, err := pathpkg.Match(pattern, ""); err != nil || pattern == "" {
			return at("permission", fmt.Sprintf("%q is not a tool id or glob", pattern))
		}
	}
	if f.Agent.MaxSteps < 0 || f.Agent.LoopGuard < 0 || f.Agent.AskTimeoutMs < 0 {
		return at("agent", "limits must not be negative")
	}
	if err := validateServerLimits(f.Server.ServerLimits, at); err != nil {
		return err
	}
	// A value that names a variable ({env:DATABASE_URL}) is checked when
	// the store opens it.
	if u := f.Store.URL; u != "" && !strings.Contains(u, "{env:") && !strings.HasPrefix(u, "postgres://") && !strings.HasPrefix(u, "postgresql://") {
		return at("store.url", fmt.Sprintf("%q: want a postgres:// URL (leave it out for the SQLite database in the data directory)", logging.RedactURL(u)))
	}
	if u := f.Bus.URL; u != "" && !strings.Contains(u, "{env:") && !strings.HasPrefix(u, "nats://") && !strings.HasPrefix(u, "tls://") {
		return at("bus.url", fmt.Sprintf("%q: want a nats:// URL", logging.RedactURL(u)))
	}
	if f.Bus.URL != "" && f.Store.URL == "" {
		return at("bus.url", "needs store.url: nodes that share events must share their sessions (a PostgreSQL database)")
	}
	if st := f.Bus.Stream; st != "" && strings.Trim(st, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") != "" {
		return at("bus.stream", fmt.Sprintf("%q: letters, digits, _ and - only (a JetStream stream name)", st))
	}
	if f.Cluster.LeaseMs < 0 || f.Cluster.LeaseMs > 0 && f.Cluster.LeaseMs < 1000 {
		// Shorter, a pause of the garbage collector or a busy database
		// would cost a node its turns.
		return at("cluster.lease_ms", fmt.Sprintf("%d: want at least 1000 (0 or unset: 15000)", f.Cluster.LeaseMs))
	}
	for i, t := range f.Server.Tokens {
		if strings.TrimSpace(t.Token) == "" {
			return at("server.tokens", fmt.Sprintf("entry %d has no token", i))
		}
		if t.TenantID <= 0 {
			return at("server.tokens", fmt.Sprintf("entry %d: tenant_id must be a positive number", i))
		}
	}
	for k := range f.Hooks {
		id, ev, ok := strings.Cut(k, "/")
		if !ok || id == "" || ev == "" {
			return at("hooks", fmt.Sprintf("%q is not of the form \"<plugin id>/<Event>\"", k))
		}
	}
	seen := map[string]bool{}
	for i, j := range f.Cron {
		switch {
		case strings.TrimSpace(j.Name) == "":
			return at("cron", fmt.Sprintf("entry %d has no name", i))
		case seen[j.Name]:
			return at("cron", fmt.Sprintf("two jobs are named %q", j.Name))
		case len(strings.Fields(j.Schedule)) != 5 && !strings.HasPrefix(j.Schedule, "@"):
			return at("cron", fmt.Sprintf("job %q: schedule %q does not have five fields (minute hour day-of-month month day-of-week)", j.Name, j.Schedule))
		case strings.TrimSpace(j.Prompt) == "":
			return at("cron", fmt.Sprintf("job %q has no prompt", j.Name))
		}
		seen[j.Name] = true
	}
	for name, m := range f.MCP {
		if err := ValidMCPServer(name, m); err != nil {
			return at("mcp."+name, err.Error())
		}
	}
	for name, w := range f.Webhooks {
		switch {
		case name == "" || strings.ContainsAny(name, "/?#% "):
			return at("webhooks", fmt.Sprintf("%q is not a usable webhook name", name))
		case strings.TrimSpace(w.Secret) == "":
			return at("webhooks."+name+".secret", "a webhook needs a secret")
		case strings.TrimSpace(w.Prompt) == "":
			return at("webhooks."+name+".prompt", "a webhook needs a prompt")
		}
	}
	return nil
}

// find returns the value at the path of member names, or nil.
func find(obj *hujson.Object, path []string) *hujson.Value {
	for i, name := range path {
		var next *hujson.Value
		for j := range obj.Members {
			if LiteralString(obj.Members[j].Name) == name {
				next = &obj.Members[j].Value
				break
			}
		}
		if next == nil {
			return nil
		}
		if i == len(path)-1 {
			return next
		}
		o, ok := next.Value.(*hujson.Object)
		if !ok {
			return nil
		}
		obj = o
	}
	return nil
}

// pathAt returns the dotted path (arrays as [i]) and start offset of the
// innermost value of v that ends at end.
func pathAt(v *hujson.Value, end int, prefix string) (string, int, bool) {
	switch c := v.Value.(type) {
	case *hujson.Object:
		for i := range c.Members {
			m := &c.Members[i]
			key := LiteralString(m.Name)
			if prefix != "" {
				key = prefix + "." + key
			}
			if k, s, ok := pathAt(&m.Value, end, key); ok {
				return k, s, true
			}
		}
	case *hujson.Array:
		for i := range c.Elements {
			if k, s, ok := pathAt(&c.Elements[i], end, fmt.Sprintf("%s[%d]", prefix, i)); ok {
				return k, s, true
			}
		}
	}
	if v.EndOffset == end && prefix != "" {
		return prefix, v.StartOffset, true
	}
	return "", 0, false
}

// LiteralString is the string a JSON literal holds (an object member's name),
// "" for any other value.
func LiteralString(v hujson.Value) string {
	lit, ok := v.Value.(hujson.Literal)
	if !ok {
		return ""
	}
	return lit.String()
}

// jsonError turns a decoding error into an Error with a position and key.
func jsonError(path string, data []byte, obj *hujson.Object, err error) error {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		// encoding/json's Field leaves out map keys; the syntax tree knows
		// the whole path of the value that ends at the error's offset.
		key, off := te.Field, int(te.Offset)
		if k, start, ok := pathAt(&hujson.Value{Value: obj}, int(te.Offset), ""); ok {
			key, off = k, start
		}
		line, col := Position(data, off)
		return &Error{File: path, Line: line, Col: col, Key: key,
			Msg: fmt.Sprintf("want %s, found a JSON %s", describe(te.Type.String()), te.Value)}
	case errors.As(err, &se):
		line, col := Position(data, int(se.Offset))
		return &Error{File: path, Line: line, Col: col, Msg: se.Error()}
	}
	return &Error{File: path, Msg: err.Error()}
}

func describe(goType string) string {
	switch {
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.HasPrefix(goType, "map["), strings.Contains(goType, "."):
		return "an object"
	case goType == "string":
		return "a string"
	case goType == "bool":
		return "true or false"
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "float"):
		return "a number"
	}
	return goType
}

// Position converts a byte offset in data to a 1-based line and column.
func Position(data []byte, off int) (line, col int) {
	off = min(max(off, 0), len(data))
	line = 1 + bytes.Count(data[:off], []byte("\n"))
	col = off - bytes.LastIndexByte(data[:off], '\n')
	return line, col
}
