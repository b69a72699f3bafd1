const { MIMEType, MIMEParams, inspect } = require("util");
const m = new MIMEType("Text/HTML; Charset=\"utf-8\"; q=1 ;bad; x=\"a\\\"b\"");
console.log(String(m), m.type, m.subtype, m.essence, JSON.stringify(m), inspect(m), [...m.params].join("|"), m.params.get("charset"), m.params.has("q"));
m.type = "application"; m.subtype = "json"; m.params.set("charset", "latin1"); m.params.delete("q"); m.params.set("sp", "a b");
console.log(m.toString(), inspect(m.params), String(m.params));
for (const bad of ["", "text", "text/", "/html", "te xt/html", "text/ht;ml"]) { try { new MIMEType(bad); console.log("ok", bad); } catch (e) { console.log(e.name, e.code, e.message); } }
try { m.type = "bad type"; } catch (e) { console.log(e.name, e.code, e.message); }
try { m.params.set("bad key", "v"); } catch (e) { console.log(e.name, e.code, e.message); }
try { m.params.set("k", "v\u0000"); } catch (e) { console.log(e.name, e.code, e.message); }
console.log(new MIMEType("text/plain;a=1;a=2;b=;c").toString(), new MIMEType("  text/plain  ").toString(), new MIMEType("text/plain;charset=\"\"").toString());
console.log(inspect(new MIMEParams()), [...new MIMEType("a/b;x=1;y=2").params.keys()].join(), [...new MIMEType("a/b;x=1;y=2").params.values()].join());
for (const s of ["text/plain; charset=UTF-8", "TEXT/PLAIN;CHARSET=\"ü\"", "a/b;k=\"unterminated", "a/b;k=\"x\\\\y\";z=\"q\" tail", "a/b ;k=v", "a/b;=v;k", "a/b;k= v ", "a/b;K=1;k=2",
  "a/b;k=\"\"", "a/b;k=\"a;b\"", "a/b;k=é", "x-y+z/a.b-c;_=1", "\t text/x \n", "text/pl\u00e0in"]) {
  try { const m = new MIMEType(s); console.log(JSON.stringify([s, String(m), [...m.params]])); } catch (e) { console.log(JSON.stringify(s), e.code, e.message); }
}
for (const s of ["text/ht ml", "text/h@ml", "  te@xt/html", "text/html;a b=c"]) {
  try { console.log(String(new MIMEType(s))); } catch (e) { console.log(e.message); }
}
