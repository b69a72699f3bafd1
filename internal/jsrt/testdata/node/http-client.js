const http = require("node:http");
const fs = require("node:fs");
const { pipeline } = require("node:stream");
const U = process.env.TEST_HTTP_URL;
const port = new URL(U).port;
const wait = (ms) => new Promise((r) => setTimeout(r, ms || 0));
const noPort = (s) => String(s).split(port).join("PORT");

// call makes a request and reads its response whole.
function call(path, opts, body, writes) {
  return new Promise((resolve) => {
    const req = http.request(U + path, opts || {}, (res) => {
      const chunks = [];
      res.on("data", (c) => chunks.push(c));
      res.on("end", () => resolve({ res, body: Buffer.concat(chunks) }));
    });
    req.on("error", (e) => resolve({ error: e }));
    for (const w of writes || []) req.write(w);
    req.end(body);
  });
}
const withoutDate = (h) => Object.keys(h).filter((k) => k !== "date").sort().map((k) => k + "=" + JSON.stringify(h[k])).join(" ");
const sawn = (body) => {
  const e = JSON.parse(body);
  return [e.method, e.url, e.host === "127.0.0.1:" + port ? "host ok" : "host " + e.host, e.headers.join("; "), "CL " + e.contentLength,
    "TE " + JSON.stringify(e.transferEncoding), JSON.stringify(e.body)].join(" | ");
};

// what goes on the wire, for each way of sending a body
for (const [name, path, opts, body, writes] of [
  ["GET", "/echo", {}],
  ["POST end(data)", "/echo", { method: "POST" }, "hello"],
  ["POST empty", "/echo", { method: "post" }],
  ["POST streamed", "/echo", { method: "POST" }, undefined, ["a", Buffer.from("b")]],
  ["POST streamed + end(data)", "/echo", { method: "POST" }, "c", ["a"]],
  ["DELETE", "/echo", { method: "DELETE" }],
  ["PUT headers", "/echo", { method: "PUT", headers: { "Content-Type": "text/plain", "X-Custom": ["a", "b"], "content-length": 3 } }, "abc"],
  ["query and own headers", "/echo?q=1&r=%20", { headers: { "user-agent": "mine/1", accept: "*/*", connection: "close" } }],
  ["host header", "/echo", { headers: { host: "example.com" } }],
  ["raw header array", "/echo", { headers: ["Host", "127.0.0.1:" + port, "X-A", "1", "X-A", "2"] }],
  ["agent false", "/echo", { agent: false }],
  ["keepAlive agent", "/echo", { agent: new http.Agent({ keepAlive: true }) }],
  ["Uint8Array body", "/echo", { method: "PATCH" }, new Uint8Array([104, 105])],
]) {
  const { res, body: b, error } = await call(path, opts, body, writes);
  if (error) console.log(name + ": error", error.code, error.message);
  else console.log(name + ":", res.statusCode, sawn(b));
}

// URL objects, options objects, auth
{
  const a = await new Promise((r) => http.get(new URL(U + "/echo?x=1"), { headers: { a: "b" } }, (res) => { let s = ""; res.on("data", (c) => { s += c; }); res.on("end", () => r(s)); }));
  console.log("URL and options:", sawn(a));
  const b = await new Promise((r) => http.get({ hostname: "127.0.0.1", port, path: "/echo", auth: "user:pa ss" }, (res) => { let s = ""; res.on("data", (c) => { s += c; }); res.on("end", () => r(s)); }));
  console.log("options object:", sawn(b));
  const c = await new Promise((r) => http.get(U.replace("http://", "http://us%20er:pw@") + "/echo", (res) => { let s = ""; res.on("data", (c) => { s += c; }); res.on("end", () => r(s)); }));
  console.log("URL credentials:", sawn(c));
}

// the response: status, message, version, headers
{
  const { res, body } = await call("/headers");
  console.log("response:", res.statusCode, res.statusMessage, res.httpVersion, res.httpVersionMajor, res.httpVersionMinor, body.toString(), res.complete);
  console.log("headers:", withoutDate(res.headers));
  console.log("headersDistinct:", withoutDate(res.headersDistinct));
  const pairs = [];
  for (let i = 0; i < res.rawHeaders.length; i += 2) if (res.rawHeaders[i].toLowerCase() !== "date") pairs.push(res.rawHeaders[i].toLowerCase() + ": " + res.rawHeaders[i + 1]);
  console.log("rawHeaders:", pairs.sort().join(", "), res.rawHeaders.length % 2, JSON.stringify(res.trailers), JSON.stringify(res.rawTrailers));
  console.log("message:", res.url === "", res.method, res.aborted, res.req instanceof http.ClientRequest, res instanceof http.IncomingMessage,
    typeof res.socket, res.readableEnded, typeof res.pipe);
}

// redirects are returned, not followed; statuses
{
  const r = await call("/redirect");
  console.log("redirect:", r.res.statusCode, r.res.statusMessage, r.res.headers.location, r.body.toString());
  for (const code of [204, 404, 418, 500, 599]) {
    const s = await call("/status?code=" + code);
    console.log("status:", s.res.statusCode, JSON.stringify(s.res.statusMessage), JSON.stringify(s.body.toString()));
  }
  const head = await call("/headers", { method: "HEAD" });
  console.log("HEAD:", head.res.statusCode, head.body.length, head.res.headers["content-length"], head.res.complete);
}

// a compressed body comes as it was sent
{
  const { res, body } = await call("/gzip");
  console.log("gzip:", res.headers["content-encoding"], body.length, body[0].toString(16), body[1].toString(16));
}

// chunks as they come; setEncoding
{
  const parts = [];
  await new Promise((r) => http.get(U + "/chunked", (res) => {
    res.setEncoding("utf8");
    res.on("data", (c) => parts.push(typeof c));
    res.on("end", r);
  }));
  const { res, body } = await call("/chunked");
  console.log("chunked:", JSON.stringify(body.toString()), res.headers["transfer-encoding"], parts.every((t) => t === "string"));
}

// a large body, read as a stream, piped to a file, and through pipeline
{
  const n = 3 * 1024 * 1024 + 5;
  let got = 0, sum = 0, chunks = 0;
  await new Promise((r) => http.get(U + "/big?cl=1&n=" + n, (res) => {
    res.on("data", (c) => { chunks++; got += c.length; for (let i = 0; i < c.length; i += 4099) sum = (sum + c[i] * (i + 1)) % 1000003; });
    res.on("end", r);
  }));
  console.log("large:", got === n, chunks > 1, sum > 0);
  await new Promise((r) => http.get(U + "/big?n=1000000", (res) => {
    const out = fs.createWriteStream("download.bin");
    res.pipe(out);
    out.on("close", r);
  }));
  const file = fs.readFileSync("download.bin");
  console.log("piped to a file:", file.length, file[0], file[250], file[251], file[999999]);
  const res2 = await new Promise((r) => http.get(U + "/big?n=70000", r));
  await new Promise((r, j) => pipeline(res2, fs.createWriteStream("p.bin"), (e) => (e ? j(e) : r())));
  console.log("pipeline to a file:", fs.statSync("p.bin").size);
  const it = [];
  for await (const c of await new Promise((r) => http.get(U + "/chunked", r))) it.push(c.toString());
  console.log("for await:", it.join(""));
}

// the order of events
function trace(path, opts, act) {
  return new Promise((resolve) => {
    const log = [];
    const req = http.request(U + path, opts || {});
    for (const ev of ["socket", "prefinish", "finish", "response", "error", "close", "timeout", "abort"]) {
      req.on(ev, (x) => {
        log.push("req:" + ev + (x instanceof Error ? "(" + x.code + " " + x.message + ")" : ""));
        if (ev === "response") {
          for (const e2 of ["end", "close", "error", "aborted"]) x.on(e2, (y) => log.push("res:" + e2 + (y instanceof Error ? "(" + y.code + " " + y.message + ")" : "")));
          if (act && act.res) act.res(x, req, log);
          else x.resume();
        }
      });
    }
    if (act && act.req) act.req(req, log);
    else req.end();
    const done = () => setTimeout(() => resolve(path + " " + log.join(" ")), 60);
    req.on("close", () => (req.res && !req.res.closed ? req.res.on("close", done) : done()));
  });
}
console.log("events:", await trace("/echo"));
console.log("events:", await trace("/echo", { method: "POST" }, { req: (r) => { r.write("a"); r.end("b"); } }));
console.log("events:", await trace("/slow?ms=2000", { timeout: 30 }, { req: (r) => { r.on("timeout", () => r.destroy()); r.end(); } }));
console.log("events:", await trace("/slow?ms=2000", {}, { req: (r) => { r.setTimeout(30, () => r.destroy(new Error("too slow"))); r.end(); } }));
console.log("events:", await trace("/slow?ms=2000", {}, { req: (r) => { r.end(); setTimeout(() => r.destroy(), 20); } }));
console.log("events:", await trace("/slow?ms=2000", {}, { req: (r) => { r.end(); setTimeout(() => r.abort(), 20); } }));
console.log("events:", await trace("/slow?ms=2000", {}, { req: (r) => { r.end(); setTimeout(() => r.destroy(new Error("mine")), 20); } }));
console.log("events:", await trace("/stall", {}, { res: (res, r, log) => { res.on("data", (d) => log.push("data " + d)); setTimeout(() => r.destroy(), 20); } }));
console.log("events:", await trace("/stall", {}, { res: (res, r, log) => { res.on("data", (d) => log.push("data " + d)); setTimeout(() => res.destroy(), 20); } }));
console.log("events:", await trace("/stall", {}, { res: (res, r, log) => { res.on("data", (d) => log.push("data " + d)); r.setTimeout(30, () => { log.push("timeout cb"); r.destroy(); }); } }));
console.log("events:", await trace("/hangup"));
{
  const ac = new AbortController();
  console.log("events:", await trace("/slow?ms=2000", { signal: ac.signal }, { req: (r) => { r.end(); setTimeout(() => ac.abort(), 20); } }));
}
console.log("events:", await trace("/echo", {}, { res: (res, r, log) => { log.push("not listened to, read later"); setTimeout(() => res.resume(), 20); } }));

// a response without a 'response' listener is read and dropped
{
  const req = http.get(U + "/big?n=200000");
  await new Promise((r) => req.on("close", r));
  console.log("dumped:", req.res.complete, req.res.readableEnded);
}

// connection errors
{
  const refused = await new Promise((r) => http.get(process.env.TEST_REFUSED_URL + "/x", () => r("response")).on("error", r));
  console.log("refused:", refused.code, refused.message, refused.errno, refused.syscall, refused.address, typeof refused.port, refused instanceof Error);
  const hangup = await new Promise((r) => http.get(U + "/hangup", () => r("response")).on("error", r));
  console.log("hangup:", hangup.code, hangup.message, JSON.stringify(Object.keys(hangup)));
}

// request headers before and after they are sent
{
  const req = http.request(U + "/echo", { method: "POST" });
  req.setHeader("X-A", "1");
  req.setHeader("X-List", ["p", "q"]);
  const before = [req.getHeader("x-a"), JSON.stringify(req.getHeaderNames()), JSON.stringify(req.getRawHeaderNames()), req.hasHeader("X-A"), req.headersSent];
  req.removeHeader("x-a");
  console.log("headers before:", ...before, req.hasHeader("x-a"), noPort(JSON.stringify(req.getHeaders())));
  req.write("x");
  console.log("headers after:", req.headersSent);
  try { req.setHeader("X-B", "1"); } catch (e) { console.log("late header:", e.code, e.message); }
  req.on("response", (res) => res.resume());
  req.end();
  await new Promise((r) => req.on("close", r));
  console.log("request:", req.method, req.path, req.host, req.protocol, req.writableEnded, req.writableFinished, req.destroyed, req.reusedSocket, req.finished);
}

// argument and header checks
for (const f of [
  () => http.validateHeaderName("bad name"),
  () => http.validateHeaderName(""),
  () => http.validateHeaderValue("x", "a\nb"),
  () => http.validateHeaderValue("x", undefined),
  () => http.request({ protocol: "https:", host: "x" }),
  () => http.request("ftp://x/"),
  () => http.request(U, { method: "BAD METHOD" }),
  () => http.request(U, { method: 42 }),
  () => http.request(U, { headers: { "bad name": "1" } }),
  () => http.request(U, { headers: { x: "a\r\nb" } }),
  () => http.request("not a url"),
  () => http.request({ host: "127.0.0.1", path: "/a b" }),
  () => http.request({ host: 42 }),
]) {
  try {
    const r = f();
    console.log("no error", typeof r);
  } catch (e) {
    console.log("check:", e.name, e.code, e.message);
  }
}

// the module
{
  const a = new http.Agent({ keepAlive: true, maxSockets: 5 });
  console.log("agent:", a.keepAlive, a.maxSockets, a.maxFreeSockets, a.keepAliveMsecs, a.defaultPort, a.protocol, JSON.stringify(a.options), typeof a.destroy,
    a.getName({ host: "h", port: 1 }), a instanceof require("node:events"));
  console.log("globalAgent:", http.globalAgent instanceof http.Agent, http.globalAgent.keepAlive, http.globalAgent.defaultPort, http.globalAgent.protocol);
  console.log("tables:", http.STATUS_CODES[418], http.STATUS_CODES[511], Object.keys(http.STATUS_CODES).length, http.METHODS.length, http.METHODS.join(","), http.maxHeaderSize);
  console.log("exports:", Object.keys(http).filter((k) => !["createServer", "Server", "ServerResponse", "_connectionListener", "setMaxIdleHTTPParsers"].includes(k)).sort().join(","));
  console.log("classes:", typeof http.ClientRequest, typeof http.IncomingMessage, typeof http.OutgoingMessage, typeof http.createServer, typeof http.Server);
  if (process.versions.podcode) {
    try { http.createServer(); } catch (e) { console.log("podcode-differs:", e.code, e.message); }
  }
}
