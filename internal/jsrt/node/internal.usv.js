// toUSVString converts to a string with lone surrogates replaced by
// U+FFFD, as WebIDL's USVString does (String.prototype.toWellFormed,
// which goja lacks): URLSearchParams' and util.toUSVString's.
"use strict";

function toUSVString(v) {
  const s = String(v);
  let out = "";
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdfff) continue;
    if (c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        i++;
        continue;
      }
    }
    out += s.slice(last, i) + "\ufffd";
    last = i + 1;
  }
  return last === 0 ? s : out + s.slice(last);
}

module.exports = { toUSVString };
