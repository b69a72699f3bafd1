// SPEC P2: a named export is not picked up.
export const plugin = { id: "named", server: () => ({}) }
