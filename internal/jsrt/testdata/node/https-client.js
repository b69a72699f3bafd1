const https = require("node:https");
const http = require("node:http");
const S = process.env.TEST_HTTPS_URL, CA = process.env.TEST_HTTPS_CA;
const port = new URL(S).port;

function get(url, opts) {
  return new Promise((resolve) => {
    const req = https.get(url, opts || {}, (res) => {
      let s = "";
      res.setEncoding("utf8");
      res.on("data", (c) => { s += c; });
      res.on("end", () => {
        const e = JSON.parse(s);
        resolve([res.statusCode, res.httpVersion, e.method, e.url, e.proto, e.headers.join("; "), e.host === "127.0.0.1:" + port].join(" | "));
      });
    });
    req.on("error", (e) => resolve("error " + e.code + " " + e.message + " " + JSON.stringify(Object.keys(e).filter((k) => k !== "cert"))));
  });
}

console.log("ca:", await get(S + "/echo", { ca: CA }));
console.log("ca as Buffer in a list:", await get(S + "/echo?b", { ca: [Buffer.from(CA)] }));
console.log("rejectUnauthorized false:", await get(S + "/echo", { rejectUnauthorized: false }));
console.log("agent with ca:", await get(S + "/echo", { agent: new https.Agent({ ca: CA }) }));
console.log("agent false:", await get(S + "/echo", { agent: false, ca: CA }));
console.log("self-signed:", await get(S + "/echo"));
console.log("wrong name:", await get(S.replace("127.0.0.1", "localhost") + "/echo", { ca: CA }));
console.log("servername:", await get(S + "/echo", { ca: CA, servername: "example.com" }));

const post = await new Promise((resolve) => {
  const req = https.request(S + "/echo", { method: "POST", ca: CA, headers: { "content-type": "text/plain" } }, (res) => {
    let s = "";
    res.on("data", (c) => { s += c; });
    res.on("end", () => resolve(JSON.parse(s)));
  });
  req.write("streamed ");
  req.end("body");
});
console.log("post:", post.method, post.body, JSON.stringify(post.transferEncoding), post.headers.join("; "));

for (const f of [() => https.get("http://127.0.0.1/"), () => http.get(S), () => https.request({ protocol: "ftp:" })]) {
  try { f(); console.log("no error"); } catch (e) { console.log("check:", e.code, e.message); }
}
const a = new https.Agent({ keepAlive: true, ca: "x" });
console.log("agent:", a.defaultPort, a.protocol, a.keepAlive, a instanceof http.Agent, https.globalAgent.defaultPort, https.globalAgent.protocol,
  https.globalAgent instanceof https.Agent, a.getName({ host: "h", port: 1, ca: "c" }));
console.log("exports:", Object.keys(https).filter((k) => !["createServer", "Server"].includes(k)).sort().join(","));
if (process.versions.podcode) {
  try { https.createServer(); } catch (e) { console.log("podcode-differs:", e.code, e.message); }
}
