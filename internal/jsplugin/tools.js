// Helpers for plugin tools, evaluated in each plugin's runtime: the JSON
// Schema the model reads, and argument validation with the tool's own
// schema. parameters may be a zod 4 schema (4.0 on, "zod" or "zod/v4"), a
// zod 3 schema (3.23 on), any Standard Schema that can describe itself as
// JSON Schema, or a plain JSON Schema.
(function () {
  "use strict";

  function isZod3(s) {
    return s && typeof s === "object" && s._def && typeof s._def.typeName === "string";
  }

  // zod 3 has no JSON Schema export of its own: this covers the types tool
  // parameters use.
  function zod3(s) {
    const d = s._def;
    let out;
    switch (d.typeName) {
      case "ZodString": {
        out = { type: "string" };
        for (const c of d.checks || []) {
          if (c.kind === "min") out.minLength = c.value;
          else if (c.kind === "max") out.maxLength = c.value;
          else if (c.kind === "length") { out.minLength = c.value; out.maxLength = c.value; }
          else if (c.kind === "regex") out.pattern = c.regex.source;
          else if (c.kind === "email" || c.kind === "url" || c.kind === "uuid") out.format = c.kind === "url" ? "uri" : c.kind;
        }
        break;
      }
      case "ZodNumber": {
        out = { type: "number" };
        for (const c of d.checks || []) {
          if (c.kind === "int") out.type = "integer";
          else if (c.kind === "min") out[c.inclusive ? "minimum" : "exclusiveMinimum"] = c.value;
          else if (c.kind === "max") out[c.inclusive ? "maximum" : "exclusiveMaximum"] = c.value;
        }
        break;
      }
      case "ZodBigInt": out = { type: "integer" }; break;
      case "ZodBoolean": out = { type: "boolean" }; break;
      case "ZodNull": out = { type: "null" }; break;
      case "ZodAny": case "ZodUnknown": out = {}; break;
      case "ZodLiteral": out = { const: d.value }; break;
      case "ZodEnum": out = { type: "string", enum: d.values.slice() }; break;
      case "ZodNativeEnum": out = { enum: Object.values(d.values).filter((v) => typeof d.values[v] !== "number") }; break;
      case "ZodArray": {
        out = { type: "array", items: zod3(d.type) };
        if (d.minLength) out.minItems = d.minLength.value;
        if (d.maxLength) out.maxItems = d.maxLength.value;
        break;
      }
      case "ZodTuple": out = { type: "array", prefixItems: d.items.map(zod3), minItems: d.items.length }; break;
      case "ZodObject": {
        const shape = typeof d.shape === "function" ? d.shape() : d.shape;
        const properties = {};
        const required = [];
        for (const k of Object.keys(shape)) {
          properties[k] = zod3(shape[k]);
          if (!shape[k].isOptional()) required.push(k);
        }
        out = { type: "object", properties };
        if (required.length) out.required = required;
        if (d.unknownKeys === "strict") out.additionalProperties = false;
        break;
      }
      case "ZodRecord": out = { type: "object", additionalProperties: zod3(d.valueType) }; break;
      case "ZodUnion": case "ZodDiscriminatedUnion": out = { anyOf: [...d.options.values ? d.options.values() : d.options].map(zod3) }; break;
      case "ZodIntersection": out = { allOf: [zod3(d.left), zod3(d.right)] }; break;
      case "ZodOptional": out = zod3(d.innerType); break;
      case "ZodNullable": out = { anyOf: [zod3(d.innerType), { type: "null" }] }; break;
      case "ZodDefault": out = Object.assign(zod3(d.innerType), { default: d.defaultValue() }); break;
      case "ZodCatch": case "ZodReadonly": case "ZodBranded": out = zod3(d.innerType || d.type); break;
      case "ZodEffects": out = zod3(d.schema); break;
      case "ZodPipeline": out = zod3(d.in); break;
      case "ZodLazy": out = zod3(d.getter()); break;
      default: out = {};
    }
    if (d.description && out.description === undefined) out.description = d.description;
    return out;
  }

  // zod 4.0 and 4.1 schemas have no toJSONSchema method: the function is
  // the package's (z.toJSONSchema), and a schema must be described by the
  // zod copy that made it. Every zod 4 schema records the class that made
  // it (_zod.constr); the copy is the loaded module (or a namespace one
  // property down: z, default, tool.schema) that exports that class and a
  // toJSONSchema function. modules are the plugin's loaded packages.
  const exported = new WeakMap(); // namespace → Set of its exported values
  function zodCopyOf(schema, modules) {
    const constr = schema._zod && schema._zod.constr;
    if (typeof constr !== "function") return undefined;
    const owns = (ns) => {
      if (!ns || (typeof ns !== "object" && typeof ns !== "function") || typeof ns.toJSONSchema !== "function") return false;
      let values = exported.get(ns);
      if (!values) {
        values = new Set();
        for (const k of Object.keys(ns)) values.add(ns[k]);
        exported.set(ns, values);
      }
      return values.has(constr);
    };
    return namespaceIn(modules, owns);
  }

  // namespaceIn is the first namespace among the plugin's loaded packages
  // (modules) that owns accepts: a package itself, a value one property
  // down (z, default), or that value's schema (the opencode SDK's
  // tool.schema). opencode.js finds a tool map's zod with it too.
  function namespaceIn(modules, owns) {
    const isNs = (v) => v && (typeof v === "object" || typeof v === "function");
    for (const m of modules || []) {
      if (!isNs(m)) continue;
      if (owns(m)) return m;
      for (const k of Object.keys(m)) {
        const v = m[k];
        if (owns(v)) return v;
        if (isNs(v) && owns(v.schema)) return v.schema;
      }
    }
    return undefined;
  }

  function jsonSchema(schema, modules) {
    if (schema === undefined || schema === null) return { type: "object", properties: {} };
    if (typeof schema !== "object") throw new TypeError("parameters must be a zod schema or a JSON Schema object");
    const std = schema["~standard"];
    if (std && std.jsonSchema && typeof std.jsonSchema.input === "function") {
      return std.jsonSchema.input({ target: "draft-2020-12" });
    }
    if (typeof schema.toJSONSchema === "function") return schema.toJSONSchema();
    if (schema._zod) {
      const z = zodCopyOf(schema, modules);
      // io "input": what the model sends, so a field with a default is optional.
      if (z) return z.toJSONSchema(schema, { target: "draft-2020-12", io: "input" });
      throw new TypeError("parameters: a zod 4 schema whose zod cannot be found among the packages the plugin imports " +
        "(zod 4.0 and 4.1 describe a schema with the package's toJSONSchema function; import zod as a package, not bundled into the plugin)");
    }
    if (isZod3(schema)) return Object.assign({ $schema: "https://json-schema.org/draft/2020-12/schema" }, zod3(schema));
    if (std) throw new TypeError("parameters: this schema library (" + std.vendor + ") cannot describe itself as JSON Schema");
    return schema;
  }

  // canValidate reports whether validate checks values of schema itself:
  // a Standard Schema (zod 3.24 and later), or zod 3 before Standard
  // Schema (3.23) through safeParseAsync.
  function canValidate(schema) {
    if (!schema || typeof schema !== "object") return false;
    const std = schema["~standard"];
    if (std && typeof std.validate === "function") return true;
    return isZod3(schema) && typeof schema.safeParseAsync === "function";
  }

  const issue = (i) => ({ path: (i.path || []).map((p) => (p && typeof p === "object" ? p.key : p)).join("."), message: i.message });

  // validate returns {value} or {issues: [{path, message}]}; a plain JSON
  // Schema is validated by the host instead (native: false).
  function validate(schema, value) {
    const std = schema && schema["~standard"];
    if (!std || typeof std.validate !== "function") {
      if (!canValidate(schema)) return { native: false };
      return schema.safeParseAsync(value).then((r) => (r.success ? { value: r.data } : { issues: r.error.issues.map(issue) }));
    }
    const done = (r) => (r.issues ? { issues: r.issues.map(issue) } : { value: r.value });
    const r = std.validate(value);
    return r && typeof r.then === "function" ? r.then(done) : done(r);
  }

  return { jsonSchema, canValidate, validate, namespaceIn };
})()
