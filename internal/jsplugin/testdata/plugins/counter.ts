// SPEC P5 P8 P9 P11: server() runs once; input and options; the tool hook
// sees what server() set up, because it is drained after server() resolved.
let serverCalls = 0
let toolCalls = 0
let ready = false
export default {
  id: "counter",
  async server(input: any, options: any) {
    serverCalls++
    await new Promise((r) => setTimeout(r, 5))
    ready = true
    const seen = { cwd: input.cwd, version: input.version, config: options.config, configIsUndefined: options.config === undefined,
      hasBus: typeof input.bus.subscribe === "function" && typeof input.bus.subscribeAll === "function" }
    return {
      tool: (arg: any) => {
        toolCalls++
        const readyAtDrain = ready
        const argKeys = Object.keys(arg).join(",")
        return [{ id: "counter_state", description: "report the counter plugin's state", parameters: {},
          execute: () => ({ title: "state", output: JSON.stringify({ serverCalls, toolCalls, readyAtDrain, argKeys, ...seen }) }) }]
      },
      "tool.execute.before": (input: any) => {
        if (input.toolID !== "spin_now") return undefined
        while (true) {}
      },
    }
  },
}
