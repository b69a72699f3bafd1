// SPEC H16 H17: the before hook's args reach execute; the after hook's
// result reaches the model; both see every tool.
export default {
  id: "tool-probe",
  server: () => ({
    tool: () => [{
      id: "echo_args", description: "returns its arguments", parameters: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
      execute: (args, ctx) => ({ title: "echo", output: JSON.stringify(args), metadata: { callID: ctx.callID, hasAbort: typeof ctx.abort.aborted === "boolean", seenTools: globalThis.seenTools } }),
    }],
    "tool.execute.before": (input) => {
      globalThis.seenTools = [...(globalThis.seenTools || []), input.toolID]
      if (input.toolID !== "echo_args") return undefined
      return { ...input, args: { ...input.args, n: input.args.n + 1, seenCtx: input.ctx.callID } }
    },
    "tool.execute.after": (input) => {
      if (input.toolID !== "echo_args") return undefined
      return { ...input, result: { ...input.result, output: input.result.output + " (after saw " + JSON.stringify(input.args) + ")" } }
    },
  }),
}
