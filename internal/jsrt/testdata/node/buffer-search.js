// indexOf, lastIndexOf, includes (strings, numbers, buffers, offsets,
// encodings) and fill.
const t = (label, fn) => {
  try {
    const v = fn();
    console.log(label, v instanceof Uint8Array ? "<" + v.toString("hex") + ">" : JSON.stringify(v));
  } catch (e) { console.log(label, "threw", e.name, e.code, e.message); }
};
const h = Buffer.from("abcabcabc");
const offsets = [undefined, 0, 1, 2, 4, 7, 8, 9, 20, -1, -2, -4, -9, -20, 1.7, -0.5, NaN, null, 2 ** 40, -(2 ** 40), Infinity, -Infinity, "", {}, [], true];
for (const needle of ["bc", "b", "c", "", "abcabcabc", "abcabcabcd", "x", 98, 98 + 256, -1, 97.9, 0, Buffer.from("ca"), Buffer.from(""), new Uint8Array([99])]) {
  const label = typeof needle === "object" ? "buf<" + Buffer.from(needle).toString("hex") + ">" : JSON.stringify(needle);
  for (const off of offsets) {
    const o = off === undefined ? "undefined" : typeof off === "number" ? String(off) : JSON.stringify(off);
    t("indexOf " + label + " " + o, () => [h.indexOf(needle, off), h.lastIndexOf(needle, off), h.includes(needle, off)]);
  }
}
t("indexOf hex", () => [h.indexOf("6263", "hex"), h.indexOf("zz", "hex"), h.indexOf("6263", 2, "hex"), h.lastIndexOf("6263", "hex")]);
t("indexOf base64", () => [h.indexOf("YmM=", "base64"), h.lastIndexOf("YmM", "base64url")]);
t("indexOf latin1", () => [Buffer.from("aéb", "latin1").indexOf("é", "latin1"), Buffer.from("aéb").indexOf("é"), Buffer.from("aéb").indexOf("é", "latin1")]);
t("indexOf ascii", () => [h.indexOf("c", "ascii"), h.indexOf("c", 3, "binary")]);
const u = Buffer.from("abcabc", "ucs2");
t("indexOf ucs2", () => [u.indexOf("b", "ucs2"), u.indexOf("b", 3, "ucs2"), u.indexOf("b", 4, "ucs2"), u.lastIndexOf("b", "ucs2"), u.lastIndexOf("b", 7, "ucs2"), u.lastIndexOf("b", 1, "ucs2"), u.indexOf("", "ucs2"), u.indexOf("cab", "utf16le")]);
t("indexOf ucs2 aligned", () => [Buffer.from("\u0000a\u0000b").indexOf("\u6100", "ucs2"), Buffer.from([0x61, 0x62, 0x00, 0x63]).indexOf("\u6200", "ucs2"), Buffer.from([0x61]).indexOf("a", "ucs2")]);
t("indexOf ucs2 buffer", () => [u.indexOf(Buffer.from("c\u0000"), 0, "ucs2"), u.indexOf(Buffer.from("\u0000c"), 0, "ucs2"), u.indexOf(Buffer.from("\u0000c"))]);
t("indexOf bad enc", () => h.indexOf("a", 0, "bogus"));
t("indexOf enc as offset", () => h.indexOf("a", "bogus"));
t("indexOf buffer bad enc", () => h.indexOf(Buffer.from("c"), 0, "bogus"));
t("indexOf number bad enc", () => h.indexOf(99, 0, "bogus"));
t("indexOf object", () => h.indexOf({}));
t("indexOf boolean", () => h.indexOf(true));
t("indexOf null", () => h.indexOf(null));
t("indexOf empty haystack", () => [Buffer.alloc(0).indexOf("a"), Buffer.alloc(0).indexOf(""), Buffer.alloc(0).lastIndexOf(""), Buffer.alloc(0).indexOf(97), Buffer.alloc(0).indexOf(Buffer.alloc(0), 5)]);
t("indexOf utf8 multibyte", () => [Buffer.from("a€b€").indexOf("€"), Buffer.from("a€b€").lastIndexOf("€"), Buffer.from("a€b").indexOf(0x82)]);
t("indexOf on subarray", () => Buffer.from("xxabcab").subarray(2).lastIndexOf("ab"));

const fill = (size, ...args) => { const b = Buffer.alloc(size); const r = b.fill(...args); return [r === b, b.toString("hex")]; };
t("fill num", () => fill(4, 7));
t("fill num range", () => fill(5, 7, 1, 3));
t("fill num 257", () => fill(3, 257));
t("fill num -1.5", () => fill(2, -1.5));
t("fill str", () => fill(5, "ab"));
t("fill str range", () => fill(6, "x", 1, 3));
t("fill str enc offset", () => fill(4, "6162", "hex"));
t("fill str offset enc", () => fill(4, "6162", 1, "hex"));
t("fill str offset end enc", () => fill(6, "6162", 1, 4, "hex"));
t("fill latin1 char", () => fill(3, "é", "latin1"));
t("fill utf8 char", () => fill(5, "é"));
t("fill euro partial", () => fill(4, "€"));
t("fill ucs2", () => fill(5, "ab", "ucs2"));
t("fill base64", () => fill(5, "YWJj", "base64"));
t("fill empty str", () => fill(3, ""));
t("fill buffer", () => fill(5, Buffer.from([1, 2])));
t("fill u16", () => fill(5, new Uint16Array([0x0102])));
t("fill empty buffer", () => fill(3, Buffer.alloc(0)));
t("fill bad hex", () => fill(3, "zz", "hex"));
t("fill bool", () => fill(2, true));
t("fill obj", () => fill(2, { valueOf() { return 258; } }));
t("fill null", () => fill(2, null));
t("fill end past", () => fill(3, "a", 0, 5));
t("fill offset neg", () => fill(3, "a", -1));
t("fill offset 1.5", () => fill(3, "a", 1.5));
t("fill offset past end", () => fill(3, "a", 5));
t("fill offset >= end", () => fill(3, "a", 2, 1));
t("fill bad enc", () => fill(3, "a", "bogus"));
t("fill enc number", () => fill(3, "a", 0, 2, 5));
t("fill enc ''", () => fill(3, "a", ""));
t("fill offset null", () => fill(3, "a", null));
t("fill overlapping self", () => { const b = Buffer.from("abcdef"); b.fill(b.subarray(0, 2), 2); return b.toString(); });
t("fill large pattern", () => { const b = Buffer.alloc(1000); b.fill("abc"); return [b.toString().slice(-5), b.indexOf("cab", 900), b.lastIndexOf("abc")]; });
