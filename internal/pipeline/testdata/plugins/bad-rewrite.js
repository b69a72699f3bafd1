// Rewritten args are validated again before execute.
export default { id: "bad-rewrite", server: () => ({ "tool.execute.before": (input) => input.toolID === "echo_args" ? { ...input, args: { n: "not a number" } } : undefined }) }
