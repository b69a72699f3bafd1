// The plugin every zod-versions fixture builds, with the zod it imports: one
// tool whose parameters use the types tool schemas use most.
export function zodPlugin(id: string, z: any) {
  return {
    id,
    server: async () => ({
      tool: () => [
        {
          id: id.replace(/-/g, "_"),
          description: "Describe a search.",
          parameters: z.object({
            query: z.string().min(1).describe("what to look for"),
            limit: z.number().default(10),
            note: z.string().optional(),
            mode: z.enum(["fast", "thorough"]),
            tags: z.array(z.string()),
          }),
          execute: async (args: Record<string, unknown>) => ({ title: id, output: JSON.stringify(args, Object.keys(args).sort()) }),
        },
      ],
    }),
  }
}
