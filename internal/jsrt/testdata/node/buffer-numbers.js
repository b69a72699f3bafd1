// Reading and writing numbers: (U)Int8/16/32, (U)IntLE/BE of 1 to 6
// bytes, BigInt64, Float, Double, with Node's range and offset errors.
const show = (v) => (typeof v === "bigint" ? v + "n" : Object.is(v, -0) ? "-0" : String(v));
const t = (label, fn) => {
  try { console.log(label, show(fn())); } catch (e) { console.log(label, "threw", e.name, e.code, e.message); }
};
const src = Buffer.from([0x01, 0x02, 0x83, 0xf4, 0xff, 0x80, 0x00, 0x7f, 0xfe, 0x10]);
const reads = ["readUInt8", "readUint8", "readInt8", "readUInt16LE", "readUInt16BE", "readInt16LE", "readInt16BE", "readUint16LE", "readUInt32LE", "readUInt32BE", "readInt32LE", "readInt32BE", "readUint32BE",
  "readFloatLE", "readFloatBE", "readDoubleLE", "readDoubleBE", "readBigUInt64LE", "readBigUInt64BE", "readBigInt64LE", "readBigInt64BE", "readBigUint64LE"];
for (const name of reads) {
  const out = [];
  for (const off of [undefined, 0, 1, 2, 3]) {
    try { out.push(show(src[name](off))); } catch (e) { out.push(e.code); }
  }
  console.log(name, out.join(" "));
  for (const off of [-1, 1.5, "1", NaN, null, 10, 2 ** 40, Infinity]) t(name + " " + JSON.stringify(off), () => src[name](off));
  t(name + " empty", () => Buffer.alloc(0)[name](0));
}
for (const name of ["readUIntLE", "readUIntBE", "readIntLE", "readIntBE", "readUintLE"]) {
  for (let n = 1; n <= 6; n++) t(name + " " + n, () => [0, 1, 2, 3, 4].map((o) => { try { return src[name](o, n); } catch (e) { return e.code; } }).join(" "));
  for (const n of [0, 7, 1.5, "2", undefined, null]) t(name + " bytes " + JSON.stringify(n), () => src[name](0, n));
  t(name + " no offset", () => src[name]());
  t(name + " past", () => src[name](6, 6));
}

const writes = [
  ["writeUInt8", [0, 1, 255, 256, -1, 1.9, NaN, "7", 127.5]],
  ["writeInt8", [0, -128, 127, 128, -129, -1.5]],
  ["writeUInt16LE", [0, 0xffff, 0x10000, -1, 258.7]],
  ["writeUInt16BE", [0x1234, 65536]],
  ["writeInt16LE", [-32768, 32767, 32768, -1.5]],
  ["writeInt16BE", [-2, -32769]],
  ["writeUInt32LE", [0xdeadbeef, 2 ** 32, -1, 2 ** 32 - 0.5]],
  ["writeUInt32BE", [0x01020304]],
  ["writeInt32LE", [-(2 ** 31), 2 ** 31 - 1, 2 ** 31, -1]],
  ["writeInt32BE", [-2]],
  ["writeUint32LE", [5]],
  ["writeFloatLE", [1.5, -0, Infinity, NaN, 1e40, 3.4028234663852886e38, "2.5"]],
  ["writeFloatBE", [1.5]],
  ["writeDoubleLE", [Math.PI, -0, -Infinity, 5e-324]],
  ["writeDoubleBE", [Math.PI]],
  ["writeBigUInt64LE", [0n, 2n ** 64n - 1n, 2n ** 64n, -1n, 2n ** 64n * 1000n, 5]],
  ["writeBigUInt64BE", [0x0102030405060708n]],
  ["writeBigInt64LE", [-(2n ** 63n), 2n ** 63n - 1n, 2n ** 63n, -(2n ** 63n) - 1n, -1n]],
  ["writeBigInt64BE", [-2n]],
  ["writeBigUint64LE", [7n]],
];
for (const [name, values] of writes) {
  for (const v of values) {
    t(name + " " + show(v), () => { const b = Buffer.alloc(10, 0xaa); const r = b[name](v, 1); return r + " " + b.toString("hex"); });
  }
  t(name + " default offset", () => { const b = Buffer.alloc(10); b[name](typeof values[0] === "bigint" ? 1n : 1); return b.toString("hex"); });
  for (const off of [-1, 1.5, "1", NaN, null, 9, 10, Infinity]) t(name + " at " + JSON.stringify(off), () => Buffer.alloc(10)[name](typeof values[0] === "bigint" ? 1n : 1, off));
  t(name + " empty", () => Buffer.alloc(0)[name](typeof values[0] === "bigint" ? 1n : 1, 0));
  t(name + " out of range and bad offset", () => Buffer.alloc(10)[name](typeof values[0] === "bigint" ? 2n ** 70n : 2 ** 70, "x"));
}
for (const name of ["writeUIntLE", "writeUIntBE", "writeIntLE", "writeIntBE", "writeUintBE"]) {
  for (let n = 1; n <= 6; n++) {
    for (const v of [0, 1, -1, 2 ** (8 * n - 1), 2 ** (8 * n) - 1, 2 ** (8 * n), -(2 ** (8 * n - 1)), -(2 ** (8 * n - 1)) - 1, 1.5, -1.5]) {
      t(name + " " + n + " " + v, () => { const b = Buffer.alloc(8); const r = b[name](v, 1, n); return r + " " + b.toString("hex"); });
    }
  }
  for (const n of [0, 7, 1.5, "2", undefined]) t(name + " bytes " + JSON.stringify(n), () => Buffer.alloc(8)[name](1, 0, n));
  t(name + " past", () => Buffer.alloc(8)[name](1, 4, 6));
  t(name + " no offset", () => Buffer.alloc(8)[name](1, undefined, 2));
}
// round trips
const rt = Buffer.alloc(8);
for (const v of [0, -0, 1, -1, 0.1, 123456.789, -1e-300, 2 ** 53, Number.MAX_VALUE, Number.MIN_VALUE]) {
  rt.writeDoubleBE(v);
  const a = rt.readDoubleBE();
  rt.writeDoubleLE(v);
  const b = rt.readDoubleLE();
  rt.writeFloatLE(v);
  console.log("double", show(v), show(a), show(b), show(rt.readFloatLE()));
}
for (const v of [0, 1, -1, 2 ** 40, -(2 ** 40) - 3, 2 ** 47 - 1, -(2 ** 47)]) {
  rt.writeIntLE(v, 0, 6);
  const a = rt.readIntLE(0, 6);
  rt.writeIntBE(v, 2, 6);
  console.log("int48", v, a, rt.readIntBE(2, 6));
}
