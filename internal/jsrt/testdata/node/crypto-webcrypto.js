// webcrypto (the global crypto): subtle.digest, getRandomValues,
// randomUUID, and what crypto refuses past the memory budget; secret
// KeyObjects.
const crypto = require("crypto");
const show = (v) => (v instanceof ArrayBuffer ? "ArrayBuffer<" + Buffer.from(v).toString("hex") + ">" : JSON.stringify(v));
const at = async (label, fn) => {
  try { console.log(label, show(await fn())); } catch (e) { console.log(label, "threw", e.name, e.code, e.message); }
};
const s = globalThis.crypto.subtle;
for (const alg of ["SHA-1", "SHA-256", "SHA-384", "SHA-512", "sha-256", { name: "SHA-512" }, { name: "sha-1", other: 1 }]) {
  await at("digest " + JSON.stringify(alg), () => s.digest(alg, Buffer.from("abc")));
}
await at("digest views", async () => [show(await s.digest("SHA-1", new Uint16Array([0x6261]))), show(await s.digest("SHA-1", new DataView(new ArrayBuffer(2)))), show(await s.digest("SHA-1", new ArrayBuffer(0)))]);
await at("digest MD5", () => s.digest("MD5", Buffer.from("abc")));
await at("digest number", () => s.digest(5, Buffer.from("a")));
await at("digest string data", () => s.digest("SHA-256", "abc"));
await at("digest one arg", () => s.digest("SHA-256"));
await at("digest no args", () => s.digest());
await at("digest no name", () => s.digest({}, Buffer.from("a")));
await at("digest this", () => s.digest.call({}, "SHA-256", Buffer.from("a")));
await at("digest returns promise", () => s.digest("SHA-256", Buffer.from("a")) instanceof Promise);
await at("subtle", () => [Object.prototype.toString.call(s), Object.keys(s), typeof s.encrypt, s === crypto.webcrypto.subtle, s.constructor.name, crypto.webcrypto.constructor.name]);
await at("getRandomValues", () => globalThis.crypto.getRandomValues(new Uint32Array(3)).length);

await at("secret key", () => { const k = crypto.createSecretKey(Buffer.from("abc")); return [k.type, k.symmetricKeySize, k.export().toString(), k instanceof crypto.KeyObject, k.export({ format: "jwk" })]; });
await at("secret key string", () => crypto.createSecretKey("6162", "hex").export().toString());
await at("secret key equals", () => [crypto.createSecretKey(Buffer.from("a")).equals(crypto.createSecretKey(Buffer.from("a"))), crypto.createSecretKey(Buffer.from("a")).equals(crypto.createSecretKey(Buffer.from("b")))]);
await at("secret key bad", () => crypto.createSecretKey(5));

// past the budget (256 MiB in these tests), Podcode refuses what Node would make
for (const [what, fn] of [
  ["randomBytes", () => crypto.randomBytes(300 * 2 ** 20)],
]) {
  let v;
  try { v = fn(); } catch (e) { console.log("podcode-differs:", what, e.name, e.message); }
  v = undefined;
  console.log(what, "done", v === undefined);
}
console.log("constants", typeof crypto.constants, typeof crypto.getCurves(), crypto.getFips());
