// Buffer's statics: from, alloc, byteLength, concat, compare, isEncoding,
// and what they refuse.
const { Buffer: B, kMaxLength, kStringMaxLength, constants, SlowBuffer } = require("buffer");
const show = (v) => (v instanceof Uint8Array ? (v instanceof Buffer ? "Buffer" : v.constructor.name) + "<" + v.toString("hex") + ">" : typeof v === "bigint" ? v + "n" : JSON.stringify(v));
const t = (label, fn) => {
  try { console.log(label, show(fn())); } catch (e) { console.log(label, "threw", e.name, e.code, e.message); }
};
console.log(B === Buffer, kMaxLength, kStringMaxLength, JSON.stringify(constants), Buffer.poolSize, Buffer.name, Buffer.length);
console.log(Object.getPrototypeOf(Buffer) === Uint8Array, Buffer[Symbol.species].name, typeof SlowBuffer);

t("from string", () => Buffer.from("héllo wörld €𝄞"));
t("from string latin1", () => Buffer.from("héllo", "latin1"));
t("from string empty", () => Buffer.from(""));
t("from string empty hex", () => Buffer.from("", "hex"));
t("from string bad enc", () => Buffer.from("x", "nope"));
t("from string bad enc empty", () => Buffer.from("", "nope"));
t("from string enc ''", () => Buffer.from("ab", ""));
t("from string enc null", () => Buffer.from("ab", null));
t("from string enc number", () => Buffer.from("ab", 5));
for (const e of ["UTF8", "Utf-8", "UCS-2", "Utf16LE", "BINARY", "Base64URL", "HEX", "ASCII", "latin-1", "utf16", "utf8 "]) {
  t("from enc " + e, () => Buffer.from("ab", e));
}
t("from array", () => Buffer.from([1, 2, 255, 256, -1, "a", "3", 1.9, null]));
t("from empty array", () => Buffer.from([]));
t("from Uint16Array", () => Buffer.from(new Uint16Array([1, 256, 65535])));
t("from Float64Array", () => Buffer.from(new Float64Array([1.5, -1])));
t("from buffer", () => Buffer.from(Buffer.from("abc")));
t("from subarray", () => Buffer.from(new Uint8Array([1, 2, 3]).subarray(1)));
const ab = new Uint8Array([1, 2, 3, 4, 5, 6]).buffer;
t("from arraybuffer", () => Buffer.from(ab));
t("from arraybuffer off", () => Buffer.from(ab, 2));
t("from arraybuffer off len", () => Buffer.from(ab, 1, 3));
t("from arraybuffer off NaN", () => Buffer.from(ab, "x", 2));
t("from arraybuffer len 0", () => Buffer.from(ab, 1, -5));
t("from arraybuffer off past", () => Buffer.from(ab, 7));
t("from arraybuffer len past", () => Buffer.from(ab, 2, 5));
t("from arraybuffer at end", () => Buffer.from(ab, 6));
{
  const shared = Buffer.from(ab, 1, 2);
  shared[0] = 99;
  console.log("shares memory", new Uint8Array(ab)[1], shared.buffer === ab, shared.byteOffset);
}
t("from valueOf", () => Buffer.from({ valueOf() { return "hey"; } }));
t("from String object", () => Buffer.from(new String("str"), "hex"));
t("from toPrimitive", () => Buffer.from({ [Symbol.toPrimitive]() { return "prim"; } }));
t("from array-like", () => Buffer.from({ length: 2, 0: 65, 1: 66 }));
t("from toJSON form", () => Buffer.from({ type: "Buffer", data: [67, 68] }));
t("from length not number", () => Buffer.from({ length: "x" }));
t("from number", () => Buffer.from(5));
t("from object", () => Buffer.from({}));
t("from null", () => Buffer.from(null));
t("from undefined", () => Buffer.from());
t("from symbol", () => Buffer.from(Symbol("s")));
t("from function", () => Buffer.from(function named() {}));
t("Buffer(n)", () => Buffer(3));
t("new Buffer(str)", () => new Buffer("ab", "hex"));
t("Buffer(n, enc)", () => Buffer(3, "utf8"));
t("of", () => Buffer.of(1, 2, 300));
t("copyBytesFrom", () => Buffer.copyBytesFrom(new Uint16Array([1, 2, 3]), 1, 1));
t("copyBytesFrom all", () => Buffer.copyBytesFrom(new Uint16Array([258, 3])));
t("copyBytesFrom array", () => Buffer.copyBytesFrom([1]));

t("alloc", () => Buffer.alloc(4));
t("alloc 0", () => Buffer.alloc(0));
t("alloc fill str", () => Buffer.alloc(5, "ab"));
t("alloc fill num", () => Buffer.alloc(5, 257));
t("alloc fill buf", () => Buffer.alloc(4, Buffer.from([1, 2, 3])));
t("alloc fill base64", () => Buffer.alloc(5, "YQ==", "base64"));
t("alloc fill euro", () => Buffer.alloc(7, "€"));
t("alloc fill true", () => Buffer.alloc(3, true));
t("alloc fill empty", () => Buffer.alloc(3, ""));
t("alloc fill 1.9", () => Buffer.alloc(3, 1.9));
t("alloc fill -1", () => Buffer.alloc(2, -1));
t("alloc fill latin1", () => Buffer.alloc(3, "é", "latin1"));
t("alloc fill u16", () => Buffer.alloc(5, new Uint16Array([0x0102])));
t("alloc fill bad hex", () => Buffer.alloc(3, "zz", "hex"));
t("alloc fill bad enc", () => Buffer.alloc(3, "a", "bogus"));
t("alloc fill enc number", () => Buffer.alloc(3, "a", 5));
t("alloc -1", () => Buffer.alloc(-1));
t("alloc NaN", () => Buffer.alloc(NaN));
t("alloc 1.5", () => Buffer.alloc(1.5));
t("alloc str", () => Buffer.alloc("3"));
t("alloc 2**33", () => Buffer.alloc(2 ** 33));
t("allocUnsafe", () => Buffer.allocUnsafe(3).length);
t("allocUnsafe bad", () => Buffer.allocUnsafe(-2));
t("allocUnsafeSlow", () => Buffer.allocUnsafeSlow(3).length);
t("allocUnsafeSlow bad", () => Buffer.allocUnsafeSlow("x"));
t("SlowBuffer", () => SlowBuffer(2).length);

for (const s of ["", "abc", "héllo", "€", "𝄞", "\ud800", "\udc00x", "\ud800\udc00"]) {
  console.log("byteLength", JSON.stringify(s), ["utf8", "ucs2", "latin1", "ascii", "hex", "base64", "base64url", "bogus", undefined].map((e) => Buffer.byteLength(s, e)).join());
}
for (const s of ["QQ", "Q", "QQ==", "QQ=", "  aGVs bG8=\n", "abc", "a"]) {
  console.log("byteLength b64", JSON.stringify(s), Buffer.byteLength(s, "base64"), Buffer.byteLength(s, "base64url"), Buffer.byteLength(s, "hex"));
}
t("byteLength view", () => Buffer.byteLength(new Uint16Array(3)));
t("byteLength ab", () => Buffer.byteLength(new ArrayBuffer(7)));
t("byteLength dataview", () => Buffer.byteLength(new DataView(new ArrayBuffer(5))));
t("byteLength number", () => Buffer.byteLength(5));
t("byteLength object", () => Buffer.byteLength({}));

t("concat", () => Buffer.concat([Buffer.from("ab"), new Uint8Array([99]), Buffer.from("de")]));
t("concat empty", () => Buffer.concat([]));
t("concat len short", () => Buffer.concat([Buffer.from("abc"), Buffer.from("def")], 4));
t("concat len long", () => Buffer.concat([Buffer.from("ab")], 5));
t("concat len 0", () => Buffer.concat([Buffer.from("ab")], 0));
t("concat not array", () => Buffer.concat("x"));
t("concat bad item", () => Buffer.concat([Buffer.from("a"), "b"]));
t("concat bad len", () => Buffer.concat([Buffer.from("a")], -1));
t("concat len 1.5", () => Buffer.concat([Buffer.from("a")], 1.5));
t("concat len str", () => Buffer.concat([Buffer.from("a")], "1"));
{
  const parts = [Buffer.from("x")];
  const c = Buffer.concat(parts);
  c[0] = 0x79;
  console.log("concat copies", parts[0].toString(), c.toString());
}

t("compare", () => [Buffer.compare(Buffer.from("a"), Buffer.from("b")), Buffer.compare(Buffer.from("b"), Buffer.from("a")), Buffer.compare(Buffer.from("a"), Buffer.from("a")), Buffer.compare(Buffer.from("a"), Buffer.from("ab")), Buffer.compare(Buffer.alloc(0), Buffer.alloc(0))]);
t("compare sort", () => [Buffer.from("b"), Buffer.from("a"), Buffer.from("ab"), Buffer.from("")].sort(Buffer.compare).map(String));
t("compare bad 1", () => Buffer.compare(1, Buffer.from("a")));
t("compare bad 2", () => Buffer.compare(Buffer.from("a"), "a"));

for (const e of ["utf8", "UTF-8", "ucs2", "UCS-2", "utf16le", "utf-16le", "latin1", "binary", "ascii", "base64", "base64url", "hex", "Hex", "", "latin-1", "utf16", null, undefined, 5, {}]) {
  console.log("isEncoding", JSON.stringify(e), Buffer.isEncoding(e));
}
console.log("isBuffer", Buffer.isBuffer(Buffer.alloc(1)), Buffer.isBuffer(new Uint8Array(1)), Buffer.isBuffer("a"), Buffer.isBuffer(null), Buffer.isBuffer(Buffer.from("ab").subarray(1)));
console.log("instanceof", Buffer.alloc(1) instanceof Buffer, Buffer.alloc(1) instanceof Uint8Array, new Uint8Array(1) instanceof Buffer);
