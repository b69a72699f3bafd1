package config

import (
	"strings"
)

// Access says what a project's podcode.json may do with a key. The user's
// file may set every key; a project's file is code a cloned repository
// brings, so each key it sets passes the row of Keys that matches it.
type Access int

const (
	// Free: the project's value replaces the user's. Only for what costs
	// no access: neither code, nor the network, nor the user's secrets.
	Free Access = iota + 1
	// Choose: the project picks among what the user's file (or Podcode)
	// already defines; any other value is ignored with a warning.
	Choose
	// Tighten: the project's value applies only where it is stricter than
	// the user's (Row.Stricter says which way is stricter); a looser one is
	// ignored with a warning.
	Tighten
	// Add: the project's entries come after the user's and never replace
	// one of them.
	Add
	// Own: the project's value reaches only code that came with the
	// project (its plugins, manifests, .claude hooks), never the user's.
	Own
	// Trust: held back until the user trusts this exact content with
	// `podcode trust` (one trust item of kind config for the whole file,
	// whose fingerprint covers these settings and nothing else). For what
	// runs code, or reaches the network with the user's credentials.
	Trust
	// User: the user's alone; ignored in a project's file, with a warning
	// that names the file, line, column and key. Trust does not change it.
	User
)

var accessNames = map[Access]string{Free: "free", Choose: "choose", Tighten: "tighten", Add: "add", Own: "own", Trust: "trust", User: "user"}

func (a Access) String() string { return accessNames[a] }

// Stricter says which way a Tighten key is stricter.
type Stricter int

const (
	// ByRule: the merge rule stated in the row's Why, applied where the key
	// is merged (permission rules, allowed paths).
	ByRule Stricter = iota
	// Lower: a smaller number. Zero is "not set".
	Lower
	// Off: false. A project may switch it off, never on.
	Off
	// On: true. A project may switch it on, never off.
	On
)

// Row is one key of the table: what a project's file may do with it.
type Row struct {
	// Key is a dotted path of a file's keys. "*" stands for one map key of
	// any name. Rows never nest: the first row that matches a key whole
	// decides it, and the keys under it are its value.
	Key    string
	Access Access
	// Stricter: for Tighten, which way is stricter.
	Stricter Stricter
	// Default: for Lower, the value Podcode uses when the user's file sets
	// none, which a project's value must be below. Zero: no default; then
	// a project's value applies only under Within.
	Default float64
	// Within: for Lower without a default, the entry (a prefix of Key)
	// that must exist in the user's file for a project's value to tighten
	// it; elsewhere the project's value defines something new and needs
	// trust.
	Within string
	// Expands: {env:NAME} in the value is replaced by the variable's value.
	// Only the user's file is expanded: a project's value that holds
	// {env: is ignored with a warning, since it would carry the user's
	// environment wherever the value goes.
	Expands bool
	// File: the value names a file whose content runs (a replay); the
	// trust fingerprint covers that file's content too.
	File bool
	// Why is the rule in one sentence, for users (docs/plugins.md), for
	// warnings, and for `podcode trust`.
	Why string

	path []string
}

// Keys is every key of a configuration file and what a project's file may
// do with it: the one table the merge, the trust item of kind config, the
// unknown-key warnings and the documentation follow. A key that is not
// here is unknown (a warning, and ignored).
//
// Adding a key: add its field to the structs, a row here (the test of
// this table fails until every field has one), and its merge in
// Config.mergeFile. Choose the narrowest access that keeps the key useful:
// User for what decides where the server listens or who may call it, and
// for credentials and endpoints; Trust for what runs code or sends the
// user's requests; Tighten for limits and switches that protect the user;
// Own for what only a project's own code reads.
//
// Patterns match whole segments, as the go command's security table does,
// so no row can match more than it says: among rows that match, a literal
// segment beats "*" at the first place they differ.
var Keys = []Row{
	{Key: "$schema", Access: Free, Why: "the JSON schema an editor reads; no effect"},

	{Key: "plugin", Access: Add, Why: "the project's plugins load after the user's; each is project code and runs only once its own content is trusted"},
	{Key: "plugin_config.*", Access: Own, Why: "a project's block reaches only the plugins that came with the project; the user's plugins read the user's block alone"},
	{Key: "disabled_plugins", Access: Own, Why: "a project's entries switch off only code that came with the project, and not its guards (fail-closed manifest entries, .claude PreToolUse hooks): only the user's file switches those off"},
	{Key: "hooks.*.enabled", Access: Own, Why: "a project's switches reach only handlers that came with the project, never switch off one of their guards, and cannot switch on one the user's file switched off"},

	{Key: "model", Access: Choose, Why: "a project may pick one of the models the user's file or Podcode defines (or that its own trusted provider settings define)"},
	{Key: "provider.*.options.baseURL", Access: User, Expands: true, Why: "where requests go with the user's key: a project's endpoint would receive it"},
	{Key: "provider.*.options.apiKey", Access: User, Expands: true, Why: "the user's credential"},
	{Key: "provider.*.options.headers", Access: User, Expands: true, Why: "sent with every request: a project's headers could carry the user's environment"},
	{Key: "provider.*.options.timeout", Access: User, Why: "a connection setting of the user's provider"},
	{Key: "provider.*.options.maxRetries", Access: User, Why: "a connection setting of the user's provider: each retry is a request paid with the user's key"},
	{Key: "provider.*.options.api", Access: User, Why: "how the user's key is sent, and to which service"},
	{Key: "provider.*.options.region", Access: User, Why: "the cloud region the user's requests go to (Bedrock, Vertex AI)"},
	{Key: "provider.*.options.project", Access: User, Why: "the Google Cloud project billed for the user's requests (Vertex AI)"},
	{Key: "provider.*.options.profile", Access: User, Why: "the AWS profile whose credentials sign the user's requests (Bedrock)"},
	{Key: "provider.*.options.replay", Access: Trust, Expands: true, File: true, Why: "the offline model replays the file's recorded answers, and their tool calls run"},
	{Key: "provider.*.options.*", Access: Trust, Why: "a request option sent with the user's key (a tool choice, storage, a service tier)"},
	{Key: "provider.*.models.*.limit.context", Access: Tighten, Stricter: Lower, Within: "provider.*.models.*", Why: "may lower the limit of a model the user's file defines; on any other model it defines the model, which needs trust"},
	{Key: "provider.*.models.*.limit.output", Access: Tighten, Stricter: Lower, Within: "provider.*.models.*", Why: "may lower the limit of a model the user's file defines; on any other model it defines the model, which needs trust"},
	{Key: "provider.*.models.*.options.baseURL", Access: User, Expands: true, Why: "where requests go with the user's key"},
	{Key: "provider.*.models.*.options.apiKey", Access: User, Expands: true, Why: "the user's credential"},
	{Key: "provider.*.models.*.options.headers", Access: User, Expands: true, Why: "sent with every request"},
	{Key: "provider.*.models.*.options.timeout", Access: User, Why: "a connection setting of the user's provider"},
	{Key: "provider.*.models.*.options.maxRetries", Access: User, Why: "a connection setting of the user's provider"},
	{Key: "provider.*.models.*.options.api", Access: User, Why: "how the user's key is sent, and to which service"},
	{Key: "provider.*.models.*.options.region", Access: User, Why: "the cloud region the user's requests go to"},
	{Key: "provider.*.models.*.options.project", Access: User, Why: "the Google Cloud project billed for the user's requests"},
	{Key: "provider.*.models.*.options.profile", Access: User, Why: "the AWS profile whose credentials sign the user's requests"},
	{Key: "provider.*.models.*.options.replay", Access: Trust, Expands: true, File: true, Why: "the offline model replays the file's recorded answers, and their tool calls run"},
	{Key: "provider.*.models.*.options.*", Access: Trust, Why: "a request option sent with the user's key"},
	{Key: "provider.*.models.*.cost", Access: User, Why: "the prices the user pays, behind every cost Podcode shows: a project's would misstate them"},
	{Key: "provider.*.models.*.reasoning", Access: Trust, Why: "adds a reasoning-effort option to requests paid with the user's key"},

	{Key: "permission.*", Access: Tighten, Why: "for each tool, the stricter of the user's decision (its rules, else its \"*\") and the project's matching rule (deny > ask > allow)"},
	{Key: "tools.allowed_paths", Access: Tighten, Why: "narrows: a project's list keeps only the directories both files allow (a project's entry inside one of the user's, or inside the project; a user's entry inside one of the project's)"},
	{Key: "tools.bash_timeout_ms", Access: Tighten, Stricter: Lower, Default: 120000, Why: "may only shorten bash's time limit"},
	{Key: "tools.plugin_timeout_ms", Access: Tighten, Stricter: Lower, Default: 120000, Why: "may only shorten the time limit of a plugin's tool"},
	{Key: "tools.allow_private_fetch", Access: Tighten, Stricter: Off, Why: "may only keep webfetch away from loopback and private addresses"},
	{Key: "tools.sandbox", Access: Tighten, Stricter: On, Why: "may only switch the operating-system sandbox of the default tenant's bash on, never off"},
	{Key: "tools.sandbox_network", Access: Tighten, Stricter: Off, Why: "may only keep sandboxed commands off the network"},

	{Key: "plugin_limits.memory_mb", Access: Tighten, Stricter: Lower, Default: DefaultPluginMemoryMB, Why: "may only lower the memory budget, and only of the plugins that came with the project: a lower budget stops a plugin sooner, and the user's plugins (a guard among them) keep the user's"},

	{Key: "agent.max_steps", Access: Tighten, Stricter: Lower, Default: 50, Why: "may only lower the model calls a turn may make"},
	{Key: "agent.loop_guard", Access: Tighten, Stricter: Lower, Default: 3, Why: "may only refuse repeated calls sooner"},
	{Key: "agent.ask_timeout_ms", Access: Free, Why: "how long a permission question waits; no answer is a no either way"},
	{Key: "agent.system", Access: Add, Why: "the project's system prompt follows the user's, never replaces it"},

	{Key: "server.addr", Access: User, Why: "where the server listens: a project could open it to the network"},
	{Key: "server.token", Access: User, Why: "who may call the server: a token in a repository is known to its authors"},
	{Key: "server.tokens", Access: User, Expands: true, Why: "tenant tokens grant access"},
	{Key: "server.read_header_timeout_ms", Access: User, Why: "what the server withstands from its clients"},
	{Key: "server.read_timeout_ms", Access: User, Why: "what the server withstands from its clients"},
	{Key: "server.write_timeout_ms", Access: User, Why: "what the server withstands from its clients"},
	{Key: "server.idle_timeout_ms", Access: User, Why: "what the server withstands from its clients"},
	{Key: "server.max_conns", Access: User, Why: "what the server withstands from its clients"},
	{Key: "server.max_unauthenticated_conns", Access: User, Why: "what the server withstands from its clients"},
	{Key: "server.events_queue", Access: User, Why: "what the server withstands from its clients"},
	{Key: "server.events_replay", Access: User, Why: "what the server withstands from its clients"},
	{Key: "server.mcp_poll_after_ms", Access: User, Why: "how the server keeps its MCP clients' long calls alive behind proxies"},

	{Key: "store.url", Access: User, Expands: true, Why: "where every session is kept: a project's database would receive the user's conversations"},
	{Key: "bus.url", Access: User, Expands: true, Why: "where every event, permission answer and cancel goes: a project's server would hear them all"},
	{Key: "bus.stream", Access: User, Why: "which deployment's events and requests this node shares"},
	{Key: "cluster.node", Access: User, Why: "this node's name among the nodes sharing the store"},
	{Key: "cluster.lease_ms", Access: User, Why: "how long a dead node's turn holds its session"},

	{Key: "cron", Access: Trust, Why: "runs prompts unattended; cannot replace a job of the user's of the same name"},
	{Key: "webhooks.*", Access: Trust, Expands: true, Why: "runs prompts on a delivery signed with its secret, which whoever can read the project knows; cannot replace a webhook of the user's of the same name"},

	{Key: "mcp.*.type", Access: Add, Why: "a project's MCP server comes after the user's and never replaces one of the same name; it is project code and starts only once its own entry (and the files its command runs) is trusted"},
	{Key: "mcp.*.command", Access: Add, Why: "a project's MCP server comes after the user's and never replaces one of the same name; it is project code and starts only once its own entry (and the files its command runs) is trusted"},
	{Key: "mcp.*.environment", Access: Add, Expands: true, Why: "a project's MCP server comes after the user's and never replaces one of the same name; it is project code and starts only once its own entry (and the files its command runs) is trusted"},
	{Key: "mcp.*.url", Access: Add, Expands: true, Why: "a project's MCP server comes after the user's and never replaces one of the same name; it is project code and starts only once its own entry (and the files its command runs) is trusted"},
	{Key: "mcp.*.headers", Access: Add, Expands: true, Why: "a project's MCP server comes after the user's and never replaces one of the same name; it is project code and starts only once its own entry (and the files its command runs) is trusted"},
	{Key: "mcp.*.enabled", Access: Add, Why: "a project's MCP server comes after the user's and never replaces one of the same name; it is project code and starts only once its own entry (and the files its command runs) is trusted"},
	{Key: "mcp.*.timeout", Access: Add, Why: "a project's MCP server comes after the user's and never replaces one of the same name; it is project code and starts only once its own entry (and the files its command runs) is trusted"},
	{Key: "mcp.*.oauth", Access: User, Expands: true, Why: "the client the user signs in to the server's authorization server as: its secret is the user's credential, and its issuer says which authorization server may receive it; a project's server signs in without one (a registered client, the server's scopes)"},
	{Key: "mcp.*.sampling", Access: User, Why: "allow lets the server have the user's model answer its requests without asking (tokens the user pays for, and text the server chose sent to the provider): the user's decision per server; a project's server is always asked about"},

	{Key: "disable_project_plugins", Access: User, Why: "the user's refusal of all project code"},
}

func init() {
	for i := range Keys {
		Keys[i].path = strings.Split(Keys[i].Key, ".")
	}
}

// rowFor returns the row that decides the key path, or nil. deeper
// reports whether some row lies under path (path is a container of
// classified keys, not a key itself).
func rowFor(path []string) (row *Row, deeper bool) {
	for i := range Keys {
		r := &Keys[i]
		switch {
		case len(r.path) == len(path) && match(r.path, path):
			if row == nil || moreSpecific(r.path, row.path) {
				row = r
			}
		case len(r.path) > len(path) && match(r.path[:len(path)], path):
			deeper = true
		}
	}
	return row, deeper
}

func match(pattern, path []string) bool {
	for i, p := range pattern {
		if p != "*" && p != path[i] {
			return false
		}
	}
	return true
}

// moreSpecific: a literal segment beats "*" at the first place a and b
// differ.
func moreSpecific(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return b[i] == "*"
		}
	}
	return false
}

// Describe returns the row that decides a dotted key, such as
// "provider.openai.options.baseURL".
func Describe(key string) (Row, bool) {
	r, _ := rowFor(strings.Split(key, "."))
	if r == nil {
		return Row{}, false
	}
	return *r, true
}
