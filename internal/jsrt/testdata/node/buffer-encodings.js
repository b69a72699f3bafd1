// Buffer's encodings, both ways: UTF-8 with invalid sequences, UTF-16LE,
// Latin-1, ASCII, lenient base64 and base64url, hex; toString's ranges and
// write's partial characters.
const codes = (s) => Array.from(s, (c) => c.codePointAt(0).toString(16)).join(" ");
const t = (label, fn) => {
  try {
    const v = fn();
    console.log(label, v instanceof Uint8Array ? "<" + v.toString("hex") + ">" : typeof v === "string" ? JSON.stringify(v) + " [" + codes(v) + "]" : JSON.stringify(v));
  } catch (e) { console.log(label, "threw", e.name, e.code, e.message); }
};

// UTF-8: each maximal invalid subsequence is one U+FFFD
const invalid = [
  [0xe2, 0x82, 0x41], [0xff], [0xff, 0xff], [0xf0, 0x9f, 0x98], [0xf0, 0x9f, 0x98, 0x80], [0xc0, 0x80], [0xed, 0xa0, 0x80],
  [0xed, 0x9f, 0xbf], [0xf4, 0x90, 0x80, 0x80], [0xf4, 0x8f, 0xbf, 0xbf], [0xe0, 0x80, 0x80], [0xe0, 0xa0, 0x80], [0x80, 0x41],
  [0xc2], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x41, 0xc3, 0xa9, 0xc3], [0xef, 0xbb, 0xbf, 0x41], [],
];
for (const bytes of invalid) t("utf8 " + bytes.join(","), () => Buffer.from(bytes).toString());
t("utf8 long invalid", () => Buffer.from([0x61, 0xc3, 0x28, 0xa0, 0xa1, 0xe2, 0x28, 0xa1, 0xf0, 0x28, 0x8c, 0xbc]).toString("utf8"));
for (const s of ["abc", "héllo", "€", "𝄞x", "\ud800", "a\udc00b", "\ud83d\ude00", "\ud83d", "\ufeffbom", "\u0000nul"]) {
  t("utf8 enc " + codes(s), () => Buffer.from(s, "utf8"));
  t("ucs2 enc " + codes(s), () => Buffer.from(s, "ucs2"));
  t("latin1 enc " + codes(s), () => Buffer.from(s, "latin1"));
  t("ascii enc " + codes(s), () => Buffer.from(s, "ascii"));
  t("round utf8 " + codes(s), () => Buffer.from(s).toString());
  t("round ucs2 " + codes(s), () => Buffer.from(s, "utf16le").toString("utf16le"));
}
const all = Buffer.alloc(256);
for (let i = 0; i < 256; i++) all[i] = i;
t("latin1 all", () => all.toString("latin1"));
t("ascii all", () => all.toString("ascii"));
t("binary all", () => all.toString("binary") === all.toString("latin1"));
t("ucs2 all", () => all.toString("ucs2"));
t("ucs2 odd", () => Buffer.from([0x61, 0x00, 0x62]).toString("ucs2"));
t("ucs2 lone surrogate", () => Buffer.from([0x00, 0xd8, 0x41, 0x00]).toString("ucs2"));
t("hex all", () => all.toString("hex"));
t("base64 all", () => all.toString("base64"));
t("base64url all", () => all.toString("base64url"));
for (const n of [0, 1, 2, 3, 4, 5]) {
  t("base64 len " + n, () => all.subarray(250, 250 + n).toString("base64"));
  t("base64url len " + n, () => all.subarray(250, 250 + n).toString("base64url"));
}

// base64 decoding is lenient, with either alphabet
for (const s of ["aGVsbG8=", "aGVsbG8", "aGVsbG8==", "  aGVs bG8=\n", "aGVs\tbG8", "aGVsbG8=d29ybGQ=", "a=GVsbG8", "QQ", "Q", "QQ=", "Q=Q=", "QUJD", "QUJDRA", "-_-_", "+/+/", "-_+/", "!!QUJD!!", "QU\u00e9JD", "\u0141\u0141\u0141\u0141", "====", "", "Zm9v\nYmFy\n", "Zm9vYmFy===", "Zg", "Zm8", "Z"]) {
  t("base64 dec " + JSON.stringify(s), () => Buffer.from(s, "base64"));
  t("base64url dec " + JSON.stringify(s), () => Buffer.from(s, "base64url"));
}
for (const s of ["abcd", "ABCD", "abc", "a", "", "abzz12", "zz12", "0g", "\u0161\u0162", "a b", "0102030405060708090a0b0c0d0e0f"]) {
  t("hex dec " + JSON.stringify(s), () => Buffer.from(s, "hex"));
}

// toString(encoding, start, end)
const hw = Buffer.from("hello world");
t("toString()", () => hw.toString());
t("toString utf8 1 3", () => hw.toString("utf8", 1, 3));
t("toString undefined -1 100", () => hw.toString(undefined, -1, 100));
t("toString hex 3", () => hw.toString("hex", 3));
t("toString hex 20", () => hw.toString("hex", 20));
t("toString hex 3 2", () => hw.toString("hex", 3, 2));
t("toString latin1 '2' '4'", () => hw.toString("latin1", "2", "4"));
t("toString ascii NaN NaN", () => hw.toString("ascii", NaN, NaN));
t("toString 1.5 3.9", () => hw.toString("utf8", 1.5, 3.9));
t("toString bogus", () => hw.toString("bogus"));
t("toString ''", () => hw.toString(""));
t("toString null", () => hw.toString(null));
t("toString UTF-8", () => hw.toString("UTF-8"));
t("toString mid char", () => Buffer.from("é€").toString("utf8", 1, 4));
t("toLocaleString", () => hw.toLocaleString("hex"));

// write(string, offset, length, encoding)
const w = (size, ...args) => {
  const b = Buffer.alloc(size);
  const n = b.write(...args);
  return [n, b.toString("hex")];
};
t("write", () => w(5, "a€b"));
t("write partial", () => w(4, "a€€"));
t("write offset", () => w(5, "€€", 1));
t("write 4byte fits", () => w(4, "\ud83d\ude00x"));
t("write 4byte does not fit", () => w(3, "\ud83d\ude00x"));
t("write lone surrogate", () => w(3, "\ud800"));
t("write lone surrogate ucs2", () => w(3, "\ud800", "ucs2"));
t("write hex zz", () => w(2, "zz", "hex"));
t("write hex odd", () => w(4, "abc", "hex"));
t("write hex stops", () => w(4, "abzz", "hex"));
t("write hex cut", () => w(1, "abcd", "hex"));
t("write ucs2 odd room", () => w(5, "abc", "ucs2"));
t("write base64", () => w(5, "QUJD", "base64"));
t("write base64 cut", () => w(2, "QUJD", "base64"));
t("write latin1", () => w(5, "\u0100\u00ff", "latin1"));
t("write ascii", () => w(3, "é€x", "ascii"));
t("write enc as offset", () => w(4, "ab", "hex"));
t("write offset len", () => w(6, "abcdef", 1, 2));
t("write offset len enc", () => w(6, "616263", 1, 2, "hex"));
t("write len enc", () => w(6, "abc", 2, "latin1"));
t("write len past", () => w(4, "abcdef", 1, 10));
t("write offset past", () => w(3, "x", 4));
t("write offset neg", () => w(3, "x", -1));
t("write offset str num", () => w(3, "x", "1", 1));
t("write offset null", () => w(3, "ab", null));
t("write offset 1.5", () => w(3, "ab", 1.5));
t("write bogus", () => w(3, "x", 0, 3, "bogus"));
t("write enc ''", () => w(3, "ab", ""));
t("write not string", () => w(3, 5));
t("write not string offset", () => w(3, {}, 1));
t("write empty", () => w(3, ""));
t("write to empty", () => w(0, "abc"));
t("utf8Write", () => { const b = Buffer.alloc(4); return [b.utf8Write("héllo", 1), b.toString("hex")]; });
t("hexSlice", () => Buffer.from("abc").hexSlice(1));
t("latin1Slice", () => Buffer.from([0xe9, 0x41]).latin1Slice());
for (const e of [{}, [], [1, "a"], { a: 1, "b-c": [2] }, 5n, -0, null, { toString() { return "zz"; } }, new (class Foo {})(), 1.5]) {
  t("toString unknown " + typeof e, () => Buffer.from("a").toString(e));
}
