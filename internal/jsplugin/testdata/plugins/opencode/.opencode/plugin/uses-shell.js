// Uses Bun's $ while it starts, with interpolated values quoted as Bun
// quotes them: a string is one word, an array one word per element.
export const Shell = async ({ $ }) => {
  const said = await $`printf '%s|' ${"hello world"} ${["a b", "c"]}`.text()
  return { tool: { shell_says: { description: "what the shell said", args: {}, execute: async () => said } } }
}
