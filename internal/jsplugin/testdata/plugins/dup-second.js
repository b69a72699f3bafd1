export default {
  id: "dup",
  server: () => ({ "tool.execute.before": (input) => ({ ...input, trail: [...(input.trail || []), "dup-second"] }) }),
}
