// A hook that never yields: the runtime stops it; the plugin serves on.
let calls = 0
export default {
  id: "spinner",
  server: () => ({
    "tool.execute.before": async (input) => {
      calls++
      if (input.args && input.args.spin) { await null; while (true) {} }
      return { ...input, trail: [...(input.trail || []), "spinner" + calls] }
    },
  }),
}
