const qs = require("querystring");
const p = (...a) => console.log(JSON.stringify(a[0]), "=>", require("util").inspect(qs.parse(...a)));
for (const s of ["", "&", "=", "&=&", "a", "a=", "==", "&&a=1&&", "=b", "a=b=c", "a=1&a=2&a=3", "a+b=c+d", "a%20b=%zz", "%E2%82%AC=%F0%9F%98%80", "%FF=%C3", "a=%", "a=%2", "a=%41", "k=%2B+%2b", "__proto__=1&constructor=2", "a[]=1&a[]=2", "a;b=1"])
  p(s);
p("a:1;b:2", ";", ":");
p("a=1xxb=2xxc", "xx", "=");
p("a==1&&b==2", "&&", "==");
p("a=1&b=2&c=3", null, null, { maxKeys: 2 });
p("a=1&b=2&c=3", "&", "=", { maxKeys: 0 });
p("a=1&b=2", "&", "=", { maxKeys: -1 });
p("a=%41+b", "&", "=", { decodeURIComponent: (s) => "<" + s + ">" });
p("a=%41", "&", "=", { decodeURIComponent: () => { throw new Error("x"); } });
p(123); p(null); p(undefined);
const s = (...a) => console.log(JSON.stringify(qs.stringify(...a)));
s({ a: 1, b: "x y", c: [1, 2], d: [], e: true, f: null, g: undefined, h: NaN, i: Infinity, j: 1e21, k: 5n, l: {}, m: "", "é k": "€" });
s({ a: [1, [2]], b: ["x", null] });
s({ a: 1, b: 2 }, ";", ":");
s({ a: "x y" }, null, null, { encodeURIComponent: (v) => "<" + v + ">" });
s({ a: 1, b: true, c: null }, "&", "=", { encodeURIComponent: encodeURIComponent });
s("str"); s(null); s([1, 2]); s(5);
console.log(qs.escape("a b&c=d/é€😀!'()*~-._"), qs.escape(5), qs.escape({ toString() { return "o b"; } }), qs.escape(""));
try { qs.escape("\ud800"); } catch (e) { console.log(e.name, e.code, e.message); }
console.log(qs.unescape("a%20b+c"), qs.unescape("a+b", true), qs.unescape("%zz%41"), qs.unescape("%E2%82"), qs.unescape(""));
console.log(qs.encode === qs.stringify, qs.decode === qs.parse, Object.keys(qs).join());
console.log(Array.from(qs.unescapeBuffer("a%20b+%zz", true)).join(), Array.from(qs.unescapeBuffer("a+%4", false)).join(), Array.from(qs.unescapeBuffer("é%C3%A9")).join());
