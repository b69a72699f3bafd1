const { inspect } = require("util");
const u = new URL("https://example.com/p?a=1&b=2&a=3#h");
const p = u.searchParams;
console.log(p === u.searchParams, p.get("a"), JSON.stringify(p.getAll("a")), p.get("nope"), p.has("b"), p.has("a", "3"), p.has("a", "9"), p.size);
p.append("c", "x y&z=é");
console.log(u.href, u.search);
p.delete("a");
console.log(u.href);
p.set("b", "new");
p.set("d", "");
console.log(u.href, String(p));
p.sort();
console.log(u.href);
u.search = "?z=1&y=2";
console.log(p.get("z"), JSON.stringify([...p]), p.size);
u.href = "http://other/?k=v";
console.log(JSON.stringify([...p.keys()]), JSON.stringify([...p.values()]), JSON.stringify([...p.entries()]));
p.delete("k");
console.log(u.href, JSON.stringify(u.search));
u.hash = "x";
p.append("after", "hash");
console.log(u.href);
p.append("a", "1"); p.append("a", "2"); p.delete("a", "1");
console.log(u.href);
const q = new URLSearchParams("?x=1&&y=%zz&=&%F0%9F%98%80=%E2%82%AC&plus=a+b&pct=%2B");
console.log(JSON.stringify([...q]), q.toString());
console.log(new URLSearchParams({ a: 1, b: [1, 2], c: null, d: undefined }).toString(), new URLSearchParams([["x", 1], ["y", "2"]]).toString(), new URLSearchParams(new Map([["m", "v"]])).toString());
console.log(new URLSearchParams(q).toString() === q.toString(), new URLSearchParams("").toString(), new URLSearchParams().size, new URLSearchParams(null).size, new URLSearchParams(undefined).size);
console.log(new URLSearchParams("a=~!*()'-._ /?:@&b=\u0000").toString());
try { new URLSearchParams([["only"]]); } catch (e) { console.log(e.name, e.code, e.message); }
try { new URLSearchParams([1]); } catch (e) { console.log(e.name, e.code, e.message); }
try { new URLSearchParams({ [Symbol.iterator]: 5 }); } catch (e) { console.log(e.name, e.code, e.message); }
try { p.append("x"); } catch (e) { console.log(e.name, e.code, e.message); }
try { p.get(); } catch (e) { console.log(e.name, e.code, e.message); }
try { p.set(); } catch (e) { console.log(e.name, e.code, e.message); }
try { URLSearchParams.prototype.get.call({}, "x"); } catch (e) { console.log(e.name, e.code, e.message); }
try { p.forEach(5); } catch (e) { console.log(e.name, e.code, e.message); }
const seen = [];
new URLSearchParams("a=1&b=2").forEach(function (v, k, self) { seen.push(k + "=" + v + ":" + (self instanceof URLSearchParams) + ":" + this.t); }, { t: "this" });
console.log(seen.join(","));
console.log(inspect(new URLSearchParams("a=1&b=2&a=3")), inspect(new URLSearchParams()), inspect(new URLSearchParams({ long: "x".repeat(80), other: "y" })));
console.log(inspect(new URLSearchParams("a=1&b=2").keys()), inspect(new URLSearchParams("a=1").entries()));
const it = new URLSearchParams("a=1&b=2").values();
it.next();
console.log(inspect(it), Object.prototype.toString.call(it), Object.prototype.toString.call(p));
console.log(inspect(new URL("https://u:p@h.com:81/x?y=1#z")));
console.log(inspect({ nested: new URL("http://a/") }, { depth: 0 }), inspect([new URLSearchParams("q=1")], { depth: 0 }));
console.log(new URLSearchParams("b=2&a=1&a=0&c").toString(), (() => { const s = new URLSearchParams("b=2&a=1&a=0&c"); s.sort(); return s.toString(); })());
const lone = new URLSearchParams();
lone.append("\ud800", "\udc00x");
console.log(lone.toString());
