/// <reference path="../../internal/jsplugin/podcode-plugin.d.ts" />
// bash-timeout: a tool.execute.before hook that gives every bash call a time
// limit. A call without a timeout gets the configured one; a call asking for
// more is capped to it:
//
//   "plugin_config": { "bash-timeout": { "timeout_ms": 30000 } }
//
// (60000 ms without a config block). Podcode's own limit, tools.bash_timeout_ms,
// still applies on top: this plugin can only make the limit shorter.
//
// Shows: a hook that sees every tool and acts on one (undefined for the
// others); narrowing the unknown args after checking toolID; rewriting
// arguments by returning the whole payload with new args, which Podcode
// validates again against bash's schema before execute receives them.

const ID = "bash-timeout"
const DEFAULT_TIMEOUT_MS = 60_000

interface BashArgs {
  command: string
  timeout?: number // milliseconds
  workdir?: string
}

function timeoutFrom(config: Record<string, unknown> | undefined): number {
  if (config === undefined || config === null) return DEFAULT_TIMEOUT_MS
  for (const key of Object.keys(config)) {
    if (key !== "timeout_ms") {
      throw new Error(`${ID}: unknown key "${key}" in plugin_config["${ID}"] (known keys: timeout_ms)`)
    }
  }
  const ms = config.timeout_ms ?? DEFAULT_TIMEOUT_MS
  if (typeof ms !== "number" || !Number.isInteger(ms) || ms < 1) {
    throw new Error(`${ID}: plugin_config["${ID}"].timeout_ms must be a whole number of milliseconds above 0, not ${JSON.stringify(ms)}`)
  }
  return ms
}

export default Podcode.plugin({
  id: ID,
  server(_input, { config }) {
    const limit = timeoutFrom(config)
    return {
      "tool.execute.before": (input) => {
        if (input.toolID !== "bash") return undefined
        const args = input.args as BashArgs // bash's schema was checked before this hook
        if (args.timeout !== undefined && args.timeout <= limit) return undefined
        return { ...input, args: { ...args, timeout: limit } }
      },
    }
  },
})
