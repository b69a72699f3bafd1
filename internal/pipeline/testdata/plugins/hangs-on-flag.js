// A hook that never settles when the input asks it to.
export default {
  id: "hangs-on-flag",
  server: () => ({
    "tool.execute.before": async (input) => {
      if (input.hang) await new Promise(() => {})
      return { ...input, trail: [...(input.trail || []), "hangs-on-flag"] }
    },
    "tool.execute.after": () => undefined,
  }),
}
