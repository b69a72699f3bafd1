import { readFile } from "node:fs/promises"
import { dlopen } from "bun:ffi"

export default { id: "bun-ffi", server: () => ({ "tool.execute.before": async () => void (dlopen, readFile) }) }
