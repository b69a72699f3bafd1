// for await, an async generator and import() in a hook, no top-level await:
// bundled as CommonJS.
async function* count(n: number) {
  for (let i = 1; i <= n; i++) yield i
}

export default {
  id: "hooks-only",
  server: async () => ({
    "tool.execute.before": async (input: Record<string, unknown>) => {
      let sum = 0
      for await (const x of count(4)) sum += x
      const { double } = await import("./helper")
      return { ...input, sum, double: double(sum) }
    },
  }),
}
