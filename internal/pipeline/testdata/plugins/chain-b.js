// Appends "b" to the trail of every hook payload (SPEC H2 H3).
const add = (input) => ({ ...input, trail: [...(input.trail || []), "b"] })
export default { id: "chain-b", server: () => ({ "tool.execute.before": add, "tool.execute.after": add, "chat.params": add }) }
