/// <reference path="../../internal/jsplugin/podcode-plugin.d.ts" />
// temperature-policy: a chat.params hook that enforces a sampling
// temperature from the plugin's own config block:
//
//   "plugin_config": { "temperature-policy": { "default": 0.2, "max": 0.7 } }
//
// When the caller left the temperature unspecified it becomes `default`; a
// temperature above `max` is lowered to `max`. Without a config block the
// plugin registers no hook at all.
//
// Shows: reading and validating plugin_config in server(), where a throw
// skips the plugin at boot with "plugin: server() threw" (better than a
// policy that silently misbehaves on every call); telling "unspecified"
// (undefined) from an explicit 0; returning undefined when nothing changes.

const ID = "temperature-policy"
// Providers accept 0 to 1 (Anthropic) or 0 to 2 (OpenAI, Google): anything
// outside 0..2 is a typo.
const LIMIT = 2

interface Policy {
  default?: number
  max?: number
}

function parsePolicy(config: Record<string, unknown>): Policy {
  if (typeof config !== "object" || Array.isArray(config)) {
    throw new Error(`${ID}: plugin_config["${ID}"] must be an object like {"default": 0.2, "max": 0.7}`)
  }
  const policy: Policy = {}
  for (const [key, value] of Object.entries(config)) {
    if (key !== "default" && key !== "max") {
      throw new Error(`${ID}: unknown key "${key}" in plugin_config["${ID}"] (known keys: default, max)`)
    }
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > LIMIT) {
      throw new Error(`${ID}: plugin_config["${ID}"].${key} must be a number from 0 to ${LIMIT}, not ${JSON.stringify(value)}`)
    }
    policy[key] = value
  }
  if (policy.default !== undefined && policy.max !== undefined && policy.default > policy.max) {
    throw new Error(`${ID}: plugin_config["${ID}"].default (${policy.default}) is above max (${policy.max})`)
  }
  return policy
}

export default Podcode.plugin({
  id: ID,
  server(_input, { config }) {
    if (config === undefined || config === null) return {} // no config, no policy
    const policy = parsePolicy(config)
    return {
      "chat.params": (params) => {
        let temperature = params.temperature
        if (temperature === undefined) {
          temperature = policy.default
        } else if (policy.max !== undefined && temperature > policy.max) {
          temperature = policy.max
        }
        if (temperature === params.temperature) return undefined // no change
        return { ...params, temperature }
      },
    }
  },
})
