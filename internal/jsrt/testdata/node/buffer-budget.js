// Buffers past the plugin's memory budget (256 MiB in these tests): Node
// allocates them, Podcode refuses them with a RangeError before it
// allocates anything, and both go on.
for (const [what, fn] of [
  ["Buffer.alloc", () => Buffer.alloc(300 * 2 ** 20)],
  ["Buffer.allocUnsafe", () => Buffer.allocUnsafe(300 * 2 ** 20)],
  ["Buffer.allocUnsafeSlow", () => Buffer.allocUnsafeSlow(300 * 2 ** 20)],
  ["Buffer.concat", () => Buffer.concat([Buffer.from("a")], 300 * 2 ** 20)],
]) {
  let b;
  try {
    b = fn();
  } catch (e) {
    console.log("podcode-differs:", what, e.name, e.message);
  }
  b = undefined;
  console.log(what, "done", b === undefined);
}
// Node's own limit comes first, in both
try { Buffer.alloc(2 ** 32 + 1); } catch (e) { console.log(e.name, e.code, e.message); }
try { Buffer.concat([Buffer.from("a")], 2 ** 32 + 1); } catch (e) { console.log(e.name, e.code, e.message); }
console.log(Buffer.alloc(3, "ok").toString());
