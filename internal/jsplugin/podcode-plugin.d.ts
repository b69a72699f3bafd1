// Type declarations of Podcode's plugin API (plugin runtime version 1) and of
// the web and Node APIs the plugin runtime provides: exactly those, so that a
// type-check rejects what would fail at run time (there is no Buffer and no
// node:fs, only node:fs/promises). Use them without @types/node and without
// the DOM library: `podcode plugin init <name>` writes this file, a
// tsconfig.json that does so, and a starter plugin; `podcode plugin types`
// prints this file. A plugin references it for editor completion:
//
//   /// <reference path="../podcode-plugin.d.ts" />
//   export default Podcode.plugin({ id: "my-plugin", server: () => ({}) })

declare namespace Podcode {
  /**
   * The plugin p, as it is: written around a plugin's default export, it
   * makes a key of server()'s hooks that is no hook (a misspelt
   * "tool.before") an error of the type-check, which a plain
   * `const plugin: Podcode.Plugin` only catches when no key is right.
   */
  function plugin<S extends (input: ServerInput, options: ServerOptions) => Hooks | Promise<Hooks>>(p: {
    id: string
    server: S & OnlyHooks<S>
  }): Plugin

  /**
   * Nothing for a server() whose every result has hook keys only; else a
   * property it lacks, named after the keys that are no hook, which the
   * type-check then reports.
   */
  type OnlyHooks<S> = S extends (...args: any[]) => infer R
    ? [NotHooks<Awaited<R>>] extends [never] ? unknown : { "a key of server()'s hooks is no hook": NotHooks<Awaited<R>> }
    : unknown
  /** The keys of any of the results H that are no hook. */
  type NotHooks<H> = H extends unknown ? Exclude<keyof H, keyof Hooks> : never

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

  /**
   * How far a running call has got: `progress` grows, out of `total` when
   * known. The timeline shows it; an MCP client that asked for progress is
   * sent it. Reports closer together than 250 ms are dropped (but one that
   * reaches `total`), and so is one whose progress went back.
   */
  interface ToolProgress {
    progress: number
    total?: number
    message?: string
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
    /**
     * What is not text, for an MCP client of Podcode's server (at most 10
     * MiB in all; the model reads only output). Dropped when a
     * tool.execute.after hook changes the result.
     */
    attachments?: ToolAttachment[]
  }

  type ToolAttachment =
    | { type: "image" | "audio"; mimeType: string; /** base64 */ data: string }
    | { type: "resource"; uri: string; mimeType?: string; text?: string; /** base64 */ data?: string }

  /**
   * A custom tool. T is the type of its zod schema, and execute's args are
   * inferred from it (the schema's output, defaults filled in: Podcode
   * validates the arguments before calling execute):
   *
   *   const parameters = z.object({ path: z.string() })
   *   const t: Podcode.ToolDef<typeof parameters> = {
   *     id: "t", description: "…", parameters,
   *     execute: (args) => ({ title: args.path, output: "" }),  // args.path: string
   *   }
   *
   * With a JSON Schema object as parameters, T is the arguments' type
   * (any when left out).
   */
  interface ToolDef<T = any> {
    id: string
    /** What the model reads to decide when to call the tool. */
    description: string
    /** A zod schema (zod 3.25+ or 4), or a JSON Schema object. */
    parameters: T extends ZodSchema ? T : unknown
    execute(args: ToolArgs<T>, ctx: ToolContext & {
      abort: AbortSignal
      progress(p: ToolProgress): void
      /**
       * Asks the user of the call to fill in a form (an MCP elicitation
       * schema: flat string, number, integer, boolean and choice fields),
       * through whoever answers the session's permission questions (the web
       * page, an editor, the terminal, an MCP client). Accepting fills in the
       * schema's defaults; the promise rejects when nobody can be asked.
       */
      ask(form: { message: string; schema?: Record<string, unknown> }): Promise<{ action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> }>
      /** A line for whoever made the call: the server log, an MCP client that set a level (at most 200 a call). */
      log(level: "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency", message: string): void
    }): ToolResult | Promise<ToolResult>
  }

  /**
   * A zod schema of any version, by shape, so that these declarations need no
   * zod of their own: zod 4 (classic and mini) keeps its types in _zod, zod 3
   * in _output.
   */
  type ZodSchema = { _zod: { output: unknown } } | { _output: unknown }

  /** What execute receives for T: z.infer<T> of a zod schema, else T itself. */
  type ToolArgs<T> =
    T extends { _zod: { output: infer Out } } ? Out
    : T extends { _output: infer Out } ? Out
    : T

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

// The modules below are the Node modules Podcode provides, each with or
// without the node: prefix; importing any other (node:fs, node:child_process,
// bun) fails when the plugin loads.

declare namespace Podcode {
  /** node:fs/promises: UTF-8 text or bytes, paths as strings. */
  interface FsPromises {
    /** The file's bytes, or its text when an encoding ("utf8" or "utf-8", the only one) is given. */
    readFile(path: string, options: "utf8" | "utf-8" | { encoding: "utf8" | "utf-8" }): Promise<string>
    readFile(path: string, options?: { encoding?: null } | null): Promise<Uint8Array>
    /** Writes text, or bytes that are UTF-8 text. */
    writeFile(path: string, data: string | ArrayBuffer | ArrayBufferView): Promise<void>
    /** The names of the directory's entries. */
    readdir(path: string): Promise<string[]>
    stat(path: string): Promise<Stats>
  }

  interface Stats {
    size: number
    mtimeMs: number
    mtime: Date
    mode: number
    isFile(): boolean
    isDirectory(): boolean
    isSymbolicLink(): boolean
  }

  /** node:path and node:path/posix: POSIX paths. */
  interface Path {
    readonly sep: "/"
    readonly delimiter: ":"
    join(...paths: string[]): string
    resolve(...paths: string[]): string
    normalize(path: string): string
    dirname(path: string): string
    basename(path: string, suffix?: string): string
    extname(path: string): string
    relative(from: string, to: string): string
    isAbsolute(path: string): boolean
    parse(path: string): ParsedPath
    format(path: Partial<ParsedPath>): string
  }

  interface ParsedPath {
    root: string
    dir: string
    base: string
    ext: string
    name: string
  }
}

declare module "node:fs/promises" {
  const fs: Podcode.FsPromises
  export = fs
}
declare module "fs/promises" {
  const fs: Podcode.FsPromises
  export = fs
}
declare module "node:path" {
  const path: Podcode.Path
  export = path
}
declare module "path" {
  const path: Podcode.Path
  export = path
}
declare module "node:path/posix" {
  const path: Podcode.Path
  export = path
}
declare module "path/posix" {
  const path: Podcode.Path
  export = path
}

// Web globals. Use them with the ECMAScript library only (no "DOM" in lib):
// these are what the runtime has, not a browser's.

/** Node's name for globalThis, which npm packages probe. */
declare var global: typeof globalThis

/** Every line goes to the server's log, labelled with the plugin's id. */
declare var console: {
  log(...data: unknown[]): void
  info(...data: unknown[]): void
  debug(...data: unknown[]): void
  trace(...data: unknown[]): void
  warn(...data: unknown[]): void
  error(...data: unknown[]): void
}

/** A plugin holds a limited number of timers at once; one more throws a RangeError. */
declare function setTimeout<A extends unknown[]>(fn: (...args: A) => void, ms?: number, ...args: A): number
declare function setInterval<A extends unknown[]>(fn: (...args: A) => void, ms?: number, ...args: A): number
declare function clearTimeout(id: number | undefined): void
declare function clearInterval(id: number | undefined): void
declare function queueMicrotask(fn: () => void): void

/** Plain data, Dates, RegExps, Maps, Sets, arrays, ArrayBuffers and typed arrays; a function throws. */
declare function structuredClone<T>(value: T): T

declare class Event {
  constructor(type: string)
  readonly type: string
}

declare class EventTarget {
  addEventListener(type: string, listener: (event: Event) => void, options?: { once?: boolean }): void
  removeEventListener(type: string, listener: (event: Event) => void): void
  dispatchEvent(event: Event): boolean
}

declare class AbortSignal extends EventTarget {
  readonly aborted: boolean
  readonly reason: any
  onabort: ((event: Event) => void) | null
  throwIfAborted(): void
  static abort(reason?: any): AbortSignal
  static timeout(ms: number): AbortSignal
}

declare class AbortController {
  readonly signal: AbortSignal
  abort(reason?: any): void
}

/** UTF-8 only. */
declare class TextEncoder {
  readonly encoding: "utf-8"
  encode(input?: string): Uint8Array
}

/** UTF-8 only: another label throws a RangeError. */
declare class TextDecoder {
  constructor(label?: "utf-8" | "utf8")
  readonly encoding: "utf-8"
  decode(input?: ArrayBuffer | ArrayBufferView): string
}

declare class URLSearchParams {
  constructor(init?: string | Record<string, string> | [string, string][] | URLSearchParams)
  readonly size: number
  append(name: string, value: string): void
  delete(name: string, value?: string): void
  get(name: string): string | null
  getAll(name: string): string[]
  has(name: string, value?: string): boolean
  set(name: string, value: string): void
  sort(): void
  forEach(fn: (value: string, name: string, params: URLSearchParams) => void): void
  entries(): IterableIterator<[string, string]>
  keys(): IterableIterator<string>
  values(): IterableIterator<string>
  [Symbol.iterator](): IterableIterator<[string, string]>
  toString(): string
}

declare class URL {
  constructor(url: string | URL, base?: string | URL)
  hash: string
  host: string
  hostname: string
  href: string
  readonly origin: string
  password: string
  pathname: string
  port: string
  protocol: string
  search: string
  /** A copy: changing it does not update href. Build a query with new URLSearchParams(…) and set search. */
  readonly searchParams: URLSearchParams
  username: string
  toString(): string
  toJSON(): string
}

type HeadersInit = Headers | [string, string][] | Record<string, string>

declare class Headers {
  constructor(init?: HeadersInit)
  append(name: string, value: string): void
  set(name: string, value: string): void
  get(name: string): string | null
  has(name: string): boolean
  delete(name: string): void
  forEach(fn: (value: string, name: string, headers: Headers) => void): void
  entries(): IterableIterator<[string, string]>
  keys(): IterableIterator<string>
  values(): IterableIterator<string>
  [Symbol.iterator](): IterableIterator<[string, string]>
}

/** A fetched response: its body is read whole (up to the server's limit), as text. No streams, no blobs. */
declare class Response {
  constructor(body?: string | null, init?: { status?: number; statusText?: string; headers?: HeadersInit })
  readonly status: number
  readonly statusText: string
  readonly headers: Headers
  readonly url: string
  readonly ok: boolean
  readonly redirected: boolean
  readonly bodyUsed: boolean
  text(): Promise<string>
  json(): Promise<any>
  arrayBuffer(): Promise<ArrayBuffer>
}

interface RequestInit {
  method?: string
  headers?: HeadersInit
  body?: string | ArrayBuffer | ArrayBufferView | URLSearchParams | null
  signal?: AbortSignal
}

/** HTTP(S) over the server's client. There is no Request class: pass a URL. */
declare function fetch(input: string | URL, init?: RequestInit): Promise<Response>

/** The server's environment and working directory; not Node's process. */
declare var process: {
  env: Record<string, string | undefined>
  cwd(): string
  platform: string
  /** Always "v20.0.0", for packages that check. */
  version: string
  versions: { podcode: string }
  argv: string[]
  nextTick<A extends unknown[]>(fn: (...args: A) => void, ...args: A): void
}
