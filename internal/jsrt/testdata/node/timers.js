const timers = require("node:timers");
const tp = require("node:timers/promises");
const order = [];
await new Promise((resolve) => {
  setTimeout(() => order.push("timeout"), 0);
  setImmediate((a, b) => { order.push("immediate " + a + b); }, 1, 2);
  const i = setImmediate(() => order.push("cleared"));
  clearImmediate(i);
  Promise.resolve().then(() => order.push("microtask"));
  process.nextTick(() => order.push("tick"));
  setTimeout(resolve, 20);
});
console.log(order.includes("microtask"), order.includes("tick"), order.includes("immediate 12"), order.includes("cleared"), order.length);
const t = setTimeout(() => {}, 1000);
console.log(typeof t, t.hasRef(), t.unref() === t, t.ref() === t, typeof +t);
clearTimeout(t);
const t2 = setTimeout(() => order.push("never"), 5);
clearTimeout(+t2);
await tp.setTimeout(10);
console.log(order.includes("never"));
console.log(await tp.setTimeout(1, "value"), await tp.setImmediate("imm"));
const ac = new AbortController();
const p = tp.setTimeout(1000, "x", { signal: ac.signal });
ac.abort();
try { await p; } catch (e) { console.log(e.name, e.code, e.message); }
try { await tp.setTimeout(1, "x", { signal: AbortSignal.abort() }); } catch (e) { console.log(e.name, e.code); }
let n = 0;
for await (const v of tp.setInterval(2, "tick")) {
  n++;
  if (n === 3) { console.log(v, n); break; }
}
await tp.scheduler.wait(2);
console.log(timers.setTimeout === setTimeout, typeof timers.setImmediate, typeof tp.scheduler.yield);
try { setImmediate("nope"); } catch (e) { console.log(e.code, e.message); }
let refreshed = 0;
const r = setTimeout(() => { refreshed++; }, 200);
await tp.setTimeout(20);
r.refresh();
await tp.setTimeout(30);
console.log("refreshed before due:", refreshed);
await tp.setTimeout(250);
console.log("after:", refreshed);
const util = require("node:util");
console.log(await util.promisify(setImmediate)("imm-promisified"), await util.promisify(setTimeout)(1, "to-promisified"));
const aborted = new AbortController();
aborted.abort();
console.log(util.promisify(setTimeout) === tp.setTimeout,
  await util.promisify(setTimeout)(10, 1, { signal: aborted.signal }).catch((e) => [e.name, e.code, e.message].join(" ")));
