const url = require("url");
const { inspect } = require("util");
for (const p of ["/a b/c#d?e%f\\g\n", "/tmp/x", "/", "/a/./b/../c/", "/é/日本/😀", "/a\tb\rc", "/%2F", "/semi;colon/at@/q?"]) console.log(url.pathToFileURL(p).href);
console.log(url.pathToFileURL("rel/x").href === new URL("rel/x", "file://" + process.cwd() + "/").href, url.pathToFileURL("rel/").href.endsWith("/rel/"), url.pathToFileURL(".").href === "file://" + process.cwd());
for (const f of ["file:///a%20b/%C3%A9", "file://localhost/x", "file:///tmp/x/", "file:///%E2%82%AC", "file:///a%252F"]) console.log(url.fileURLToPath(f), url.fileURLToPath(new URL(f)));
for (const bad of [5, null, {}, "http://x/", "file://host/x", "file:///a%2fb", "file:///a%2Fb", "not a url", new URL("https://x/")]) {
  try { url.fileURLToPath(bad); } catch (e) { console.log(e.name, e.code, e.message); }
}
console.log(url.fileURLToPath({ href: "file:///duck", protocol: "file:", hostname: "", pathname: "/duck" }));
console.log(inspect(url.urlToHttpOptions(new URL("https://u:p%20w@[::1]:81/x?y#z"))));
console.log(inspect(url.urlToHttpOptions(new URL("http://h/"))), inspect(url.urlToHttpOptions(Object.assign(new URL("http://h:8/"), { extra: 1 }))));
console.log(url.domainToASCII("español.com"), url.domainToASCII("xn--iñvalid.com"), url.domainToASCII("EXAMPLE.com"), url.domainToASCII(""), url.domainToASCII("a..b"), url.domainToASCII("☃.net"));
console.log(url.domainToUnicode("xn--espaol-zwa.com"), url.domainToUnicode("xn--iñvalid.com"), url.domainToUnicode("EXAMPLE.com"), url.domainToUnicode("xn--n3h.net"), url.domainToUnicode(""));
try { url.domainToASCII(); } catch (e) { console.log(e.code, e.message); }
console.log(url.URL === URL, url.URLSearchParams === URLSearchParams, require("node:url").URL === URL);
