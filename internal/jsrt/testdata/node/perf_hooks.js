const ph = require("node:perf_hooks");
const { performance, PerformanceObserver, PerformanceMark, PerformanceEntry } = ph;
const wait = (ms) => new Promise((r) => setTimeout(r, ms || 0));

console.log("global is the module's:", globalThis.performance === performance, String(performance));
const t0 = performance.now();
await wait(5);
const t1 = performance.now();
console.log("now:", typeof t0, t0 > 0, t1 > t0, t1 - t0 >= 4, t1 - t0 < 1000);
console.log("timeOrigin:", typeof performance.timeOrigin, Math.abs(performance.timeOrigin + performance.now() - Date.now()) < 1000);

const a = performance.mark("a", { detail: { x: 1 } });
await wait(3);
const b = performance.mark("b");
console.log("mark:", a instanceof PerformanceMark, a instanceof PerformanceEntry, Object.keys(a).length, JSON.stringify(Object.keys(a.toJSON())),
  a.name, a.entryType, a.duration, JSON.stringify(a.detail), b.detail, b.startTime > a.startTime);
const m = performance.measure("a to b", "a", "b");
console.log("measure:", m.constructor.name, m.entryType, m.startTime === a.startTime, m.duration === b.startTime - a.startTime, m.detail);
const since = performance.measure("since a", "a");
console.log("measure to now:", since.duration >= m.duration, performance.measure("from origin").startTime);
console.log("measure options:", JSON.stringify(performance.measure("d", { start: 1, duration: 5 }).toJSON()),
  JSON.stringify(performance.measure("e", { start: 1, end: 5, detail: "x" }).toJSON()), performance.mark("at", { startTime: 12.5 }).startTime);
console.log("entries:", performance.getEntries().map((e) => e.name + ":" + e.entryType).join(","));
console.log("by name:", performance.getEntriesByName("a").length, performance.getEntriesByName("a", "measure").length, performance.getEntriesByType("measure").length);
performance.clearMarks("a");
console.log("clearMarks(a):", performance.getEntriesByType("mark").map((e) => e.name).join(","));
performance.clearMarks();
performance.clearMeasures("d");
console.log("cleared:", performance.getEntries().map((e) => e.name).join(","));
performance.clearMeasures();

for (const f of [() => performance.measure("x", "nope"), () => performance.measure("f", { start: 1, end: 5, duration: 3 }),
  () => performance.mark(), () => performance.mark("neg", { startTime: -1 }), () => new PerformanceEntry()]) {
  try { f(); console.log("no error"); } catch (e) { console.log("error:", e.name, e.code, e.message); }
}

console.log("toJSON:", JSON.stringify(Object.keys(performance.toJSON())), typeof performance.toJSON().timeOrigin);
console.log("eventLoopUtilization:", JSON.stringify(Object.keys(performance.eventLoopUtilization())));
const doubled = performance.timerify(function double(x) { return x * 2; });
console.log("timerify:", doubled(21), doubled.name, doubled.length);

// an observer gets marks and measures in a batch, after the code that made them
const seen = [];
const obs = new PerformanceObserver((list, o) => {
  seen.push(list.getEntries().map((e) => e.name + ":" + e.entryType).join(","));
  seen.push("same observer " + (o === obs) + " by type " + list.getEntriesByType("mark").length);
});
obs.observe({ entryTypes: ["mark", "measure"] });
performance.mark("o1");
performance.mark("o2");
performance.measure("om", "o1", "o2");
seen.push("sync");
await wait(5);
obs.disconnect();
performance.mark("after disconnect");
await wait(5);
console.log("observer:", seen.join(" | "));
console.log("observer types:", PerformanceObserver.supportedEntryTypes.includes("mark"), PerformanceObserver.supportedEntryTypes.includes("measure"));
if (process.versions.podcode) {
  console.log("podcode-differs:", "PerformanceObserver.supportedEntryTypes is mark and measure only");
}
