// fs reads and writes in every encoding, through Buffer.
const fs = require("fs");
const text = "héllo wörld €";
for (const enc of ["utf8", "hex", "base64", "base64url", "latin1", "ucs2", "ascii"]) {
  const encoded = Buffer.from(text).toString(enc);
  fs.writeFileSync("f-" + enc, encoded, enc);
  console.log(enc, fs.readFileSync("f-" + enc, "hex"), fs.readFileSync("f-" + enc, enc) === encoded, fs.readFileSync("f-" + enc).toString(enc) === encoded);
  console.log(enc, "promise", await fs.promises.readFile("f-" + enc, { encoding: enc }) === encoded);
}
fs.writeFileSync("bin", Buffer.from([0, 255, 128, 10]));
const b = fs.readFileSync("bin");
console.log(b instanceof Buffer, b.length, b.toString("hex"), JSON.stringify(b));
fs.appendFileSync("bin", new Uint16Array([0x4142]));
console.log(fs.readFileSync("bin").toString("hex"));
const fd = fs.openSync("bin", "r");
const into = Buffer.alloc(4, ".");
console.log(fs.readSync(fd, into, 1, 2, 1), into.toString("hex"));
fs.closeSync(fd);
console.log(JSON.stringify(fs.readdirSync(".", "buffer").map((n) => Buffer.isBuffer(n) && n.toString()).sort()));
