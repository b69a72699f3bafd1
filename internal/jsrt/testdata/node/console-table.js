console.table([{ a: 1, b: "x" }, { a: 2, c: true }]);
console.table([1, "two", { three: 3 }]);
console.table({ r1: { col: 1 }, r2: { col: 22222 } });
console.table([{ a: 1, b: 2 }], ["b"]);
console.table([[1, 2], [3, 4, 5]]);
console.table(new Map([["k", { v: 1 }], [{ o: 1 }, [1, 2, 3, 4]]]));
console.table(new Set(["s", 2]));
console.table([]);
console.table("not tabular");
console.table(5);
console.table(null);
console.table([{ nested: { deep: { deeper: 1 } }, many: { a: 1, b: 2, c: 3 }, arr: [1, 2, 3, 4, 5], s: "quote'd" }]);
console.table([{ x: undefined, y: null, z: () => 1 }]);
console.table({ a: 1, b: "b" });
console.table([{ é: "ü", "a b": 1 }]);
try { console.table([], "x"); } catch (e) { console.log(e.code, e.message); }
