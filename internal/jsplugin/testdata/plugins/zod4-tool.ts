import { z } from "zod"

// A custom tool with a zod 4 schema (SPEC H11).
export default {
  id: "zod4-tool",
  async server() {
    return {
      tool: () => [
        {
          id: "greet",
          description: "Greet someone, loudly if asked.",
          parameters: z.object({
            name: z.string().min(1).describe("who to greet"),
            loud: z.boolean().default(false),
            times: z.number().int().min(1).max(3).optional(),
          }),
          async execute(args: { name: string; loud: boolean; times?: number }, ctx: { callID: string }) {
            const text = `hello ${args.name}`.repeat(args.times ?? 1)
            return { title: "greet", output: args.loud ? text.toUpperCase() : text, metadata: { callID: ctx.callID } }
          },
        },
      ],
    }
  },
}
