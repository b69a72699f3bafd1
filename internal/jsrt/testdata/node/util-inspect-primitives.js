const { inspect } = require("util");
const show = (...vs) => console.log(vs.map((v) => inspect(v)).join(" | "));
show(0, -0, 1.5, -1e21, NaN, Infinity, -Infinity, 2n ** 70n, -5n);
show(true, false, null, undefined, Symbol(), Symbol("desc"), Symbol.for("reg"), Symbol.iterator);
show("", "plain", "it's", 'say "hi"', "it's \"both\"", "all ' \" ` three", "${x} ' \"");
show("tab\there", "nl\nthere", "cr\r", "nul\0", "bell\x07", "del\x7f", "c1\x85", "esc\x1b[0m", "back\\slash", "\b\f\v");
show("\ud800", "\udc00x", "a\ud83d\ude00b", "é ü 中文 😀");
show("x".repeat(16) + "\n" + "y".repeat(80), "short\nlines");
console.log(inspect("a".repeat(30) + "\n" + "b".repeat(30) + "\n" + "c".repeat(30) + "\n"));
console.log(inspect(["a".repeat(30) + "\n" + "b".repeat(60)]));
console.log(inspect("z".repeat(10005)).slice(-40));
console.log(inspect("abc", { maxStringLength: 2 }), inspect("abc", { maxStringLength: 0 }), inspect(["abcd"], { maxStringLength: 1 }));
console.log(inspect(1234567.891, { numericSeparator: true }), inspect(-1234567, { numericSeparator: true }), inspect(123, { numericSeparator: true }),
  inspect(0.0001234, { numericSeparator: true }), inspect(1234n, { numericSeparator: true }), inspect(-0.5, { numericSeparator: true }), inspect(1e21, { numericSeparator: true }));
