// slice and subarray (views), copy, equals, compare, swap, toJSON,
// iteration, atob and btoa, isUtf8 and isAscii, transcode, Blob and File.
const buffer = require("buffer");
const t = (label, fn) => {
  try {
    const v = fn();
    console.log(label, v instanceof Uint8Array ? (v instanceof Buffer ? "Buffer" : "Uint8Array") + "<" + Buffer.from(v).toString("hex") + ">" : JSON.stringify(v));
  } catch (e) { console.log(label, "threw", e.name, e.code, e.message); }
};
const b = Buffer.from("hello world");
for (const [s, e] of [[undefined, undefined], [-3, undefined], [2, -2], [5, 2], ["1", "3"], [NaN, 2], [1, NaN], [1.9, 4.2], [-100, 100], [20, 30], [0, 0], [null, 3], [{}, 2], [-0, 3], [Infinity, undefined], [-Infinity, 3]]) {
  t("slice " + JSON.stringify([s, e]), () => b.slice(s, e));
  t("subarray " + JSON.stringify([s, e]), () => b.subarray(s, e));
}
{
  const s = b.slice(0, 5);
  s[0] = 72;
  const u = b.subarray(6);
  u[0] = 87;
  console.log("views share", b.toString(), s instanceof Buffer, u instanceof Buffer, s.buffer === b.buffer, u.byteOffset - b.byteOffset);
  console.log("species", b.map((x) => x + 1) instanceof Buffer, b.filter((x) => x > 100).constructor.name, Uint8Array.prototype.slice.call(b, 1, 3) instanceof Buffer);
  console.log("parent offset", b.parent === b.buffer, b.subarray(3).offset - b.offset, new Uint8Array(2).parent);
}

const copy = (src, size, ...args) => { const dst = Buffer.alloc(size, 0x2e); const n = Buffer.from(src).copy(dst, ...args); return [n, dst.toString()]; };
t("copy", () => copy("abc", 5));
t("copy target start", () => copy("abc", 5, 3));
t("copy source range", () => copy("abcdef", 5, 1, 2, 4));
t("copy source end past", () => copy("abc", 5, 0, 1, 10));
t("copy target short", () => copy("abcdef", 3));
t("copy target start past", () => copy("abc", 3, 5));
t("copy source start = end", () => copy("abc", 3, 0, 2, 2));
t("copy source start > end", () => copy("abc", 3, 0, 2, 1));
t("copy floats", () => copy("abcdef", 6, 1.7, "2", 4.9));
t("copy NaN", () => copy("abc", 4, NaN, NaN));
t("copy target neg", () => copy("abc", 3, -1));
t("copy source start neg", () => copy("abc", 3, 0, -1));
t("copy source start past", () => copy("abc", 3, 0, 4));
t("copy source end neg", () => copy("abc", 3, 0, 0, -1));
t("copy bad target", () => Buffer.from("a").copy("x"));
t("copy into Uint8Array", () => { const u = new Uint8Array(3); Buffer.from("ab").copy(u, 1); return u; });
t("copy overlapping", () => { const x = Buffer.from("abcdef"); x.copy(x, 2, 0, 4); return x.toString(); });
t("copy overlapping back", () => { const x = Buffer.from("abcdef"); x.copy(x, 0, 2); return x.toString(); });
t("copy from Uint8Array", () => { const dst = Buffer.alloc(2); Buffer.prototype.copy.call(new Uint8Array([1, 2]), dst); return dst; });

t("equals", () => [b.equals(Buffer.from(b)), b.equals(b), b.equals(Buffer.from("x")), Buffer.alloc(0).equals(new Uint8Array(0)), Buffer.from("ab").equals(new Uint8Array([97, 98]))]);
t("equals bad", () => b.equals("hello"));
const c = Buffer.from("bcd");
t("compare", () => [c.compare(Buffer.from("abc")), c.compare(Buffer.from("bcd")), c.compare(Buffer.from("bce")), c.compare(Buffer.from("bc")), c.compare(Buffer.from("bcde"))]);
t("compare ranges", () => [c.compare(Buffer.from("xbcx"), 1, 3, 0, 2), c.compare(Buffer.from("abc"), 1), c.compare(Buffer.from("abc"), 0, 0), c.compare(Buffer.from("abc"), 0, 1, 1, 1), c.compare(Buffer.from("abc"), 1, 1, 1, 1), c.compare(Buffer.from("a"), 5)]);
t("compare bad target", () => c.compare("bcd"));
t("compare bad targetStart", () => c.compare(c, -1));
t("compare bad targetEnd", () => c.compare(c, 0, 4));
t("compare bad sourceStart", () => c.compare(c, 0, 1, "x"));
t("compare bad sourceEnd", () => c.compare(c, 0, 1, 0, 9));
t("compare float", () => c.compare(c, 0.5));

t("swap16", () => Buffer.from([1, 2, 3, 4]).swap16());
t("swap32", () => Buffer.from([1, 2, 3, 4, 5, 6, 7, 8]).swap32());
t("swap64", () => Buffer.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]).swap64());
t("swap16 odd", () => Buffer.alloc(3).swap16());
t("swap32 bad", () => Buffer.alloc(6).swap32());
t("swap64 bad", () => Buffer.alloc(12).swap64());
t("swap16 empty", () => Buffer.alloc(0).swap16());
t("swap16 large", () => { const x = Buffer.alloc(300); for (let i = 0; i < 300; i++) x[i] = i; x.swap16(); return [x[0], x[1], x[298], x[299]]; });
t("swap on subarray", () => { const x = Buffer.from([1, 2, 3, 4, 5, 6]); x.subarray(1, 5).swap32(); return x; });

t("toJSON", () => Buffer.from("hi").toJSON());
t("toJSON empty", () => Buffer.alloc(0).toJSON());
t("JSON.stringify", () => JSON.stringify({ b: Buffer.from([1, 2]) }));
t("JSON round trip", () => Buffer.from(JSON.parse(JSON.stringify(Buffer.from("rt")))));
t("keys", () => [...Buffer.from("ab").keys()]);
t("values", () => [...Buffer.from("ab").values()]);
t("entries", () => [...Buffer.from("ab").entries()]);
t("spread", () => [...Buffer.from("ab")]);
t("for of", () => { const out = []; for (const x of Buffer.from("xy")) out.push(x); return out; });
t("aliases", () => [Buffer.prototype.readUint8 === Buffer.prototype.readUInt8, Buffer.prototype.toLocaleString === Buffer.prototype.toString, typeof Buffer.prototype.writeBigUint64LE]);

for (const s of ["aGk=", " aGk= ", "aGk", "aG k=\n", "aGk==", "aGk===", "a", "ab", "abc", "abcd", "ab=c", "a===", "ab==", "====", "", "aGk=aGk=", "a\u00e9", "*", "aGk-", "aGk_", "YWJjZA==", "YWJjZA=", "YWJjZA"]) {
  t("atob " + JSON.stringify(s), () => atob(s));
}
t("atob no args", () => atob());
t("atob undefined", () => atob(undefined));
t("atob null", () => atob(null));
t("atob number", () => atob(12));
t("atob module", () => buffer.atob === atob && buffer.btoa === btoa);
for (const s of ["", "hi", "hello", "\u00ff\u0000", "é", "€", 123, null]) t("btoa " + JSON.stringify(s), () => btoa(s));
t("btoa no args", () => btoa());
t("btoa undefined", () => btoa(undefined));
try { atob("*"); } catch (e) { console.log("atob error", e.name, e.code, e.message, e instanceof Error, e instanceof DOMException, String(e)); }
try { btoa("€"); } catch (e) { console.log("btoa error", e.name, e.code, e.message, e instanceof DOMException); }

for (const x of [Buffer.from("héllo"), Buffer.from([0xff]), Buffer.from([0xed, 0xa0, 0x80]), new Uint8Array(0), new Uint16Array([0x4141]), new ArrayBuffer(2), Buffer.from([0xc3]), Buffer.from("abc")]) {
  const bytes = x instanceof ArrayBuffer ? Buffer.from(x) : Buffer.from(x.buffer, x.byteOffset, x.byteLength);
  t("isUtf8/isAscii " + bytes.toString("hex"), () => [buffer.isUtf8(x), buffer.isAscii(x)]);
}
t("isUtf8 bad", () => buffer.isUtf8("x"));
t("isAscii bad", () => buffer.isAscii([1]));

t("transcode ascii", () => buffer.transcode(Buffer.from("hé€"), "utf8", "ascii"));
t("transcode latin1", () => buffer.transcode(Buffer.from("hé€"), "utf8", "latin1"));
t("transcode ucs2", () => buffer.transcode(Buffer.from("hé𝄞"), "utf8", "ucs2"));
t("transcode from ucs2", () => buffer.transcode(Buffer.from("hé𝄞", "ucs2"), "ucs2", "utf8"));
t("transcode same", () => buffer.transcode(Buffer.from("x"), "utf8", "utf8"));
t("transcode empty", () => buffer.transcode(Buffer.alloc(0), "utf8", "hex"));
t("transcode bad", () => buffer.transcode(Buffer.from("h"), "utf8", "hex"));
t("transcode bad source", () => buffer.transcode("h", "utf8", "ucs2"));

const blob = new buffer.Blob(["ab", new Uint8Array([99]), new buffer.Blob(["d"]), new Uint16Array([0x6665]).buffer], { type: "Text/Plain" });
console.log("blob", blob.size, blob.type, Object.prototype.toString.call(blob), Object.keys(blob).length, blob instanceof buffer.Blob);
console.log("blob text", await blob.text());
console.log("blob slice", await blob.slice(1, -1).text(), await blob.slice(-2).text(), blob.slice(-2, undefined, "X/Y").type, blob.slice(3, 1).size, blob.slice().size);
console.log("blob arrayBuffer", Buffer.from(await blob.arrayBuffer()).toString("hex"));
console.log("blob empty", new buffer.Blob().size, new buffer.Blob([]).type, await new buffer.Blob([]).text());
console.log("blob bad type", JSON.stringify(new buffer.Blob(["x"], { type: "a\u00e9" }).type));
{
  const src = Buffer.from("mut");
  const bl = new buffer.Blob([src]);
  src[0] = 0x4e;
  console.log("blob copies", await bl.text());
}
t("blob bad sources", () => new buffer.Blob("x"));
t("blob bad sources number", () => new buffer.Blob(5));
const file = new buffer.File(["x", "yz"], "a.txt", { lastModified: 5, type: "text/plain" });
console.log("file", file.name, file.lastModified, file.size, file.type, file instanceof buffer.Blob, Object.prototype.toString.call(file), await file.text());
console.log("file default time", typeof new buffer.File([], "n").lastModified);
t("file missing", () => new buffer.File(["x"]));
console.log("exports", ["Buffer", "SlowBuffer", "transcode", "isUtf8", "isAscii", "kMaxLength", "kStringMaxLength", "btoa", "atob", "constants", "INSPECT_MAX_BYTES", "Blob", "resolveObjectURL", "File"].map((k) => typeof buffer[k]).join());
