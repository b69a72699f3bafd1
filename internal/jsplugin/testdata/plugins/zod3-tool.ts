import { z } from "zod3"

export default {
  id: "zod3-tool",
  server: () => ({
    tool: () => [
      {
        id: "sum",
        description: "Add numbers.",
        parameters: z.object({ values: z.array(z.number()).min(1), label: z.string().optional() }),
        execute: async (args: { values: number[]; label?: string }) => ({
          title: "sum",
          output: `${args.label ?? "sum"}=${args.values.reduce((a, b) => a + b, 0)}`,
        }),
      },
    ],
  }),
}
