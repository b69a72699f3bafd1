// Uses Bun's $ while it starts: refused at load.
export const Shell = async ({ $ }) => {
  const branch = await $`git branch --show-current`.text()
  return { event: async () => console.log(branch) }
}
