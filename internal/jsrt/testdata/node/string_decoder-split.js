// StringDecoder: characters split across writes in every encoding, at
// every split point, byte by byte, with invalid and incomplete input;
// end(), text(), lastNeed and lastTotal; the errors.
const { StringDecoder } = require("string_decoder");
const j = (v) => JSON.stringify(v);
const inputs = [
  Buffer.from("aé€𝄞b"), Buffer.from("𝄞𝄞"), Buffer.from([0xe2, 0x82]), Buffer.from([0xe2, 0x41]), Buffer.from([0xf0, 0x9f, 0x98]),
  Buffer.from([0xff, 0xfe, 0x80, 0x80, 0x80, 0x80, 0x41]), Buffer.from([0xc3, 0xa9, 0xc3]), Buffer.from([0xed, 0xa0, 0x80, 0x41]),
  Buffer.from([0xf8, 0x88, 0x80]), Buffer.from("a€b", "utf16le"), Buffer.from("𝄞x", "utf16le"), Buffer.from([0x3d, 0xd8, 0x41]),
  Buffer.from("hello world!"), Buffer.from([0, 1, 2, 250, 251, 252, 253]),
];
for (const enc of ["utf8", "utf16le", "base64", "base64url", "hex", "latin1", "ascii"]) {
  for (const input of inputs) {
    const whole = new StringDecoder(enc);
    const out = [j(whole.write(input) + whole.end())];
    for (let cut = 1; cut < input.length; cut++) {
      const d = new StringDecoder(enc);
      out.push(j([d.write(input.subarray(0, cut)), d.lastNeed, d.lastTotal, d.write(input.subarray(cut)), d.end()]));
    }
    const d = new StringDecoder(enc);
    const bytes = [];
    for (const x of input) bytes.push(d.write(Buffer.from([x])));
    bytes.push(d.end());
    out.push(j(bytes));
    console.log(enc, input.toString("hex"), out.join(" "));
  }
}
for (const e of ["ucs2", "UTF-16LE", "ucs-2", "binary", "Base64", "base64url", "HEX", "ascii", "", null, undefined, "latin1", "UTF8", "utf-8"]) {
  console.log("encoding", j(e), new StringDecoder(e).encoding);
}
for (const e of ["nope", 5, "utf16", {}]) {
  try { new StringDecoder(e); } catch (err) { console.log("bad encoding", err.name, err.code, err.message); }
}
const d = new StringDecoder();
console.log(Object.keys(d).join(), d.lastNeed, d.lastTotal, d.lastChar instanceof Buffer, d.lastChar.length);
for (const bad of [5, {}, null, [1, 2]]) {
  try { d.write(bad); } catch (err) { console.log("bad write", err.name, err.code, err.message); }
}
console.log(j([d.write("str"), d.write(Buffer.alloc(0)), d.end(), d.end(Buffer.from("x")), d.end(Buffer.from([0xf0, 0x9f]))]));
console.log(j([d.write(new Uint16Array([0x6968])), d.write(new DataView(new Uint8Array([0xc3, 0xa9]).buffer)), d.write(new Uint8Array([0xe2, 0x82, 0xac]))]));
const t = new StringDecoder("utf8");
console.log(j([t.write(Buffer.from([0xe2])), t.text(Buffer.from("xyz"), 1), t.end()]));
const b = new StringDecoder("base64");
console.log(j([b.write(Buffer.from("ab")), b.lastNeed, b.lastTotal, b.write(Buffer.from("cd")), b.end(), b.end(Buffer.from("x"))]));
const u = new StringDecoder("utf16le");
console.log(j([u.write(Buffer.from([0x3d, 0xd8, 0x00])), u.lastNeed, u.write(Buffer.from([0xde])), u.end(), u.write(Buffer.from([0x41])), u.end()]));
