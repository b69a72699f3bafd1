// zlib's sync forms: every mode round trip, with levels, strategies and
// dictionaries; headers; what each decoder accepts (concatenated gzip
// members, trailing bytes); zlib's errors and Node's option checks;
// crc32 and the constants. Compressed bytes are Go's in Podcode: only
// headers and round trips are compared.
const zlib = require("zlib");
const t = (label, fn) => {
  try {
    const v = fn();
    console.log(label, Buffer.isBuffer(v) ? "Buffer<" + v.toString("hex") + ">" : JSON.stringify(v));
  } catch (e) { console.log(label, "threw", e.name, e.code, e.errno, e.message, Object.keys(e).join()); }
};
const text = "hello hello hello, Podcode! ".repeat(50) + "é€𝄞";
const random = require("crypto").randomBytes(5000);
const inputs = [["empty", ""], ["short", "x"], ["text", text], ["random", random], ["zeros", Buffer.alloc(100000)]];
const pairs = [["deflateSync", "inflateSync"], ["gzipSync", "gunzipSync"], ["deflateRawSync", "inflateRawSync"], ["deflateSync", "unzipSync"], ["gzipSync", "unzipSync"]];
for (const [c, d] of pairs) {
  for (const [name, input] of inputs) {
    for (const opts of [undefined, { level: 0 }, { level: 1 }, { level: 9 }, { strategy: zlib.constants.Z_HUFFMAN_ONLY }, { level: 5, memLevel: 9, windowBits: 15 }]) {
      t(c + "/" + d + " " + name + " " + JSON.stringify(opts), () => {
        const z = zlib[c](input, opts);
        const back = zlib[d](z);
        return [Buffer.from(input).equals(back), z.length < Buffer.from(input).length + 100];
      });
    }
  }
}
// headers: zlib's level bits, gzip's XFL and OS
for (const level of [-1, 0, 1, 2, 5, 6, 7, 9]) {
  t("headers level " + level, () => [zlib.deflateSync("abc", { level }).subarray(0, 2).toString("hex"), zlib.gzipSync("abc", { level }).subarray(0, 10).toString("hex")]);
}
for (const strategy of [0, 1, 2, 3, 4]) {
  t("headers strategy " + strategy, () => [zlib.deflateSync("abc", { strategy }).subarray(0, 2).toString("hex"), zlib.gzipSync("abc", { strategy }).subarray(0, 10).toString("hex"), zlib.gzipSync("abc", { strategy, level: 9 }).subarray(8, 9).toString("hex")]);
}
t("zlib trailer", () => zlib.deflateSync("hello").subarray(-4));
t("gzip trailer", () => zlib.gzipSync("hello").subarray(-8));
t("inputs", () => [zlib.deflateSync(new ArrayBuffer(3)), zlib.deflateSync(new Uint16Array([1, 2])), zlib.deflateSync(new DataView(new ArrayBuffer(2)))].map((b) => zlib.inflateSync(b).toString("hex")));
t("inflate inputs", () => { const d = zlib.deflateSync("abc"); return [zlib.inflateSync(new Uint8Array(d)).toString(), zlib.inflateSync(d.buffer.slice(d.byteOffset, d.byteOffset + d.length)).toString(), zlib.inflateSync(new DataView(d.buffer, d.byteOffset, d.length)).toString()]; });

// what decoders accept
const g = zlib.gzipSync("member");
t("gzip members", () => zlib.gunzipSync(Buffer.concat([g, zlib.gzipSync(" two"), g])).toString());
t("gzip zero padding", () => zlib.gunzipSync(Buffer.concat([g, Buffer.alloc(10)])).toString());
t("gzip zero then junk", () => zlib.gunzipSync(Buffer.concat([g, Buffer.from([0, 1, 2])])).toString());
t("gzip trailing junk", () => zlib.gunzipSync(Buffer.concat([g, Buffer.from("junk")])));
t("gzip trailing magic", () => zlib.gunzipSync(Buffer.concat([g, Buffer.from([0x1f])])));
t("gzip trailing header", () => zlib.gunzipSync(Buffer.concat([g, Buffer.from([0x1f, 0x8b])])));
t("zlib trailing", () => zlib.inflateSync(Buffer.concat([zlib.deflateSync("a"), Buffer.from("xyz")])).toString());
t("raw trailing", () => zlib.inflateRawSync(Buffer.concat([zlib.deflateRawSync("a"), Buffer.from("xyz")])).toString());
t("raw stored", () => zlib.inflateRawSync(Buffer.from([0x01, 0x03, 0x00, 0xfc, 0xff, 0x61, 0x62, 0x63])).toString());
t("raw empty final", () => zlib.inflateRawSync(Buffer.from([0x01, 0x00, 0x00, 0xff, 0xff, 0x41])));
t("gzip header fields", () => {
  // FEXTRA, FNAME, FCOMMENT, FHCRC set, from a header written by hand
  const body = zlib.deflateRawSync("fields");
  const head = Buffer.from([0x1f, 0x8b, 8, 4 | 8 | 16, 0, 0, 0, 0, 0, 3, 2, 0, 0x41, 0x42, 0x6e, 0x61, 0x6d, 0x65, 0, 0x63, 0, ]);
  const tail = Buffer.alloc(8);
  tail.writeUInt32LE(zlib.crc32("fields"), 0);
  tail.writeUInt32LE(6, 4);
  return zlib.gunzipSync(Buffer.concat([head, body, tail])).toString();
});

// zlib's errors
const d = zlib.deflateSync("hello hello");
const errorCases = [
  ["inflate garbage", () => zlib.inflateSync(Buffer.from("garbage!"))],
  ["gunzip garbage", () => zlib.gunzipSync(Buffer.from("garbage!"))],
  ["unzip garbage", () => zlib.unzipSync(Buffer.from("garbage!"))],
  ["raw garbage", () => zlib.inflateRawSync(Buffer.from("garbage!"))],
  ["raw block type", () => zlib.inflateRawSync(Buffer.from([0xff, 0xff]))],
  ["raw stored lengths", () => zlib.inflateRawSync(Buffer.from([0x00, 0x05, 0x00, 0x12, 0x34]))],
  ["inflate empty", () => zlib.inflateSync(Buffer.alloc(0))],
  ["gunzip empty", () => zlib.gunzipSync(Buffer.alloc(0))],
  ["raw empty", () => zlib.inflateRawSync(Buffer.alloc(0))],
  ["unzip empty", () => zlib.unzipSync(Buffer.alloc(0))],
  ["unzip one byte", () => zlib.unzipSync(Buffer.from([0x1f]))],
  ["inflate truncated", () => zlib.inflateSync(d.subarray(0, 5))],
  ["inflate no trailer", () => zlib.inflateSync(d.subarray(0, d.length - 4))],
  ["gunzip truncated", () => zlib.gunzipSync(g.subarray(0, g.length - 4))],
  ["gunzip header only", () => zlib.gunzipSync(g.subarray(0, 10))],
  ["gunzip short header", () => zlib.gunzipSync(Buffer.from([0x1f, 0x8b]))],
  ["gunzip method", () => zlib.gunzipSync(Buffer.from([0x1f, 0x8b, 7, 0, 0, 0, 0, 0, 0, 3]))],
  ["gunzip flags", () => zlib.gunzipSync(Buffer.from([0x1f, 0x8b, 8, 0xe0, 0, 0, 0, 0, 0, 3]))],
  ["zlib check", () => zlib.inflateSync(Buffer.from([0x78, 0x9d]))],
  ["zlib method", () => zlib.inflateSync(Buffer.from([0x79, 0x9c]))],
  ["zlib window", () => zlib.inflateSync(Buffer.from([0x88, 0x98]))],
  ["zlib adler", () => { const x = Buffer.from(d); x[x.length - 1] ^= 1; return zlib.inflateSync(x); }],
  ["gzip crc", () => { const x = Buffer.from(g); x[x.length - 5] ^= 1; return zlib.gunzipSync(x); }],
  ["gzip size", () => { const x = Buffer.from(g); x[x.length - 1] ^= 1; return zlib.gunzipSync(x); }],
];
for (const [label, fn] of errorCases) t(label, fn);
t("sync flush truncated", () => zlib.inflateSync(zlib.deflateSync("hello"), { finishFlush: zlib.constants.Z_SYNC_FLUSH }).toString());
t("sync flush no error", () => Buffer.isBuffer(zlib.inflateSync(d.subarray(0, 5), { finishFlush: zlib.constants.Z_SYNC_FLUSH })));

// dictionaries
const dict = Buffer.from("hello world");
t("dictionary", () => { const z = zlib.deflateSync("hello world hello", { dictionary: dict }); return [z.subarray(0, 6).toString("hex"), zlib.inflateSync(z, { dictionary: dict }).toString()]; });
t("dictionary missing", () => zlib.inflateSync(zlib.deflateSync("hello world hello", { dictionary: dict })));
t("dictionary bad", () => zlib.inflateSync(zlib.deflateSync("hello world hello", { dictionary: dict }), { dictionary: Buffer.from("other") }));
t("dictionary raw", () => zlib.inflateRawSync(zlib.deflateRawSync("hello world hello", { dictionary: dict }), { dictionary: dict }).toString());
t("dictionary arraybuffer", () => zlib.inflateSync(zlib.deflateSync("abcabc", { dictionary: new Uint8Array([97, 98, 99]).buffer }), { dictionary: new Uint16Array([0x6261, 0x63]) .subarray(0, 1) }).length);
t("dictionary string", () => zlib.deflateSync("a", { dictionary: "x" }));

// options
for (const [label, opts] of [["level 10", { level: 10 }], ["level -2", { level: -2 }], ["level str", { level: "1" }], ["level NaN", { level: NaN }], ["level Infinity", { level: Infinity }],
  ["windowBits 7", { windowBits: 7 }], ["windowBits 16", { windowBits: 16 }], ["memLevel 10", { memLevel: 10 }], ["strategy 5", { strategy: 5 }], ["chunkSize 10", { chunkSize: 10 }],
  ["chunkSize Infinity", { chunkSize: Infinity }], ["flush 6", { flush: 6 }], ["finishFlush 6", { finishFlush: 6 }], ["maxOutputLength 0", { maxOutputLength: 0 }],
  ["maxOutputLength 2**33", { maxOutputLength: 2 ** 33 }], ["maxOutputLength str", { maxOutputLength: "1" }], ["opts number", 5], ["opts null", null], ["opts string", "x"]]) {
  t("option " + label, () => zlib.inflateSync(zlib.deflateSync("options", opts)).toString());
}
t("inflate windowBits 0", () => zlib.inflateSync(zlib.deflateSync("a"), { windowBits: 0 }).toString());
t("raw windowBits 0", () => zlib.inflateRawSync(zlib.deflateRawSync("a"), { windowBits: 0 }).toString());
t("maxOutputLength", () => zlib.inflateSync(zlib.deflateSync("a".repeat(100)), { maxOutputLength: 10 }));
t("maxOutputLength exact", () => zlib.inflateSync(zlib.deflateSync("a".repeat(100)), { maxOutputLength: 100 }).length);
t("maxOutputLength gunzip", () => zlib.gunzipSync(zlib.gzipSync("a".repeat(100)), { maxOutputLength: 99 }));
t("maxOutputLength compress", () => zlib.deflateSync(random, { maxOutputLength: 100 }));
t("maxOutputLength with sync flush", () => zlib.inflateSync(zlib.deflateSync("a".repeat(1000)), { finishFlush: 2, maxOutputLength: 10 }));
t("bad input number", () => zlib.deflateSync(5));
t("bad input none", () => zlib.gunzipSync());
t("bad input object", () => zlib.inflateSync({}));
t("bad options before input", () => zlib.deflateSync(5, { level: 99 }));
t("info", () => { const r = zlib.inflateSync(zlib.deflateSync("i"), { info: true }); return [Object.keys(r), r.buffer.toString()]; });

// crc32
for (const [data, value] of [["hello"], ["hello", 5], [Buffer.from("hello")], [""], ["é"], [new Uint16Array([0x6968])], ["world", zlib.crc32("hello ")], [Buffer.alloc(100000, 7)], ["x", 2 ** 32 - 1]]) {
  t("crc32 " + JSON.stringify([typeof data === "string" ? data : "bytes", value]), () => zlib.crc32(data, value));
}
t("crc32 chained", () => zlib.crc32("hello world") === zlib.crc32(" world", zlib.crc32("hello")));
for (const [data, value] of [[5], [null], ["a", -1], ["a", "x"], ["a", 1.5], ["a", 2 ** 32], [new ArrayBuffer(2)]]) {
  t("crc32 bad " + JSON.stringify([data, value]), () => zlib.crc32(data, value));
}

// the module
t("constants", () => zlib.constants);
t("codes", () => [zlib.codes, Object.isFrozen(zlib.codes)]);
t("legacy constants", () => [zlib.Z_NO_FLUSH, zlib.Z_BEST_COMPRESSION, zlib.DEFLATE, zlib.ZLIB_VERNUM, zlib.Z_MAX_CHUNK, Object.keys(zlib).includes("Z_NO_FLUSH")]);
t("exports", () => Object.keys(zlib));
t("brotli", () => typeof zlib.brotliCompressSync);
try { zlib.brotliCompressSync("x"); } catch (e) { console.log("podcode-differs:", e.name, e.code, e.message); }
for (const f of [0, 1, 2, 3, 5]) {
  t("finishFlush inflate " + f, () => zlib.inflateSync(d.subarray(0, 6), { finishFlush: f }).length <= 3);
  t("finishFlush deflateRaw " + f, () => { const z = zlib.deflateRawSync("flushed", { finishFlush: f }); return z.length === 0 ? "empty" : zlib.inflateRawSync(z, { finishFlush: 2 }).toString(); });
}
