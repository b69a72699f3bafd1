// A Node module Podcode does not provide.
import { Worker } from "node:worker_threads"

export default { id: "worker-threads", server: () => ({ "tool.execute.before": () => void new Worker("x.js") }) }
