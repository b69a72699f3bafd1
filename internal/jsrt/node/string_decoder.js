// node:string_decoder: StringDecoder, which turns chunks of bytes into
// text without breaking a character split between two chunks: a UTF-8
// sequence, a UTF-16 code unit or surrogate pair, a base64 group of three
// bytes waits for the rest of it. end() writes out what is left, an
// incomplete character as U+FFFD. It keeps the bytes it holds back as
// Node's native decoder does, so both split the same input alike.
"use strict";

const errors = require("internal/errors");
const { Buffer } = require("buffer");

const names = {
  "utf8": "utf8", "utf-8": "utf8", "ucs2": "utf16le", "ucs-2": "utf16le", "utf16le": "utf16le", "utf-16le": "utf16le",
  "latin1": "latin1", "binary": "latin1", "base64": "base64", "base64url": "base64url", "hex": "hex", "ascii": "ascii",
};

function normalize(enc) {
  if (enc === undefined || enc === null || enc === "") return "utf8";
  const n = names[String(enc).toLowerCase()];
  if (n === undefined || typeof enc !== "string") throw errors.codedTypeError("ERR_UNKNOWN_ENCODING", "Unknown encoding: " + errors.formatS(enc));
  return n;
}

const kState = Symbol("state");

class StringDecoder {
  constructor(encoding) {
    this.encoding = normalize(encoding);
    // char: the bytes of an incomplete character held back; buffered of
    // them, missing more to come
    Object.defineProperty(this, kState, { value: { char: Buffer.alloc(4), buffered: 0, missing: 0 } });
  }

  write(buf) {
    if (typeof buf === "string") return buf;
    if (!ArrayBuffer.isView(buf)) {
      throw errors.codedTypeError("ERR_INVALID_ARG_TYPE", 'The "buf" argument must be an instance of Buffer, TypedArray, or DataView.' + errors.received(buf));
    }
    const data = buf instanceof Buffer ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
    const st = this[kState];
    const enc = this.encoding;
    let start = 0, end = data.length;
    let prepend = "";
    if (st.missing > 0) {
      if (enc === "utf8") {
        // a byte that does not continue the character starts the next:
        // the incomplete one is decoded as it is (U+FFFD)
        for (let i = 0; i < end && i < st.missing; i++) {
          if ((data[i] & 0xc0) !== 0x80) {
            st.missing = 0;
            data.copy(st.char, st.buffered, 0, i);
            st.buffered += i;
            start = i;
            break;
          }
        }
      }
      const found = Math.min(end - start, st.missing);
      data.copy(st.char, st.buffered, start, start + found);
      start += found;
      st.missing -= found;
      st.buffered += found;
      if (st.missing === 0) {
        prepend = st.char.toString(enc, 0, st.buffered);
        st.buffered = 0;
      }
    }
    if (start === end) return prepend;
    // what the end of this chunk holds back
    if (enc === "utf8") {
      for (let i = end - 1; ; i--) {
        st.buffered++;
        if ((data[i] & 0xc0) === 0x80) {
          if (st.buffered >= 4 || i === start) {
            st.buffered = 0;
            break;
          }
          continue;
        }
        if ((data[i] & 0xe0) === 0xc0) st.missing = 2;
        else if ((data[i] & 0xf0) === 0xe0) st.missing = 3;
        else if ((data[i] & 0xf8) === 0xf0) st.missing = 4;
        else {
          st.buffered = 0;
          break;
        }
        if (st.buffered >= st.missing) {
          st.missing = 0;
          st.buffered = 0;
        }
        st.missing -= st.buffered;
        break;
      }
    } else if (enc === "utf16le") {
      if ((end - start) % 2 === 1) {
        st.buffered = 1;
        st.missing = 1;
      } else if ((data[end - 1] & 0xfc) === 0xd8) {
        st.buffered = 2;
        st.missing = 2;
      }
    } else if (enc === "base64" || enc === "base64url") {
      st.buffered = (end - start) % 3;
      if (st.buffered > 0) st.missing = 3 - st.buffered;
    }
    if (st.buffered > 0) {
      end -= st.buffered;
      data.copy(st.char, 0, end, end + st.buffered);
    }
    return prepend + data.toString(enc, start, end);
  }

  end(buf) {
    let out = "";
    if (buf !== undefined) out = this.write(buf);
    const st = this[kState];
    if (this.encoding === "utf16le" && st.buffered % 2 === 1) {
      // a lone last byte is dropped, as Node drops it
      st.buffered--;
      st.missing--;
    }
    if (st.buffered > 0) out += st.char.toString(this.encoding, 0, st.buffered);
    st.buffered = 0;
    st.missing = 0;
    return out;
  }

  // text decodes buf from offset, forgetting what was held back.
  text(buf, offset) {
    const st = this[kState];
    st.buffered = 0;
    st.missing = 0;
    return this.write(buf.slice(offset));
  }

  get lastChar() { return this[kState].char; }
  get lastNeed() { return this[kState].missing; }
  get lastTotal() { return this[kState].buffered + this[kState].missing; }
}

module.exports = { StringDecoder };
