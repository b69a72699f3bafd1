// SPEC P12: the test rewrites this file after loading; nothing changes until a restart.
export default { id: "versioned", server: () => ({ "tool.execute.before": (input) => ({ ...input, version: "v1" }) }) }
