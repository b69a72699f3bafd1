// SPEC H4: returning undefined changes nothing, even after mutating the input.
export default {
  id: "observer",
  server: () => ({
    "tool.execute.before": (input) => { input.trail = ["mutated"]; input.args = null; return undefined },
    "tool.execute.after": (input) => { input.result.output = "mutated"; return undefined },
  }),
}
