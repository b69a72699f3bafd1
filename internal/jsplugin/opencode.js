// Adapter for plugins written for opencode, evaluated in the plugin's
// runtime. opencode hooks take (input, output) and mutate output; Podcode
// hooks take one value and return the new one. This turns one into the
// other and leaves out what does not map (see docs/plugins.md).
(function () {
  "use strict";

  // The opencode hooks that map onto Podcode's.
  const MAPPED = ["tool", "event", "chat.params", "tool.execute.before", "tool.execute.after"];

  // pluginFunctions lists the module's opencode plugin functions: the
  // default export and every named export that is a function, each once.
  function pluginFunctions(exports) {
    const out = [];
    if (typeof exports === "function") return [exports];
    if (!exports || typeof exports !== "object") return out;
    for (const k of Object.keys(exports)) {
      const v = exports[k];
      if (typeof v === "function" && !out.includes(v)) out.push(v);
    }
    return out;
  }

  function missing(name) {
    return () => {
      throw new Error("opencode's `" + name + "` is not available in Podcode");
    };
  }

  // unavailable stands for what Podcode does not provide (the SDK client,
  // Bun's $): destructuring it works, as every opencode example does, and
  // any use (a property, a call, a tagged template) throws naming it. A
  // plugin that uses it while it starts is refused at load with that
  // message; a hook that uses it fails at the use.
  function unavailable(name) {
    const fail = missing(name);
    return new Proxy(function () {}, {
      get(_, k) {
        if (typeof k === "symbol" || k === "then") return undefined; // await, inspection
        return fail();
      },
      apply: fail,
      construct: fail,
      set: fail,
    });
  }

  // context is what an opencode plugin function receives.
  function context(info) {
    return {
      directory: info.directory,
      worktree: info.worktree,
      project: { id: info.worktree, worktree: info.worktree, vcs: info.vcs || undefined },
      client: unavailable("client"),
      $: unavailable("$"),
      serverUrl: unavailable("serverUrl"),
      experimental_workspace: unavailable("experimental_workspace"),
    };
  }

  function clone(v) {
    return v === undefined ? undefined : JSON.parse(JSON.stringify(v));
  }

  // opencode's built-in file tools name their arguments in camelCase and
  // the file filePath; Podcode's read, write and edit use path and
  // snake_case. A hook sees opencode's names and its changes come back
  // under Podcode's.
  const FILE_TOOLS = ["read", "write", "edit"];
  const ARG_NAMES = { path: "filePath", old_string: "oldString", new_string: "newString", replace_all: "replaceAll" };
  function renameArgs(tool, args, back) {
    if (!FILE_TOOLS.includes(tool) || !args || typeof args !== "object" || Array.isArray(args)) return args;
    const out = {};
    for (const k of Object.keys(args)) {
      let name = k;
      for (const [ours, theirs] of Object.entries(ARG_NAMES)) {
        if (!back && k === ours) name = theirs;
        if (back && k === theirs) name = ours;
      }
      out[name] = args[k];
    }
    return out;
  }

  // canonical is v as JSON with sorted keys: the same arguments, however
  // they were built, give the same key.
  function canonical(v) {
    if (Array.isArray(v)) return "[" + v.map(canonical).join(",") + "]";
    if (v && typeof v === "object") {
      return "{" + Object.keys(v).sort().map((k) => JSON.stringify(k) + ":" + canonical(v[k])).join(",") + "}";
    }
    return JSON.stringify(v === undefined ? null : v);
  }

  // findZod is the zod namespace that made schema (zod 3 or 4), among the
  // plugin's loaded packages (tools.js's namespaceIn, which helpers is).
  function findZod(schema, modules, helpers) {
    return helpers.namespaceIn(modules, (ns) => ns && (typeof ns === "object" || typeof ns === "function") &&
      typeof ns.object === "function" && typeof ns.ZodType === "function" && schema instanceof ns.ZodType);
  }

  // adapt turns the hooks objects of opencode plugin functions (called in
  // order) into one Podcode hooks object. bus is Podcode's bus; modules
  // returns the plugin's loaded packages; helpers is tools.js's object.
  function adapt(list, info, bus, modules, helpers) {
    const byHook = {};
    const unsupported = [];
    for (const hooks of list) {
      if (!hooks || typeof hooks !== "object") continue;
      for (const k of Object.keys(hooks)) {
        if (!MAPPED.includes(k)) {
          if (!unsupported.includes(k)) unsupported.push(k);
          continue;
        }
        (byHook[k] = byHook[k] || []).push(hooks[k]);
      }
    }
    const out = {};
    const run = async (fns, input, output) => {
      for (const fn of fns) await fn(input, output);
    };
    const before = byHook["tool.execute.before"];
    if (before) {
      // A throw in opencode's before blocks the call; Podcode's pipeline
      // hook cannot refuse, so the hook runs as a PreToolUse vote (a throw
      // denies, with its message) and the arguments it left are handed to
      // the pipeline hook of the same call, which then does not run it again.
      const pending = new Map();
      const key = (session, tool, args) => session + "\u0000" + tool + "\u0000" + canonical(args);
      out.lifecycle = {
        PreToolUse: async (p) => {
          let args = {};
          try { args = p.tool_input ? JSON.parse(p.tool_input) : {}; } catch (_) { /* not JSON: start empty */ }
          const output = { args: renameArgs(p.tool_name, clone(args), false) };
          try {
            await run(before, { tool: p.tool_name, sessionID: p.session_id || "", callID: "" }, output);
          } catch (e) {
            return { decision: "deny", message: e && e.message ? e.message : String(e) };
          }
          if (pending.size >= 256) pending.delete(pending.keys().next().value);
          pending.set(key(p.session_id || "", p.tool_name, args), renameArgs(p.tool_name, output.args, true));
          return undefined;
        },
      };
      out["tool.execute.before"] = async (input) => {
        const c = input.ctx || {};
        const k = key(c.sessionID || "", input.toolID, input.args);
        let args;
        if (pending.has(k)) {
          args = pending.get(k);
          pending.delete(k);
        } else {
          const output = { args: renameArgs(input.toolID, clone(input.args), false) };
          await run(before, { tool: input.toolID, sessionID: c.sessionID, callID: c.callID }, output);
          args = renameArgs(input.toolID, output.args, true);
        }
        if (canonical(args) === canonical(input.args)) return undefined;
        return Object.assign({}, input, { args });
      };
    }
    const after = byHook["tool.execute.after"];
    if (after) {
      out["tool.execute.after"] = async (input) => {
        const c = input.ctx || {};
        const r = input.result || {};
        const output = { title: r.title, output: r.output, metadata: clone(r.metadata) || {} };
        await run(after, { tool: input.toolID, sessionID: c.sessionID, callID: c.callID, args: renameArgs(input.toolID, clone(input.args), false) }, output);
        if (output.title === r.title && output.output === r.output && canonical(output.metadata) === canonical(r.metadata || {})) return undefined;
        return Object.assign({}, input, { result: { title: output.title, output: output.output, metadata: output.metadata } });
      };
    }
    const params = byHook["chat.params"];
    if (params) {
      out["chat.params"] = async (p) => {
        const output = { temperature: p.temperature, topP: p.topP, topK: p.topK, maxOutputTokens: p.maxOutputTokens, options: clone(p.options) || {} };
        const model = p.model || {};
        await run(params, { sessionID: p.sessionID, agent: p.agent, model: { id: model.modelID, providerID: model.providerID, limit: model.limit },
          provider: { id: model.providerID }, message: {} }, output);
        return Object.assign({}, p, output);
      };
    }
    const tools = byHook.tool;
    if (tools) {
      out.tool = () => {
        const defs = [];
        for (const map of tools) {
          for (const name of Object.keys(map || {})) {
            const t = map[name];
            if (!t || typeof t.execute !== "function") continue;
            const shape = t.args || {};
            const first = Object.values(shape)[0];
            const z = first && findZod(first, modules(), helpers);
            const parameters = z ? z.object(shape) : { type: "object", properties: {} };
            defs.push({
              id: name,
              description: t.description || "",
              parameters,
              async execute(args, ctx) {
                let title = name;
                let metadata;
                const res = await t.execute(args, {
                  sessionID: ctx.sessionID, messageID: ctx.messageID, agent: ctx.agent, callID: ctx.callID,
                  directory: info.directory, worktree: info.worktree, abort: ctx.abort,
                  metadata(m) {
                    if (m && m.title) title = m.title;
                    if (m && m.metadata) metadata = m.metadata;
                  },
                  ask: missing("ask"),
                });
                if (typeof res === "string") return { title, output: res, metadata };
                return { title: (res && res.title) || title, output: res && res.output, metadata: (res && res.metadata) || metadata };
              },
            });
          }
        }
        return defs;
      };
    }
    const events = byHook.event;
    if (events) {
      bus.subscribeAll((ev) => {
        const event = { type: ev.type, properties: ev.properties };
        return Promise.all(events.map((fn) => fn({ event })));
      });
    }
    return { hooks: out, unsupported };
  }

  // server is the Podcode server() of a module of opencode plugin
  // functions: each is called with opencode's context and the plugin's
  // config block, in export order.
  function server(fns, info, modules, helpers) {
    return async function (input, options) {
      const ctx = context(Object.assign({}, info, { directory: input.cwd }));
      const list = [];
      for (const fn of fns) list.push(await fn(ctx, (options && options.config) || {}));
      return adapt(list, info, input.bus, modules, helpers);
    };
  }

  return { pluginFunctions, context, adapt, server };
})()
