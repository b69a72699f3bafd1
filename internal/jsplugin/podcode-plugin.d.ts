// Type declarations of Podcode's plugin API (plugin runtime version 1).
// Reference them from a plugin for editor completion:
//
//   /// <reference path="../podcode-plugin.d.ts" />
//   const plugin: Podcode.Plugin = { id: "my-plugin", server: () => ({}) }
//   export default plugin
//
// `podcode plugin init <name>` writes this file and a starter plugin;
// `podcode plugin types` prints it.

declare namespace Podcode {
  /** The default export of a plugin module (SPEC P1). */
  interface Plugin {
    /** Identity: selects plugin_config[id], labels log lines, deduplicates. */
    id: string
    /** Called once at boot; may be async. Returns the hooks it implements. */
    server(input: ServerInput, options: ServerOptions): Hooks | Promise<Hooks>
  }

  interface ServerInput {
    bus: Bus
    /** The directory the server was started in. */
    cwd: string
    /** The plugin runtime (contract) version, not Podcode's release. */
    version: string
  }

  interface ServerOptions {
    /** This plugin's block of plugin_config, or undefined. Not validated. */
    config: Record<string, unknown> | undefined
  }

  /** Return undefined from any hook to change nothing. */
  interface Hooks {
    /** Called once at load with {}; its tools are cached. */
    tool?: (input: { agent?: string }) => ToolDef[] | undefined | Promise<ToolDef[] | undefined>
    /** Before every model call. Unspecified tunables arrive as undefined. */
    "chat.params"?: (params: ChatParams) => ChatParams | undefined | Promise<ChatParams | undefined>
    /** Before every tool's execute, after validation and policies. */
    "tool.execute.before"?: (input: ToolExecuteBefore) => ToolExecuteBefore | undefined | Promise<ToolExecuteBefore | undefined>
    /** After every tool's execute, before the model sees the result. */
    "tool.execute.after"?: (input: ToolExecuteAfter) => ToolExecuteAfter | undefined | Promise<ToolExecuteAfter | undefined>
    /**
     * Lifecycle handlers by event: each votes like a Go handler, in the
     * plugin layer (deny > defer > ask > allow). Returning undefined
     * abstains; a throw is logged and counts as no vote, so to block a
     * tool return { decision: "deny", message }.
     */
    lifecycle?: { [E in HookEvent]?: (payload: HookPayload) => HookResult | undefined | Promise<HookResult | undefined> }
  }

  type HookEvent =
    | "PreToolUse" | "PostToolUse" | "PostToolUseFailure" | "UserPromptSubmit" | "AgentStop"
    | "SessionStart" | "SessionEnd" | "SubAgentStart" | "SubAgentStop" | "PreCompact" | "PostCompact"
    | "CronFired" | "WebhookReceived"

  /** What a lifecycle handler receives: fields appear only on the events that have them. */
  interface HookPayload {
    event: HookEvent
    tool_name?: string
    /** The tool's arguments as a JSON string. */
    tool_input?: string
    /** PostToolUse only; at most 8 KB (extra.tool_output_truncated says when cut). */
    tool_output?: string
    tool_elapsed_ms?: number
    session_id?: string
    channel?: string
    chat_id?: string
    user_id?: string
    tenant_id?: number
    extra?: Record<string, unknown>
  }

  interface HookResult {
    /** Left out: no vote (data still counts). */
    decision?: "allow" | "deny" | "ask" | "defer"
    message?: string
    data?: {
      /** Text for the model: opens the session on SessionStart and SubAgentStart, follows
       * the prompt on UserPromptSubmit, the tool's result on PostToolUse(Failure). */
      additional_context?: string
      [key: string]: unknown
    }
  }

  interface ChatParams {
    sessionID: string
    agent: string
    model: { providerID: string; modelID: string; limit: { context: number; output: number } }
    temperature: number | undefined
    topP: number | undefined
    topK: number | undefined
    /** Clamped to model.limit.output after the pipeline. */
    maxOutputTokens: number | undefined
    /** Merged over Podcode's provider options; your keys win. */
    options: Record<string, unknown> | undefined
  }

  /** The context of one tool call; also execute's second argument. */
  interface ToolContext {
    sessionID: string
    messageID: string
    callID: string
    agent: string
    cwd: string
  }

  interface ToolExecuteBefore {
    toolID: string
    /** Unknown until toolID is checked: the hook sees every tool. */
    args: unknown
    ctx: ToolContext
  }

  interface ToolExecuteAfter extends ToolExecuteBefore {
    result: ToolResult
  }

  interface ToolResult {
    /** For people and interfaces. */
    title: string
    /** What the model reads. */
    output: string
    metadata?: Record<string, unknown>
  }

  interface ToolDef<Args = any> {
    id: string
    /** What the model reads to decide when to call the tool. */
    description: string
    /** A zod schema (zod 3.25+ or 4), or a JSON Schema object. */
    parameters: unknown
    execute(args: Args, ctx: ToolContext & { abort: AbortSignal }): ToolResult | Promise<ToolResult>
  }

  interface BusEvent {
    type: string
    time: string
    /** The tenant the event's session belongs to ("default" for the server's own token); "" for server events. */
    tenant: string
    properties: Record<string, unknown>
  }

  interface Bus {
    /** Listen to one event type; returns a function that stops listening. */
    subscribe(type: string, fn: (event: BusEvent) => void): () => void
    /** Listen to every event; returns a function that stops listening. */
    subscribeAll(fn: (event: BusEvent) => void): () => void
  }
}
