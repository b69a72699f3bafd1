// An opencode plugin adding a tool with the SDK's tool() helper, whose
// args are a zod raw shape (zod 4.1, as the SDK ships it).
import { type Plugin, tool } from "@opencode-ai/plugin"

export const Greeter: Plugin = async ({ directory, worktree, project }) => {
  return {
    tool: {
      greet: tool({
        description: "Greet someone a number of times",
        args: {
          name: tool.schema.string().min(1).describe("who to greet"),
          times: tool.schema.number().int().min(1).default(1),
        },
        async execute(args, context) {
          return `hello ${args.name} x${args.times} in ${context.directory} (worktree ${worktree}, project ${project.worktree}, session ${context.sessionID})`
        },
      }),
    },
  }
}
