// SPEC H9: anything that is not an array is ignored.
export default { id: "tool-not-array", server: () => ({ tool: () => ({ id: "x" }) }) }
