// AES ciphers: CBC, CTR, ECB and GCM with every key size; update's output
// as OpenSSL gives it (whole blocks, the last held back when decrypting
// with padding), chunked at every point; padding, GCM's AAD and tags,
// output encodings split between calls; and the errors.
const crypto = require("crypto");
const hex = (b) => (Buffer.isBuffer(b) ? b.toString("hex") : JSON.stringify(b));
const t = (label, fn) => {
  try { const v = fn(); console.log(label, Array.isArray(v) ? v.map(hex).join(" ") : hex(v)); } catch (e) { console.log(label, "threw", e.name, e.code, e.message, e.library || "", e.reason || ""); }
};
const key = (n) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7 + 3) & 255));
const iv16 = Buffer.from("000102030405060708090a0b0c0d0e0f", "hex");
const msg = Buffer.from("The quick brown fox jumps over the lazy dog, twice over and once more.");

for (const bits of [128, 192, 256]) {
  for (const mode of ["cbc", "ctr", "ecb", "gcm"]) {
    const name = "aes-" + bits + "-" + mode;
    const k = key(bits / 8);
    const iv = mode === "ecb" ? null : mode === "gcm" ? iv16.subarray(0, 12) : iv16;
    for (const len of [0, 1, 15, 16, 17, 32, 70]) {
      t(name + " len " + len, () => {
        const c = crypto.createCipheriv(name, k, iv);
        const out = [c.update(msg.subarray(0, len)), c.final()];
        if (mode === "gcm") out.push(c.getAuthTag());
        const enc = Buffer.concat(out.slice(0, 2));
        const d = crypto.createDecipheriv(name, k, iv);
        if (mode === "gcm") d.setAuthTag(out[2]);
        const dec = Buffer.concat([d.update(enc), d.final()]);
        return [...out, dec.equals(msg.subarray(0, len))];
      });
    }
    // chunks: every split point of the message, encrypting and decrypting
    const c0 = crypto.createCipheriv(name, k, iv);
    const whole = Buffer.concat([c0.update(msg.subarray(0, 40)), c0.final()]);
    const tag = mode === "gcm" ? c0.getAuthTag() : null;
    const splits = [];
    for (let cut = 0; cut <= 40; cut += 3) {
      const c = crypto.createCipheriv(name, k, iv);
      const a = c.update(msg.subarray(0, cut)), b = c.update(msg.subarray(cut, 40)), f = c.final();
      const d = crypto.createDecipheriv(name, k, iv);
      if (tag) d.setAuthTag(tag);
      const da = d.update(whole.subarray(0, cut)), db = d.update(whole.subarray(cut)), df = d.final();
      splits.push([a.length, b.length, f.length, Buffer.concat([a, b, f]).equals(whole), da.length, db.length, df.length, Buffer.concat([da, db, df]).equals(msg.subarray(0, 40))].join(":"));
    }
    console.log(name, "splits", splits.join(" "));
  }
}

const k16 = key(16);
t("strings", () => { const c = crypto.createCipheriv("aes-128-cbc", "k".repeat(16), "i".repeat(16)); return [c.update("héllo wörld, a string", "utf8", "hex"), c.final("hex")]; });
t("base64 out split", () => { const c = crypto.createCipheriv("aes-128-ctr", k16, iv16); return [c.update("hello", "utf8", "base64"), c.update("!", "latin1", "base64"), c.final("base64")]; });
t("hex in", () => { const d = crypto.createDecipheriv("aes-128-ctr", k16, iv16); return [d.update("00ff10", "hex", "latin1"), d.final("latin1")]; });
try {
  const d = crypto.createDecipheriv("aes-128-ctr", k16, iv16);
  d.update("00", "hex", "latin1");
  d.final("utf8");
} catch (e) { console.log("change encoding", e.name, e.code, e.message.split("\n")[0]); }
t("utf8 out split", () => {
  const c = crypto.createCipheriv("aes-128-ctr", k16, iv16);
  const e = Buffer.concat([c.update("€uro"), c.final()]);
  const d = crypto.createDecipheriv("aes-128-ctr", k16, iv16);
  return [d.update(e.subarray(0, 1), undefined, "utf8"), d.update(e.subarray(1, 2), undefined, "utf8"), d.update(e.subarray(2), undefined, "utf8"), d.final("utf8")];
});
t("bad out encoding", () => crypto.createCipheriv("aes-128-ctr", k16, iv16).update("x", "utf8", "nope"));
t("ctr counter wraps", () => crypto.createCipheriv("aes-128-ctr", k16, Buffer.alloc(16, 0xff)).update(Buffer.alloc(48)));
t("ctr counter carries", () => crypto.createCipheriv("aes-128-ctr", k16, Buffer.from("000000000000000000000000ffffffff", "hex")).update(Buffer.alloc(48)));
t("aliases", () => ["aes128", "AES-128-CBC", "aes192", "aes256", "id-aes128-GCM"].map((n) => { const c = crypto.createCipheriv(n, key(n.includes("192") ? 24 : n.includes("256") ? 32 : 16), n.includes("GCM") ? iv16.subarray(0, 12) : iv16); return c.update(Buffer.alloc(16)).toString("hex"); }));
t("key as keyobject", () => crypto.createCipheriv("aes-128-cbc", crypto.createSecretKey(k16), iv16).final());
t("key as arraybuffer", () => crypto.createCipheriv("aes-128-cbc", new Uint8Array(k16).buffer, new DataView(new Uint8Array(iv16).buffer)).final());

// padding
t("no padding aligned", () => { const c = crypto.createCipheriv("aes-128-cbc", k16, iv16); c.setAutoPadding(false); return [c.update(Buffer.alloc(32)), c.final()]; });
t("no padding partial", () => { const c = crypto.createCipheriv("aes-128-cbc", k16, iv16); c.setAutoPadding(false); c.update("abc"); return c.final(); });
t("no padding decrypt", () => { const d = crypto.createDecipheriv("aes-128-cbc", k16, iv16); d.setAutoPadding(false); return [d.update(Buffer.alloc(32)), d.final()]; });
t("no padding decrypt partial", () => { const d = crypto.createDecipheriv("aes-128-cbc", k16, iv16); d.setAutoPadding(false); d.update(Buffer.alloc(17)); return d.final(); });
t("setAutoPadding returns", () => { const c = crypto.createCipheriv("aes-128-cbc", k16, iv16); return c.setAutoPadding() === c; });
t("setAutoPadding after final", () => { const c = crypto.createCipheriv("aes-128-cbc", k16, iv16); c.final(); return c.setAutoPadding(false); });
t("bad decrypt", () => { const d = crypto.createDecipheriv("aes-128-cbc", k16, iv16); d.update(Buffer.alloc(16)); return d.final(); });
t("bad decrypt wrong key", () => {
  const c = crypto.createCipheriv("aes-256-cbc", key(32), iv16);
  const e = Buffer.concat([c.update("secret token"), c.final()]);
  const d = crypto.createDecipheriv("aes-256-cbc", Buffer.alloc(32), iv16);
  d.update(e);
  return d.final();
});
t("decrypt empty", () => crypto.createDecipheriv("aes-128-cbc", k16, iv16).final());
t("decrypt partial", () => { const d = crypto.createDecipheriv("aes-128-cbc", k16, iv16); d.update(Buffer.alloc(15)); return d.final(); });
t("decrypt ecb held block", () => { const d = crypto.createDecipheriv("aes-128-ecb", k16, null); return [d.update(Buffer.alloc(16)), d.update(Buffer.alloc(0)), d.update(Buffer.alloc(16))]; });
t("final twice", () => { const c = crypto.createCipheriv("aes-128-cbc", k16, iv16); c.final(); return c.final(); });
t("final after failure", () => { const d = crypto.createDecipheriv("aes-128-cbc", k16, iv16); try { d.final(); } catch (e) { /* failed */ } return d.final(); });
t("update after final", () => { const c = crypto.createCipheriv("aes-128-cbc", k16, iv16); c.final(); return c.update("x"); });
t("update bad data", () => crypto.createCipheriv("aes-128-cbc", k16, iv16).update(5));
t("update odd hex", () => crypto.createCipheriv("aes-128-cbc", k16, iv16).update("abc", "hex"));

// GCM
const iv12 = iv16.subarray(0, 12);
t("gcm aad", () => { const c = crypto.createCipheriv("aes-128-gcm", k16, iv12); c.setAAD(Buffer.from("header")); c.setAAD(Buffer.from("-more")); return [c.update("secret"), c.final(), c.getAuthTag()]; });
t("gcm aad only", () => { const c = crypto.createCipheriv("aes-256-gcm", key(32), iv12); c.setAAD(Buffer.alloc(33, 1)); c.final(); return c.getAuthTag(); });
t("gcm aad string", () => { const c = crypto.createCipheriv("aes-128-gcm", k16, iv12); c.setAAD("aabb", { encoding: "hex" }); c.final(); return c.getAuthTag(); });
for (const n of [1, 7, 8, 16, 20, 64]) {
  t("gcm iv " + n, () => { const c = crypto.createCipheriv("aes-192-gcm", key(24), Buffer.alloc(n, n)); return [c.update(msg.subarray(0, 20)), c.final(), c.getAuthTag()]; });
}
for (const n of [4, 8, 12, 13, 14, 15, 16]) {
  t("gcm tag length " + n, () => {
    const c = crypto.createCipheriv("aes-128-gcm", k16, iv12, { authTagLength: n });
    const e = Buffer.concat([c.update("data"), c.final()]);
    const tag = c.getAuthTag();
    const d = crypto.createDecipheriv("aes-128-gcm", k16, iv12, { authTagLength: n });
    d.setAuthTag(tag);
    return [tag, Buffer.concat([d.update(e), d.final()]).toString()];
  });
}
t("gcm bad tag length option", () => crypto.createCipheriv("aes-128-gcm", k16, iv12, { authTagLength: 7 }));
t("gcm short tag", () => { const d = crypto.createDecipheriv("aes-128-gcm", k16, iv12); return d.setAuthTag(Buffer.alloc(3)); });
t("gcm tag not the option", () => { const d = crypto.createDecipheriv("aes-128-gcm", k16, iv12, { authTagLength: 8 }); return d.setAuthTag(Buffer.alloc(16)); });
t("gcm tag twice", () => { const d = crypto.createDecipheriv("aes-128-gcm", k16, iv12); d.setAuthTag(Buffer.alloc(16)); return d.setAuthTag(Buffer.alloc(16)); });
t("gcm setAuthTag returns", () => { const d = crypto.createDecipheriv("aes-128-gcm", k16, iv12); return d.setAuthTag(Buffer.alloc(16)) === d; });
t("gcm no tag", () => { const d = crypto.createDecipheriv("aes-128-gcm", k16, iv12); d.update(Buffer.from("abcd")); return d.final(); });
t("gcm wrong tag", () => { const d = crypto.createDecipheriv("aes-128-gcm", k16, iv12); d.setAuthTag(Buffer.alloc(16)); d.update(Buffer.from("abcd")); return d.final(); });
t("gcm tampered", () => {
  const c = crypto.createCipheriv("aes-128-gcm", k16, iv12);
  const e = Buffer.concat([c.update("authentic"), c.final()]);
  const tag = c.getAuthTag();
  e[0] ^= 1;
  const d = crypto.createDecipheriv("aes-128-gcm", k16, iv12);
  d.setAuthTag(tag);
  const plain = d.update(e);
  return [plain, (() => { try { return d.final(); } catch (err) { return err.message; } })()];
});
t("gcm truncated tag accepted", () => {
  const c = crypto.createCipheriv("aes-128-gcm", k16, iv12);
  const e = Buffer.concat([c.update("x"), c.final()]);
  const d = crypto.createDecipheriv("aes-128-gcm", k16, iv12);
  d.setAuthTag(c.getAuthTag().subarray(0, 12));
  return [d.update(e), d.final()];
});
t("getAuthTag before final", () => crypto.createCipheriv("aes-128-gcm", k16, iv12).getAuthTag());
t("getAuthTag twice", () => { const c = crypto.createCipheriv("aes-128-gcm", k16, iv12); c.final(); return [c.getAuthTag(), c.getAuthTag()]; });
t("getAuthTag on decipher", () => typeof crypto.createDecipheriv("aes-128-gcm", k16, iv12).getAuthTag);
t("setAuthTag on cipher", () => typeof crypto.createCipheriv("aes-128-gcm", k16, iv12).setAuthTag);
t("getAuthTag cbc", () => { const c = crypto.createCipheriv("aes-128-cbc", k16, iv16); c.final(); return c.getAuthTag(); });
t("setAAD cbc", () => crypto.createCipheriv("aes-128-cbc", k16, iv16).setAAD(Buffer.from("x")));
t("setAAD after update", () => { const c = crypto.createCipheriv("aes-128-gcm", k16, iv12); c.update("x"); return c.setAAD(Buffer.from("x")); });
t("setAAD returns", () => { const c = crypto.createCipheriv("aes-128-gcm", k16, iv12); return c.setAAD(Buffer.from("x")) === c; });
t("setAuthTag cbc", () => crypto.createDecipheriv("aes-128-cbc", k16, iv16).setAuthTag(Buffer.alloc(16)));

// construction errors
t("unknown cipher", () => crypto.createCipheriv("nope", k16, iv16));
t("unknown mode", () => crypto.createCipheriv("aes-128-foo", k16, iv16));
t("no cipher", () => crypto.createCipheriv(undefined, k16, iv16));
t("bad key length", () => crypto.createCipheriv("aes-128-cbc", Buffer.alloc(15), iv16));
t("bad key length 256", () => crypto.createDecipheriv("aes-256-gcm", Buffer.alloc(16), iv12));
t("bad key type", () => crypto.createCipheriv("aes-128-cbc", 5, iv16));
t("bad iv length", () => crypto.createCipheriv("aes-128-cbc", k16, Buffer.alloc(15)));
t("no iv", () => crypto.createCipheriv("aes-128-cbc", k16));
t("null iv cbc", () => crypto.createCipheriv("aes-128-cbc", k16, null));
t("null iv ecb", () => crypto.createCipheriv("aes-128-ecb", k16, null).update(Buffer.alloc(16)));
t("empty iv ecb", () => crypto.createCipheriv("aes-128-ecb", k16, Buffer.alloc(0)).update(Buffer.alloc(16)));
t("iv ecb", () => crypto.createCipheriv("aes-128-ecb", k16, iv16));
t("empty iv gcm", () => crypto.createCipheriv("aes-128-gcm", k16, Buffer.alloc(0)));
t("bad iv type", () => crypto.createCipheriv("aes-128-cbc", k16, 5));
t("classes", () => [crypto.createCipheriv("aes-128-ctr", k16, iv16) instanceof crypto.Cipheriv, crypto.createDecipheriv("aes-128-ctr", k16, iv16) instanceof crypto.Decipheriv, typeof crypto.createCipher]);
t("getCiphers", () => ["aes-128-cbc", "aes-256-gcm", "aes-192-ctr", "aes-128-ecb", "aes256"].every((c) => crypto.getCiphers().includes(c)));
