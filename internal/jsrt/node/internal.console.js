// console.table as Node 20's: a box-drawn table of an array or object of
// rows (their keys the columns, primitives under "Values"), of a Map
// ("Key" and "Values") or of a Set, each cell inspected briefly and
// aligned left.
"use strict";

const { inspect, types } = require("util");
const { validateArray } = require("internal/validators");
const { width } = require("internal/strwidth");

function cell(v) {
  const depth = v !== null && typeof v === "object" && !Array.isArray(v) && Object.keys(v).length > 2 ? -1 : 0;
  return inspect(v, { depth, maxArrayLength: 3, breakLength: Infinity, colors: false });
}

function row(cells, widths) {
  let out = "│ ";
  cells.forEach((c, i) => {
    out += c + " ".repeat(widths[i] - width(c));
    if (i !== cells.length - 1) out += " │ ";
  });
  return out + " │";
}

function render(head, columns) {
  const widths = head.map(width);
  const longest = Math.max(...columns.map((c) => c.length));
  const rows = [];
  for (let i = 0; i < head.length; i++) {
    for (let j = 0; j < longest; j++) {
      if (rows[j] === undefined) rows[j] = [];
      const v = (rows[j][i] = Object.prototype.hasOwnProperty.call(columns[i], j) ? columns[i][j] : "");
      widths[i] = Math.max(widths[i] || 0, width(v));
    }
  }
  const rule = widths.map((w) => "─".repeat(w + 2));
  let out = "┌" + rule.join("┬") + "┐\n" + row(head, widths) + "\n├" + rule.join("┼") + "┤\n";
  for (const r of rows) out += row(r, widths) + "\n";
  return out + "└" + rule.join("┴") + "┘";
}

// table returns the table of data, or undefined when data is no object
// (console.table then logs it as console.log would).
function table(data, properties) {
  if (properties !== undefined) validateArray(properties, "properties");
  if (data === null || typeof data !== "object") return undefined;
  const indices = (n) => Array.from({ length: n }, (_, i) => cell(i));
  if (types.isMap(data)) {
    const keys = [];
    const values = [];
    for (const [k, v] of data) {
      keys.push(cell(k));
      values.push(cell(v));
    }
    return render(["(iteration index)", "Key", "Values"], [indices(keys.length), keys, values]);
  }
  if (types.isSet(data)) {
    const values = [...data].map(cell);
    return render(["(iteration index)", "Values"], [indices(values.length), values]);
  }
  const columns = Object.create(null);
  const primitives = [];
  let hasPrimitives = false;
  const index = Object.keys(data);
  index.forEach((k, i) => {
    const item = data[k];
    const primitive = item === null || (typeof item !== "function" && typeof item !== "object");
    if (properties === undefined && primitive) {
      hasPrimitives = true;
      primitives[i] = cell(item);
      return;
    }
    for (const key of properties || Object.keys(item)) {
      if (columns[key] === undefined) columns[key] = [];
      columns[key][i] = (primitive && properties) || !Object.prototype.hasOwnProperty.call(item, key) ? "" : cell(item[key]);
    }
  });
  const head = Object.keys(columns);
  const cols = Object.values(columns);
  if (hasPrimitives) {
    head.push("Values");
    cols.push(primitives);
  }
  head.unshift("(index)");
  cols.unshift(index);
  return render(head, cols);
}

module.exports = { table };
