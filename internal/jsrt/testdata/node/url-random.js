// Random URL-like strings, parsed alone and against random bases, and
// random setter calls: the results are Node's (the generator is seeded).
let seed = 4711;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
const maybe = (xs) => (rnd() < 0.5 ? pick(xs) : "");
const schemes = ["http:", "https:", "HTTP:", "file:", "foo:", "mailto:", "ws:", "ftp:", "blob:", "data:", "a+b.c-d:", "x1:", ""];
const seps = ["//", "/", "///", "\\\\", "/\\", "", "////"];
const users = ["u:p@", "@", "a@b@", "user@", ":pw@", "u%40:p@", "ü:ö@"];
const hosts = ["example.com", "EXAMPLE.com", "[::1]", "[1:0:0:0:0:0:0:1]", "1.2.3.4", "0x7f.1", "09", "münchen.de", "a..b", "%41", "xn--x", "", "a b", "localhost", "x.", "255.255.255.256", "[::1", "h\u0000"];
const ports = [":80", ":", ":99999", ":08", ":443", ":x", ":0"];
const paths = ["/a/./b/../c", "/%2e%2E/", "/é", "/a b", "//x", "/C:/x", "/C|/y", "..", "/.", "/..//", "x/y", "/%", "/a?b", "/{}|^`"];
const queries = ["?a=1&b", "?", "?é'\"<>", "?#", "?a=b c", "??"];
const frags = ["#f", "#", "#é `", "#a#b"];
const make = () => pick(schemes) + pick(seps) + maybe(users) + pick(hosts) + maybe(ports) + maybe(paths) + maybe(queries) + maybe(frags);
const parts = (u) => [u.href, u.origin, u.protocol, u.username, u.password, u.host, u.hostname, u.port, u.pathname, u.search, u.hash];
// (no base with an opaque path: Node 20 resolves some references holding
// a # against one, which the URL Standard refuses; see url-parse.js)
const bases = [undefined, "http://b.com/x/y?q#f", "file:///C:/dir/f", "foo://h/p/q", "https://u:p@h:81/a/"];
for (let i = 0; i < 120; i++) {
  const input = make();
  const base = pick(bases);
  let out;
  try { out = parts(base === undefined ? new URL(input) : new URL(input, base)); } catch (e) { out = e.code; }
  console.log(JSON.stringify([input, base, out]));
}
const setters = ["protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"];
const values = ["https", "ftp:", "file", "foo", "new user", "p@ss", "other.org", "h:81", "[::2]", "", "8080", "99999", "12ab", "/x y/../z", "q=1&r", "#frag", "?s", "é", "a:b", "x/y"];
const starts = ["http://u:p@h.com:81/p?q#f", "file:///tmp/x", "foo://h/p", "mailto:x@y", "https://h/", "sc://x/", "data:text/plain,a  "];
for (let i = 0; i < 80; i++) {
  const u = new URL(pick(starts));
  const name = pick(setters);
  const value = pick(values);
  u[name] = value;
  console.log(JSON.stringify([name, value, parts(u)]));
}
