// SPEC P10: unknown keys are ignored without a warning.
export default { id: "unknown-keys", server: () => ({ "tool.before": () => { throw new Error("never called") }, "chat.param": () => 1, lifecyle: {} }) }
