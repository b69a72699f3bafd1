package server

import (
	"encoding/json"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/mcpclient"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/trust"
)

// The answers of the API that are not another package's types. The
// OpenAPI document's schemas are generated from these types (openapi.go):
// a field's `jsonschema` tag is its description there, and a field
// without omitempty is required.

// ErrorBody is the body of every error answer (package httpjson writes it);
// the document calls it Error.
type ErrorBody struct {
	Error string `json:"error"`
}

// Health is the answer of GET /healthz.
type Health struct {
	OK      bool               `json:"ok"`
	Skipped []trust.Skip       `json:"skipped" jsonschema:"the project code that does not run until the user trusts it"`
	MCP     []mcpclient.Status `json:"mcp" jsonschema:"the MCP servers and their state"`
}

// Cancelled is the answer of POST /sessions/{id}/cancel.
type Cancelled struct {
	Cancelled bool `json:"cancelled" jsonschema:"whether a turn was running and is now cancelled"`
}

// PermissionAnswered is the answer of POST /permissions/{id}.
type PermissionAnswered struct {
	OK bool `json:"ok"`
}

// PluginList is the answer of GET /plugins.
type PluginList struct {
	Plugins  []Plugin     `json:"plugins" jsonschema:"the loaded plugins, in pipeline order"`
	Warnings []string     `json:"warnings" jsonschema:"the plugins' load warnings"`
	Skipped  []trust.Skip `json:"skipped" jsonschema:"the project code that does not run until the user trusts it"`
}

// Plugin is one loaded plugin; its Status is jsplugin.Plugin.Status's.
type Plugin struct {
	ID     string   `json:"id"`
	Source string   `json:"source"`
	Path   string   `json:"path"`
	Hooks  []string `json:"hooks"`
	Status string   `json:"status" jsonschema:"running, or stopped: and why (a plugin that held more than its memory budget, plugin_limits.memory_mb, is stopped until the server restarts)"`
}

// Tool is one tool of GET /tools.
type Tool struct {
	ID          string          `json:"id"`
	Source      string          `json:"source"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters" jsonschema:"the tool's arguments, as JSON Schema"`
}

// Command is one slash command of GET /commands: a prompt "/<name> <args>"
// posted as a message runs it.
type Command struct {
	Name         string `json:"name"`
	Description  string `json:"description"`
	ArgumentHint string `json:"argumentHint,omitempty"`
	// Source is where it is defined: "user", "project" or "plugin <key>"
	// (Claude Code's layout), or "mcp:<server>" (an MCP server's prompt).
	Source string `json:"source"`
}

// TurnResult is the answer of a turn run by POST /sessions/{id}/messages.
type TurnResult struct {
	Session  store.Session  `json:"session"`
	Messages []chat.Message `json:"messages" jsonschema:"the messages the turn stored"`
	Text     string         `json:"text" jsonschema:"the turn's final answer"`
	Usage    chat.Usage     `json:"usage" jsonschema:"the turn's model calls: tokens (those the prompt cache read and wrote among them) and cost in US dollars"`
	Error    string         `json:"error,omitempty" jsonschema:"why the turn ended early, when it did (the status then says how: 499 cancelled, 503 shutting down)"`
}

// TurnStarted is the answer of a turn started in the background: POST
// /sessions/{id}/messages with async, and a webhook delivery.
type TurnStarted struct {
	SessionID string `json:"sessionID"`
}

// The longer descriptions of operations, beside the route table.
const (
	mcpPostSummary     = "Model Context Protocol, streamable HTTP transport: one JSON-RPC message (initialize opens a session; its answer's Mcp-Session-Id header names it, to send with every later request); tools/list and tools/call serve the tool registry, each call through the guard and the plugins' hooks (channel mcp), as the token's tenant in its workspace"
	mcpPostDescription = "Content-Type application/json; Accept: application/json, text/event-stream. At most 1 MiB. A refused or failed tool call is a result with isError true and the reason as text. Another tenant's or user's session id is not found (404); a session idle for 30 minutes is closed. A request that reached a loopback address under a Host that is not loopback is refused (403)."
	eventsSummary      = "Server-Sent Events of the bus: session.*, message.*, turn.*, tool.call.*, permission.asked, plugin.loaded; a tenant's token receives only its tenant's events and the server's"
	eventsDescription  = "Each event has an id (<epoch>-<n>, increasing). A client that reconnects with the last id it received, as the Last-Event-ID header or the last_event_id query parameter, first receives the events it missed (its tenant's and the server's, in order, while the server still keeps them: server.events_replay), then the new ones. When they are no longer all kept, or the id is from an earlier run of the server, the stream starts with an events.missed event instead (properties.lastEventID: the id sent): reload what you show. A client that lets server.events_queue events pile up, or does not take a write within server.write_timeout_ms, is disconnected; it can resume."
)

// webhookEndpoint is the one route served outside endpoints: route (in
// background.go) sends it past the token check to the webhook receiver.
// It is here for the document; its handler is route's.
var webhookEndpoint = endpoint{methods: []string{"POST"}, path: "/webhooks/{name}", public: true, ops: []operation{{
	id:      "deliverWebhook",
	summary: "Deliver a signed webhook: its prompt runs as a turn (channel webhook)",
	description: "No API token: the delivery proves itself with X-Podcode-Timestamp (unix seconds, within 5 minutes) and " +
		"X-Podcode-Signature: sha256=<hex of HMAC-SHA256(secret, timestamp + \".\" + body)>; a signature is accepted once. " +
		"WebhookReceived fires first.",
	params: []param{
		{name: "X-Podcode-Timestamp", in: "header", required: true},
		{name: "X-Podcode-Signature", in: "header", required: true},
	},
	rawBody: true,
	answers: []answer{
		jsonAnswer[TurnStarted](202, "the turn started"),
		errorAnswer(401, "missing, malformed, wrong, stale or replayed signature"),
		errorAnswer(403, "WebhookReceived denied it"),
		errorAnswer(404, "no such webhook"),
		errorAnswer(413, "the body is larger than 1 MiB"),
	},
}}}
