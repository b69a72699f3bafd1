// Random URL-like strings through the legacy url.parse, url.format and
// url.resolve: the results are Node's (the generator is seeded).
const url = require("url");
let seed = 99;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
const maybe = (xs) => (rnd() < 0.5 ? pick(xs) : "");
const schemes = ["http:", "https:", "HTTP:", "file:", "foo:", "mailto:", "javascript:", "ws:", ""];
const seps = ["//", "/", "///", "\\\\", "", " "];
const users = ["u:p@", "@", "a@b@", "user@", "u%20x:p@"];
const hosts = ["example.com", "EXAMPLE.com", "[::1]", "1.2.3.4", "münchen.de", "a..b", "%41", "", "a b", "x_y", "h:80", "h\\x"];
const paths = ["/a/./b/../c", "/é", "/a b", "//x", "..", "/.", "x/y", "/%", "/a;b", "/{}|^`'\""];
const queries = ["?a=1&b", "?", "?é'\"<>", "?#", "?a=b c"];
const frags = ["#f", "#", "#é `", "#a#b"];
const make = () => pick(schemes) + pick(seps) + maybe(users) + pick(hosts) + maybe(paths) + maybe(queries) + maybe(frags);
for (let i = 0; i < 100; i++) {
  const input = make();
  let out;
  try {
    const u = url.parse(input, rnd() < 0.3, rnd() < 0.3);
    out = [u.protocol, u.slashes, u.auth, u.host, u.port, u.hostname, u.hash, u.search, u.query, u.pathname, u.path, u.href, url.format(u)];
  } catch (e) { out = e.code; }
  console.log(JSON.stringify([input, out]));
}
const rels = ["g", "./g", "../g", "/g", "//g", "?y", "#s", "", ".", "..", "../..", "g/../h", "mailto:x", "http:g", "https://o/p", "a/b/../../..", "//u@h/p?q"];
for (let i = 0; i < 80; i++) {
  const from = make();
  const to = rnd() < 0.5 ? pick(rels) : make();
  let out;
  try { out = url.resolve(from, to); } catch (e) { out = e.code; }
  console.log(JSON.stringify([from, to, out]));
}
