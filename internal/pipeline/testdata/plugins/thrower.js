// SPEC H7 H18: a hook that throws is logged and its contribution discarded.
export default {
  id: "thrower",
  server: () => ({
    "tool.execute.before": (input) => { input.trail = ["thrower-mutated"]; throw new Error("before broke") },
    "tool.execute.after": async () => { await null; throw new Error("after broke") },
    "chat.params": () => { throw new TypeError("params broke") },
  }),
}
