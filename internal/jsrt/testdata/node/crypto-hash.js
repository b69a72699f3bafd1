// createHash, createHmac and crypto.hash: every digest, inputs in every
// form and encoding, chaining, copy, XOF lengths, and Node's errors.
const crypto = require("crypto");
const t = (label, fn) => {
  try {
    const v = fn();
    console.log(label, Buffer.isBuffer(v) ? "Buffer<" + v.toString("hex") + ">" : JSON.stringify(v));
  } catch (e) { console.log(label, "threw", e.name, e.code, e.message); }
};
const algs = ["md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha512-224", "sha512-256", "sha3-224", "sha3-256", "sha3-384", "sha3-512",
  "shake128", "shake256", "blake2b512", "blake2s256", "md5-sha1", "SHA256", "RSA-SHA256", "sha256WithRSAEncryption", "RSA-SHA512/256", "ssl3-md5", "id-rsassa-pkcs1-v1_5-with-sha3-256"];
const big = Buffer.alloc(100000, "abcdefghij");
for (const alg of algs) {
  t("hash " + alg, () => [crypto.createHash(alg).digest("hex"), crypto.createHash(alg).update("abc").digest("hex"), crypto.createHash(alg).update(big).digest("base64")]);
  t("hmac " + alg, () => alg.startsWith("shake") ? "n/a" : [crypto.createHmac(alg, "key").update("abc").digest("hex"), crypto.createHmac(alg, big).update(big).digest("base64url")]);
}
t("getHashes", () => ["md5", "sha1", "sha256", "sha512", "sha3-256", "shake256", "RSA-SHA256", "blake2b512"].every((h) => crypto.getHashes().includes(h)));
t("getHashes sorted", () => { const h = crypto.getHashes(); return h.every((x, i) => i === 0 || h[i - 1] < x); });

const h = crypto.createHash("sha256");
t("chain", () => h.update("a").update(Buffer.from("b")).update(new Uint16Array([0x6463])).update(new DataView(new Uint8Array([0x65]).buffer)) === h);
t("chain digest", () => h.digest("hex"));
t("digest twice", () => h.digest());
t("update after digest", () => h.update("x"));
t("copy after digest", () => h.copy());
for (const [data, enc] of [["616263", "hex"], ["YWJj", "base64"], ["YWJj", "base64url"], ["abc", "latin1"], ["é", "latin1"], ["é", "utf8"], ["é", undefined], ["abc", "ucs2"], ["abc", "ascii"], ["ab", "nope"], ["abc", "hex"], ["abc", "HEX"]]) {
  t("update " + JSON.stringify([data, enc]), () => crypto.createHash("sha1").update(data, enc).digest("hex"));
}
for (const bad of [5, null, undefined, {}, [1], new ArrayBuffer(2), true]) t("update bad " + typeof bad, () => crypto.createHash("sha1").update(bad));
for (const enc of [undefined, null, "", "buffer", "hex", "base64", "base64url", "latin1", "binary", "ucs2", "ascii", "utf8", "BASE64", "nope"]) {
  t("digest " + JSON.stringify(enc), () => crypto.createHash("md5").update("abc").digest(enc));
}
{
  const a = crypto.createHash("sha256").update("a");
  const b = a.copy();
  a.update("b");
  const c = b.copy();
  c.update("c");
  t("copy", () => [a.digest("hex"), b.digest("hex"), c.digest("hex")]);
  const x = crypto.createHash("shake256").update("xof");
  t("copy xof", () => [x.copy({ outputLength: 5 }).digest("hex"), x.copy().digest("hex"), x.digest("hex")]);
  const bl = crypto.createHash("blake2b512").update("a");
  t("copy blake2b", () => [bl.copy().update("b").digest("hex"), bl.digest("hex")]);
}
t("shake128 len 10", () => crypto.createHash("shake128", { outputLength: 10 }).update("a").digest("hex"));
t("shake256 len 0", () => crypto.createHash("shake256", { outputLength: 0 }).update("a").digest("hex"));
t("shake256 len 100", () => crypto.createHash("shake256", { outputLength: 100 }).update("a").digest("hex"));
t("sha256 len 32", () => crypto.createHash("sha256", { outputLength: 32 }).update("a").digest("hex"));
t("sha256 len 10", () => crypto.createHash("sha256", { outputLength: 10 }));
t("shake len -1", () => crypto.createHash("shake128", { outputLength: -1 }));
t("shake len 1.5", () => crypto.createHash("shake128", { outputLength: 1.5 }));
t("shake len str", () => crypto.createHash("shake128", { outputLength: "3" }));
t("unknown", () => crypto.createHash("nope"));
t("no algorithm", () => crypto.createHash());
t("algorithm number", () => crypto.createHash(5));
t("Hash class", () => crypto.createHash("md5") instanceof crypto.Hash);

t("hmac unknown", () => crypto.createHmac("nope", "k"));
t("hmac no key", () => crypto.createHmac("sha256"));
t("hmac key number", () => crypto.createHmac("sha256", 5));
t("hmac key null", () => crypto.createHmac("sha256", null));
t("hmac no alg", () => crypto.createHmac(undefined, "k"));
t("hmac keys", () => ["k", Buffer.from("k"), new Uint8Array([107]), new ArrayBuffer(3), new DataView(new ArrayBuffer(2)), crypto.createSecretKey(Buffer.from("k")), ""].map((k) => crypto.createHmac("sha1", k).update("x").digest("hex")));
t("hmac key encoding", () => crypto.createHmac("sha1", "6b", { encoding: "hex" }).update("x").digest("hex"));
t("hmac long key", () => crypto.createHmac("sha256", "k".repeat(200)).update("x").digest("hex"));
{
  const m = crypto.createHmac("sha256", "k");
  t("hmac chain", () => m.update("a").update("b") === m);
  t("hmac digest", () => m.digest("hex"));
  t("hmac digest twice", () => m.digest("hex"));
  t("hmac digest twice buffer", () => m.digest("buffer"));
  t("hmac digest twice none", () => m.digest());
  t("hmac update after", () => m.update("x"));
  t("hmac digest buffer", () => crypto.createHmac("sha256", "k").digest("buffer"));
  t("Hmac class", () => m instanceof crypto.Hmac);
}

for (const [alg, data, enc] of [["sha1", "abc"], ["sha256", Buffer.from("abc")], ["md5", "abc", "base64"], ["sha1", "abc", "buffer"], ["sha1", "abc", "BUFFER"], ["sha512", new Uint32Array([1]), "hex"], ["SHA-256".replace("-", ""), "x", "latin1"]]) {
  t("crypto.hash " + JSON.stringify([alg, enc]), () => crypto.hash(alg, data, enc));
}
t("crypto.hash bad input", () => crypto.hash("sha1", 5));
t("crypto.hash bad alg", () => crypto.hash("nope", "a"));
t("crypto.hash alg number", () => crypto.hash(5, "a"));
t("crypto.hash bad enc", () => crypto.hash("sha1", "a", "nope"));
t("crypto.hash enc number", () => crypto.hash("sha1", "a", 5));
