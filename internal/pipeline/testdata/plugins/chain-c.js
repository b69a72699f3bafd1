// Appends "c" to the trail of every hook payload (SPEC H2 H3).
const add = (input) => ({ ...input, trail: [...(input.trail || []), "c"] })
export default { id: "chain-c", server: () => ({ "tool.execute.before": add, "tool.execute.after": add, "chat.params": add }) }
