// SPEC P4: shares its id with dup-second.js, which is loaded later and wins.
export default {
  id: "dup",
  server({ bus }) {
    bus.subscribe("tool.call.finished", () => { globalThis.heard = (globalThis.heard || 0) + 1 })
    return {
      tool: () => [{ id: "dup_first_tool", description: "from the first", parameters: {}, execute: () => ({ title: "x", output: "first" }) }],
      "tool.execute.before": (input) => ({ ...input, trail: [...(input.trail || []), "dup-first"] }),
    }
  },
}
