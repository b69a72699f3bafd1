const url = require("url");
const { inspect } = require("util");
console.log(Object.keys(url).join());
const cases = ["https://user:pw@Example.COM:8080/p/a/t/h?query=string&a=1#hash", "/p?x=1&x=2", "//host/path", "http://x", "HTTP://X.COM", "mailto:user@example.com",
  "javascript:alert(1)", "file:///etc/hosts", "file:/x", "http://a b/", "http://x/a b?c d#e f", "http://[::1]:8080/p", "http://[fe80::1%25en0]/", "http://a@b@c/", "http://user:pa%20ss@h/",
  "http://münchen.de/", "http://x.com\\a\\b?c\\d", "  http://trim.com/  ", "http://h:abc/", "http://h:/", "?only=query", "#only-hash", "", "relative/path", "x:y:z",
  "http://host.com/?a=1#b?c", "HTTP://host.com/P?Q#F", "http://h/p;params", "urn:isbn:123", "http://x/\"quoted\"<>`{}|^", "http://exa_mple.com/", "http://h/%zz", "ws://h", "foo://h/p"];
for (const c of cases) {
  try {
    const u = url.parse(c);
    console.log(JSON.stringify([c, u.protocol, u.slashes, u.auth, u.host, u.port, u.hostname, u.hash, u.search, u.query, u.pathname, u.path, u.href]));
  } catch (e) {
    console.log(JSON.stringify(c), e.name, e.code, e.message);
  }
}
console.log(inspect(url.parse("http://x/?a=1&a=2&b", true)), inspect(url.parse("http://x/", true).query), inspect(url.parse("//h/p", false, true)), inspect(url.parse("//h/p")));
for (const bad of [5, null, undefined, {}]) { try { url.parse(bad); } catch (e) { console.log(e.code, e.message); } }
try { url.parse("http://a\u0000b/"); } catch (e) { console.log(e.code, e.message); }
const u = url.parse("http://x/y");
console.log(u instanceof url.Url, url.parse(u) === u, typeof url.Url, inspect(new url.Url()));
console.log(url.format({ protocol: "http", hostname: "h", port: 8, pathname: "p", query: { a: [1, 2] }, hash: "h" }));
console.log(url.format({ protocol: "https:", host: "h.com:1", pathname: "/a#b?c", search: "x=1#y" }), url.format({ protocol: "mailto", pathname: "a@b" }), url.format({ protocol: "file", pathname: "/x" }));
console.log(url.format({ hostname: "::1", port: 80 }), url.format({ hostname: "[::1]" }), url.format({ slashes: true, hostname: "h", pathname: "p" }), url.format({}), url.format("http://X.com/a b"));
console.log(url.format({ auth: "a b:c@d!$&'()*+,;=:~é", host: "h" }), url.format({ protocol: "ftp", host: "h", search: "?s", query: { ignored: 1 } }), url.format({ query: "str" }));
for (const bad of [5, null, undefined]) { try { url.format(bad); } catch (e) { console.log(e.code, e.message); } }
const w = new URL("https://u:p@xn--mnchen-3ya.de:81/p?q=1#f");
console.log(url.format(w), url.format(w, { fragment: false }), url.format(w, { search: false }), url.format(w, { auth: false }), url.format(w, { unicode: true }), url.format(w, {}));
try { url.format(w, 5); } catch (e) { console.log(e.code, e.message); }
const base = "http://a/b/c/d;p?q";
for (const r of ["g:h", "g", "./g", "g/", "/g", "//g", "?y", "g?y", "#s", "g#s", "g?y#s", ";x", "g;x", "", ".", "./", "..", "../", "../g", "../..", "../../", "../../g", "../../../g",
  "/./g", "/../g", "g.", ".g", "g..", "..g", "./../g", "./g/.", "g/./h", "g/../h", "g;x=1/./y", "g;x=1/../y", "http:g", "https:g", "mailto:x"]) {
  console.log(r, "=>", url.resolve(base, r));
}
console.log(url.resolve("/one/two/three", "four"), url.resolve("http://example.com/", "/one"), url.resolve("http://example.com/one", "/two"), url.resolve("mailto:a@b.com", "c@d.com"),
  url.resolve("http://h/a/b", ""), url.resolve("http://u:p@h/a", "//other/x"), url.resolve("a/b", "../../../c"), url.resolve("http://h", "x"), url.resolve("file:///a/b", "../c"));
const ro = url.resolveObject("http://a/b/c", "../d?x#y");
console.log(inspect(ro));
for (const [a, b] of [["mailto:u:p@x/y", "mailto:z"], ["mailto:u:p@x/y", "z"], ["mailto:u:p@x/y", "?q"], ["foo://u:p@x/y", "../z"], ["foo://u:p@x/y", "/z"], ["mailto:u:p@x/y", "mailto:?q"],
  ["mailto:u:p@x/y", "mailto:"], ["mailto:a@b", "mailto:c@d"], ["http://u:p@x/y", "http:z"], ["http://u:p@x/y", "http:"], ["foo://u:p@x/y", "foo://h/x"]]) {
  const r = url.parse(a, false, true).resolveObject(b);
  console.log(JSON.stringify([a, b, r.auth, r.host, r.pathname, r.href]));
}
