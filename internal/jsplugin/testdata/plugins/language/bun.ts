import { readFile } from "node:fs/promises"
import { $ } from "bun"

export default { id: "bun", server: () => ({ "tool.execute.before": async () => void (await $`true`, readFile) }) }
