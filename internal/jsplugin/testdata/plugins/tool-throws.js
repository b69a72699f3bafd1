// SPEC H9: a tool hook that throws at init leaves the plugin loaded with zero tools.
export default { id: "tool-throws", server: () => ({ tool: () => { throw new Error("no tools today") }, "tool.execute.before": () => undefined }) }
