// The columns a string takes in a terminal, as Node counts them to lay
// out inspect's arrays and console.table: two for East Asian wide
// characters and most emoji, none for controls and combining marks.
"use strict";

const fullWidth = (c) => c >= 0x1100 && (c <= 0x115f || c === 0x2329 || c === 0x232a || (c >= 0x2e80 && c <= 0x3247 && c !== 0x303f) ||
  (c >= 0x3250 && c <= 0x4dbf) || (c >= 0x4e00 && c <= 0xa4c6) || (c >= 0xa960 && c <= 0xa97c) || (c >= 0xac00 && c <= 0xd7a3) ||
  (c >= 0xf900 && c <= 0xfaff) || (c >= 0xfe10 && c <= 0xfe19) || (c >= 0xfe30 && c <= 0xfe6b) || (c >= 0xff01 && c <= 0xff60) ||
  (c >= 0xffe0 && c <= 0xffe6) || (c >= 0x1b000 && c <= 0x1b001) || (c >= 0x1f200 && c <= 0x1f251) || (c >= 0x1f300 && c <= 0x1f64f) ||
  (c >= 0x20000 && c <= 0x3fffd));
const zeroWidth = (c) => c <= 0x1f || (c >= 0x7f && c <= 0x9f) || (c >= 0x300 && c <= 0x36f) || (c >= 0x200b && c <= 0x200f) ||
  (c >= 0x20d0 && c <= 0x20ff) || (c >= 0xfe00 && c <= 0xfe0f) || (c >= 0xfe20 && c <= 0xfe2f) || (c >= 0xe0100 && c <= 0xe01ef);
function width(s) {
  let plain = true;
  for (let i = 0; i < s.length && plain; i++) plain = s.charCodeAt(i) < 0x300;
  if (plain) return s.length;
  if (typeof s.normalize === "function") s = s.normalize("NFC");
  let w = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.codePointAt(i);
    if (c > 0xffff) i++;
    if (fullWidth(c)) w += 2;
    else if (!zeroWidth(c)) w++;
  }
  return w;
}

module.exports = { width };
