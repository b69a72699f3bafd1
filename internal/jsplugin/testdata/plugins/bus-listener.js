// SPEC P7: subscribe, subscribeAll, unsubscribe; a listener that throws is logged.
export default {
  id: "bus-listener",
  server({ bus }) {
    const seen = []
    bus.subscribe("tool.call.finished", (e) => { seen.push("one:" + e.type + ":" + e.properties.tool) })
    const stop = bus.subscribeAll((e) => { seen.push("all:" + e.type); if (seen.length > 100) stop() })
    bus.subscribe("tool.call.started", () => { throw new Error("listener bug") })
    const stopped = bus.subscribe("tool.call.finished", () => seen.push("stopped listener ran"))
    stopped()
    return {
      tool: () => [{ id: "bus_seen", description: "what the bus listener saw", parameters: {},
        execute: () => ({ title: "seen", output: JSON.stringify(seen) }) }],
    }
  },
}
