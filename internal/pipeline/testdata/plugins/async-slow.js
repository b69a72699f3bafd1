// SPEC H6: an async hook is awaited before the next plugin runs.
export default {
  id: "async-slow",
  server: () => ({
    "tool.execute.before": async (input) => {
      await new Promise((r) => setTimeout(r, 30))
      return { ...input, trail: [...(input.trail || []), "async-slow"] }
    },
  }),
}
