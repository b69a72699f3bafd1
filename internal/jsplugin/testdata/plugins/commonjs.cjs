// SPEC P3: module.exports is the default export.
module.exports = {
  id: "commonjs",
  server: () => ({ "tool.execute.before": (input) => ({ ...input, trail: [...(input.trail || []), "commonjs"] }) }),
}
