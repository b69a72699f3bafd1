// SPEC H8: a hook that takes longer than 5 seconds is abandoned.
globalThis.settled = 0
export default {
  id: "sleeper",
  server: () => ({
    "tool.execute.before": async (input) => {
      await new Promise((r) => setTimeout(r, 6000))
      globalThis.settled++
      return { ...input, trail: [...(input.trail || []), "sleeper"] }
    },
  }),
}
