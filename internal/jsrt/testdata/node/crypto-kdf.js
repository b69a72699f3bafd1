// Key derivation: pbkdf2, scrypt and hkdf, sync and with callbacks, and
// their errors.
const crypto = require("crypto");
const t = (label, fn) => {
  try {
    const v = fn();
    console.log(label, Buffer.isBuffer(v) ? "Buffer<" + v.toString("hex") + ">" : v instanceof ArrayBuffer ? "ArrayBuffer<" + Buffer.from(v).toString("hex") + ">" : JSON.stringify(v));
  } catch (e) { console.log(label, "threw", e.name, e.code, e.message); }
};
const cb = (fn) => new Promise((resolve) => fn((err, v) => resolve([err, v])));

for (const digest of ["sha1", "sha256", "sha512", "md5", "sha3-256", "SHA256", "blake2b512"]) {
  t("pbkdf2 " + digest, () => crypto.pbkdf2Sync("password", "salt", 1000, 40, digest));
}
t("pbkdf2 one iteration", () => crypto.pbkdf2Sync("password", "salt", 1, 20, "sha1"));
t("pbkdf2 keylen 0", () => crypto.pbkdf2Sync("p", "s", 1, 0, "sha1"));
t("pbkdf2 long key", () => crypto.pbkdf2Sync("p", "s", 2, 100, "sha256"));
t("pbkdf2 inputs", () => crypto.pbkdf2Sync(Buffer.from("p"), new Uint8Array([115]), 2, 8, "sha1").equals(crypto.pbkdf2Sync(new ArrayBuffer(0), new DataView(new ArrayBuffer(1)), 2, 8, "sha1")));
t("pbkdf2 iterations 0", () => crypto.pbkdf2Sync("p", "s", 0, 10, "sha1"));
t("pbkdf2 iterations 1.5", () => crypto.pbkdf2Sync("p", "s", 1.5, 10, "sha1"));
t("pbkdf2 iterations str", () => crypto.pbkdf2Sync("p", "s", "1", 10, "sha1"));
t("pbkdf2 keylen -1", () => crypto.pbkdf2Sync("p", "s", 1, -1, "sha1"));
t("pbkdf2 keylen big", () => crypto.pbkdf2Sync("p", "s", 1, 2 ** 31, "sha1"));
t("pbkdf2 no digest", () => crypto.pbkdf2Sync("p", "s", 1, 10));
t("pbkdf2 bad digest", () => crypto.pbkdf2Sync("p", "s", 1, 10, "nope"));
t("pbkdf2 bad password", () => crypto.pbkdf2Sync(5, "s", 1, 10, "sha1"));
t("pbkdf2 bad salt", () => crypto.pbkdf2Sync("p", null, 1, 10, "sha1"));
t("pbkdf2 no callback", () => crypto.pbkdf2("p", "s", 1, 10, "sha1"));
t("pbkdf2 bad args first", () => crypto.pbkdf2("p", "s", 0, 10, "sha1"));
{
  const [err, key] = await cb((done) => crypto.pbkdf2("password", "salt", 1000, 32, "sha256", done));
  console.log("pbkdf2 callback", err, key.toString("hex"));
  t("pbkdf2 callback no digest", () => crypto.pbkdf2("password", "salt", 1, 32, () => {}));
}

t("scrypt", () => crypto.scryptSync("password", "salt", 32, { N: 1024 }));
t("scrypt small", () => crypto.scryptSync("p", "s", 16, { N: 16, r: 1, p: 1 }));
t("scrypt aliases", () => crypto.scryptSync("p", "s", 16, { cost: 16, blockSize: 2, parallelization: 3 }));
t("scrypt zeros are defaults", () => crypto.scryptSync("p", "s", 8, { N: 16, r: 0, p: 0, maxmem: 0 }));
t("scrypt keylen 0", () => crypto.scryptSync("p", "s", 0));
t("scrypt N too big", () => crypto.scryptSync("p", "s", 16, { N: 2 ** 20 }));
t("scrypt N not power", () => crypto.scryptSync("p", "s", 16, { N: 3 }));
t("scrypt N 1", () => crypto.scryptSync("p", "s", 16, { N: 1 }));
t("scrypt maxmem", () => crypto.scryptSync("p", "s", 16, { maxmem: 1000 }));
t("scrypt maxmem big", () => crypto.scryptSync("p", "s", 16, { N: 2 ** 10, r: 2, p: 1, maxmem: 256 << 20 }));
t("scrypt N and cost", () => crypto.scryptSync("p", "s", 16, { N: 16, cost: 16 }));
t("scrypt r and blockSize", () => crypto.scryptSync("p", "s", 16, { N: 16, r: 1, blockSize: 1 }));
t("scrypt bad N", () => crypto.scryptSync("p", "s", 16, { N: -1 }));
t("scrypt bad N type", () => crypto.scryptSync("p", "s", 16, { N: "16" }));
t("scrypt bad maxmem", () => crypto.scryptSync("p", "s", 16, { maxmem: -1 }));
t("scrypt unknown option", () => crypto.scryptSync("p", "s", 16, { N: 16, foo: 1 }).length);
t("scrypt keylen -1", () => crypto.scryptSync("p", "s", -1));
t("scrypt bad password", () => crypto.scryptSync({}, "s", 16));
t("scrypt no callback", () => crypto.scrypt("p", "s", 16));
{
  const [err, key] = await cb((done) => crypto.scrypt("password", "salt", 16, { N: 1024 }, done));
  console.log("scrypt callback", err, key.toString("hex"));
  const [err2, key2] = await cb((done) => crypto.scrypt("password", "salt", 16, { N: 16 }, done));
  console.log("scrypt callback small", err2, key2.toString("hex"));
}

t("hkdf", () => crypto.hkdfSync("sha256", "key", "salt", "info", 42));
t("hkdf sha512", () => crypto.hkdfSync("sha512", Buffer.from("key"), new Uint8Array(0), "", 64));
t("hkdf keyobject", () => crypto.hkdfSync("sha1", crypto.createSecretKey(Buffer.from("k")), "s", "i", 10));
t("hkdf length 0", () => crypto.hkdfSync("sha256", "k", "s", "i", 0));
t("hkdf too long", () => crypto.hkdfSync("sha256", "k", "s", "i", 255 * 32 + 1));
t("hkdf max", () => crypto.hkdfSync("sha256", "k", "s", "i", 255 * 32).byteLength);
t("hkdf bad digest", () => crypto.hkdfSync("nope", "k", "s", "i", 10));
t("hkdf bad length", () => crypto.hkdfSync("sha256", "k", "s", "i", -1));
t("hkdf bad ikm", () => crypto.hkdfSync("sha256", 5, "s", "i", 10));
t("hkdf long info", () => crypto.hkdfSync("sha256", "k", "s", "i".repeat(1025), 10));
{
  const [err, key] = await cb((done) => crypto.hkdf("sha256", "key", "salt", "info", 16, done));
  console.log("hkdf callback", err, Buffer.from(key).toString("hex"), key instanceof ArrayBuffer);
}
