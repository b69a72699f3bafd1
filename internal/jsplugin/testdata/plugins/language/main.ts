// Syntax goja does not run natively, lowered at bundling: for await, async
// generators, top-level await, import() of a file of the bundle.
import { double } from "./helper"

async function* count(n: number) {
  for (let i = 1; i <= n; i++) yield i
}

let startup = 0
for await (const x of count(3)) startup += x
const lazy = await import("./lazy")

export default {
  id: "language",
  server: async () => ({
    "tool.execute.before": async (input: Record<string, unknown>) => {
      let sum = 0
      for await (const x of count(4)) sum += x
      const again = await import("./lazy")
      return { ...input, startup, sum, lazy: lazy.value, same: again === lazy, double: double(2) }
    },
  }),
}
