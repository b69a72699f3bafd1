// TextDecoder (util.TextDecoder is the global) on well- and ill-formed
// UTF-8, random bytes included: the replacements are Node's.
const { TextDecoder, TextEncoder } = require("util");
const d = new TextDecoder();
const show = (bytes) => console.log(JSON.stringify(Array.from(bytes)), JSON.stringify(d.decode(new Uint8Array(bytes))));
for (const b of [[], [0x61], [0xe2, 0x82, 0xac], [0xe2, 0x82], [0xc3, 0xc3], [0xff, 0x41], [0xed, 0xa0, 0x80], [0xf0, 0x9f, 0x98], [0xf4, 0x90, 0x80, 0x80],
  [0xe0, 0x80, 0x80], [0xef, 0xbb, 0xbf, 0x61], [0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf], [0xc0, 0x80], [0x80], [0xf8, 0x88, 0x80, 0x80, 0x80]]) show(b);
let seed = 31;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const interesting = [0x00, 0x41, 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xff, 0x9f, 0xa0, 0x8f, 0x90];
for (let i = 0; i < 120; i++) show(Array.from({ length: Math.floor(rnd() * 7) }, () => interesting[Math.floor(rnd() * interesting.length)]));
console.log(JSON.stringify(new TextDecoder("utf-8", { ignoreBOM: true }).decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x61]))));
const fatal = new TextDecoder("utf8", { fatal: true });
console.log(fatal.fatal, fatal.ignoreBOM, d.fatal, fatal.encoding, fatal.decode(new Uint8Array([0x61, 0x62])));
try { fatal.decode(new Uint8Array([0xc3])); } catch (e) { console.log(e.name, e.code, e.message); }
console.log(d.decode(new TextEncoder().encode("round é 😀 trip")), d.decode(new Uint8Array([0x61, 0x62, 0x63]).subarray(1)), d.decode(new Uint8Array([0x68, 0x69]).buffer), d.decode());
console.log(JSON.stringify(Array.from(new TextEncoder().encode("a\ud800b"))), new TextEncoder().encoding, new TextDecoder(" UTF-8 ").encoding);
