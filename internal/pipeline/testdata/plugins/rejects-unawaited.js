// A rejected promise nobody awaits is logged; the plugin and the process go on.
export default {
  id: "rejects-unawaited",
  server: () => ({
    "tool.execute.before": (input) => {
      Promise.reject(new Error("nobody catches this"))
      return { ...input, trail: [...(input.trail || []), "rejects-unawaited"] }
    },
  }),
}
