// A Node module Podcode does not provide.
import { execSync } from "node:child_process"

export default { id: "child-process", server: () => ({ "tool.execute.before": () => void execSync("true") }) }
