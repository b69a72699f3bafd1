const { inspect } = require("util");
console.log(inspect(["日本語", "中文", "한국어", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j"]));
console.log(inspect(["😀😀", "x", "y", "z", "w", "v", "u", "t"]));
console.log(inspect({ k: "日本語".repeat(20), j: 1 }));
console.log(inspect(Array.from({ length: 20 }, (_, i) => "字".repeat(i % 4 + 1))));
console.log(inspect(["e\u0301", "cafe\u0301", "x", "y", "z", "w", "v"]), inspect({ 日本: { 中文: "한국어" } }, { compact: true, breakLength: 10 }));
console.table([{ 名前: "太郎", age: 20 }, { 名前: "😀", age: 3 }]);
