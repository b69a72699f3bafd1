// util.parseArgs as Node 20's: long and short options, short groups
// (-abc), inline values (--name=v, -nv), "--", defaults, multiple, strict
// and non-strict modes, tokens. args defaults to process.argv after its
// first two entries, which in Podcode are none. Negative options
// (--no-x, allowNegative) are Node 22's and not provided.
"use strict";

const errors = require("internal/errors");
const { validateArray, validateBoolean, validateObject, validateString } = require("internal/validators");

const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
const optionOf = (options, name, field) => (own(options, name) ? options[name][field] : undefined);
const parseError = (code, message) => errors.codedTypeError(code, message);

function longNameOf(short, options) {
  for (const [name, opt] of Object.entries(options)) if (opt.short === short) return name;
  return short;
}

function validateOptions(options) {
  for (const [name, opt] of Object.entries(options)) {
    validateObject(opt, "options." + name);
    const type = opt.type;
    if (type !== "string" && type !== "boolean") throw errors.invalidArgType("options." + name + ".type", "('string|boolean')", type);
    if ("short" in opt) {
      validateString(opt.short, "options." + name + ".short");
      if (opt.short.length !== 1) throw errors.invalidArgValue("options." + name + ".short", opt.short, "must be a single character");
    }
    if ("multiple" in opt) validateBoolean(opt.multiple, "options." + name + ".multiple");
    const dflt = opt.default;
    if (dflt !== undefined) {
      const where = "options." + name + ".default";
      if (opt.multiple) {
        validateArray(dflt, where);
        dflt.forEach((v, i) => (type === "string" ? validateString : validateBoolean)(v, where + "[" + i + "]"));
      } else {
        (type === "string" ? validateString : validateBoolean)(dflt, where);
      }
    }
  }
}

// tokenize turns args into option, positional and option-terminator
// tokens; index is the token's position in args.
function tokenize(args, options) {
  const tokens = [];
  const rest = args.slice();
  let index = -1;
  let expandedLeft = 0; // the short options of a group share its index
  const isString = (name) => optionOf(options, name, "type") === "string";
  while (rest.length > 0) {
    const arg = rest.shift();
    const next = rest[0];
    if (expandedLeft > 0) expandedLeft--;
    else index++;
    if (arg === "--") {
      tokens.push({ kind: "option-terminator", index });
      for (const a of rest) tokens.push({ kind: "positional", index: ++index, value: a });
      break;
    }
    const isShort = typeof arg === "string" && arg.length >= 2 && arg[0] === "-" && arg[1] !== "-";
    // an option alone in its argument: a string option's value is the next
    const alone = (name) => {
      let value, inlineValue;
      if (isString(name) && next != null) {
        value = rest.shift();
        inlineValue = false;
      }
      tokens.push({ kind: "option", name, rawName: arg, index, value, inlineValue });
      if (value != null) index++;
    };
    if (isShort && arg.length === 2) {
      alone(longNameOf(arg[1], options));
      continue;
    }
    if (isShort && !isString(longNameOf(arg[1], options))) {
      const expanded = [];
      for (let i = 1; i < arg.length; i++) {
        const name = longNameOf(arg[i], options);
        if (!isString(name) || i === arg.length - 1) {
          expanded.push("-" + arg[i]);
        } else {
          expanded.push("-" + arg.slice(i)); // the rest is the value of this string option
          break;
        }
      }
      rest.unshift(...expanded);
      expandedLeft = expanded.length;
      continue;
    }
    if (isShort) {
      tokens.push({ kind: "option", name: longNameOf(arg[1], options), rawName: "-" + arg[1], index, value: arg.slice(2), inlineValue: true });
      continue;
    }
    if (typeof arg === "string" && arg.length > 2 && arg.startsWith("--")) {
      const eq = arg.indexOf("=", 3);
      if (eq === -1) {
        alone(arg.slice(2));
      } else {
        const name = arg.slice(2, eq);
        tokens.push({ kind: "option", name, rawName: "--" + name, index, value: arg.slice(eq + 1), inlineValue: true });
      }
      continue;
    }
    tokens.push({ kind: "positional", index, value: arg });
  }
  return tokens;
}

function checkStrict(token, options, allowPositionals) {
  if (!own(options, token.name)) {
    let hint = "";
    if (allowPositionals) {
      hint = ". To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- " + JSON.stringify(token.rawName);
    }
    throw parseError("ERR_PARSE_ARGS_UNKNOWN_OPTION", "Unknown option '" + token.rawName + "'" + hint);
  }
  const short = optionOf(options, token.name, "short");
  const both = (short ? "-" + short + ", " : "") + "--" + token.name;
  const type = optionOf(options, token.name, "type");
  if (type === "string" && typeof token.value !== "string") {
    throw parseError("ERR_PARSE_ARGS_INVALID_OPTION_VALUE", "Option '" + both + " <value>' argument missing");
  }
  if (type === "boolean" && token.value != null) {
    throw parseError("ERR_PARSE_ARGS_INVALID_OPTION_VALUE", "Option '" + both + "' does not take an argument");
  }
  // a value taken from the next argument that looks like an option
  const v = token.value;
  if (!token.inlineValue && v != null && v.length > 1 && v[0] === "-") {
    const example = token.rawName.startsWith("--") ? "'" + token.rawName + "=-XYZ'" : "'--" + token.name + "=-XYZ' or '" + token.rawName + "-XYZ'";
    throw parseError("ERR_PARSE_ARGS_INVALID_OPTION_VALUE", "Option '" + token.rawName + "' argument is ambiguous.\nDid you forget to specify the option argument for '" +
      token.rawName + "'?\nTo specify an option argument starting with a dash use " + example + ".");
  }
}

function parseArgs(config = {}) {
  validateObject(config, "config");
  const get = (k) => (own(config, k) ? config[k] : undefined);
  const args = get("args") ?? (typeof process !== "undefined" ? process.argv.slice(2) : []);
  const strict = get("strict") ?? true;
  const allowPositionals = get("allowPositionals") ?? !strict;
  const returnTokens = get("tokens") ?? false;
  const options = get("options") ?? {};
  validateArray(args, "args");
  validateBoolean(strict, "strict");
  validateBoolean(allowPositionals, "allowPositionals");
  validateBoolean(returnTokens, "tokens");
  validateObject(options, "options");
  validateOptions(options);

  const tokens = tokenize(args, options);
  const values = Object.create(null);
  const positionals = [];
  for (const token of tokens) {
    if (token.kind === "option") {
      if (strict) checkStrict(token, options, allowPositionals);
      if (token.name === "__proto__") continue;
      const v = token.value == null ? true : token.value;
      if (optionOf(options, token.name, "multiple")) {
        if (values[token.name] === undefined) values[token.name] = [v];
        else values[token.name].push(v);
      } else {
        values[token.name] = v;
      }
    } else if (token.kind === "positional") {
      if (!allowPositionals) {
        throw parseError("ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL", "Unexpected argument '" + token.value + "'. This command does not take positional arguments");
      }
      positionals.push(token.value);
    }
  }
  for (const [name, opt] of Object.entries(options)) {
    if (opt.default !== undefined && values[name] === undefined) values[name] = opt.default;
  }
  const result = { values, positionals };
  if (returnTokens) result.tokens = tokens;
  return result;
}

module.exports = { parseArgs };
