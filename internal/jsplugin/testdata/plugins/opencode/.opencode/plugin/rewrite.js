// Two opencode plugin functions in one module (the named-export form):
// both run, in export order; hooks mutate output.
export const Timeout = async () => ({
  "tool.execute.before": async (input, output) => {
    if (input.tool === "bash") output.args.timeout = 1234
    if (input.tool === "edit") output.args.newString = output.args.oldString.toUpperCase()
  },
  "tool.execute.after": async (input, output) => {
    output.output = output.output.replaceAll("secret", "[redacted]")
    output.title = `${input.tool}: ${output.title}`
  },
  "chat.params": async (input, output) => {
    output.temperature = 0.3
    output.options.seen = input.model.id
  },
})

export const Events = async () => {
  const seen = []
  return {
    event: async ({ event }) => {
      seen.push(event.type)
    },
    tool: {
      seen_events: { description: "events seen", args: {}, execute: async () => seen.join(",") },
    },
    "permission.ask": async () => {},
  }
}
