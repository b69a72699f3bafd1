// Adapter for plugins written for opencode, evaluated in the plugin's
// runtime. opencode hooks take (input, output) and mutate output; Podcode
// hooks take one value and return the new one. This turns one into the
// other and leaves out what does not map (see docs/plugins.md).
(function () {
  "use strict";

  // The opencode hooks that map onto Podcode's.
  const MAPPED = ["tool", "event", "chat.params", "chat.message", "tool.execute.before", "tool.execute.after"];

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

  // context is what an opencode plugin function receives: $ is Bun's
  // (Podcode's module "bun"), client opencode's SDK client answered by
  // Podcode in process (info.request).
  function context(info) {
    const ctx = {
      directory: info.directory,
      worktree: info.worktree,
      project: { id: info.worktree, worktree: info.worktree, vcs: info.vcs || undefined, time: { created: 0 } },
      client: makeClient(info.request, info.directory),
      $: undefined,
      serverUrl: unavailable("serverUrl"),
      experimental_workspace: unavailable("experimental_workspace"),
    };
    // Bun's module is loaded when $ is first read, not for every plugin
    Object.defineProperty(ctx, "$", { get: () => globalThis.Bun.$, enumerable: true, configurable: true });
    return ctx;
  }

  // The routes of @opencode-ai/sdk's client (v1, the one plugins get):
  // "namespace.method VERB /path". The methods whose path has a parameter
  // must be given options, as the SDK's.
  const ROUTES = `
    project.list GET /project; project.current GET /project/current
    pty.list GET /pty; pty.create POST /pty; pty.remove DELETE /pty/{id}; pty.get GET /pty/{id}; pty.update PUT /pty/{id}
    pty.connect GET /pty/{id}/connect
    config.get GET /config; config.update PATCH /config; config.providers GET /config/providers
    tool.ids GET /experimental/tool/ids; tool.list GET /experimental/tool
    instance.dispose POST /instance/dispose; path.get GET /path; vcs.get GET /vcs
    session.list GET /session; session.create POST /session; session.status GET /session/status
    session.delete DELETE /session/{id}; session.get GET /session/{id}; session.update PATCH /session/{id}
    session.children GET /session/{id}/children; session.todo GET /session/{id}/todo; session.init POST /session/{id}/init
    session.fork POST /session/{id}/fork; session.abort POST /session/{id}/abort; session.unshare DELETE /session/{id}/share
    session.share POST /session/{id}/share; session.diff GET /session/{id}/diff; session.summarize POST /session/{id}/summarize
    session.messages GET /session/{id}/message; session.prompt POST /session/{id}/message
    session.message GET /session/{id}/message/{messageID}; session.promptAsync POST /session/{id}/prompt_async
    session.command POST /session/{id}/command; session.shell POST /session/{id}/shell
    session.revert POST /session/{id}/revert; session.unrevert POST /session/{id}/unrevert
    command.list GET /command; provider.list GET /provider; provider.auth GET /provider/auth
    find.text GET /find; find.files GET /find/file; find.symbols GET /find/symbol
    file.list GET /file; file.read GET /file/content; file.status GET /file/status
    app.log POST /log; app.agents GET /agent
    provider.oauth.authorize POST /provider/{id}/oauth/authorize; provider.oauth.callback POST /provider/{id}/oauth/callback
    tui.control.next GET /tui/control/next; tui.control.response POST /tui/control/response
    mcp.status GET /mcp; mcp.add POST /mcp; mcp.connect POST /mcp/{name}/connect; mcp.disconnect POST /mcp/{name}/disconnect
    lsp.status GET /lsp; formatter.status GET /formatter
    tui.appendPrompt POST /tui/append-prompt; tui.openHelp POST /tui/open-help; tui.openSessions POST /tui/open-sessions
    tui.openThemes POST /tui/open-themes; tui.openModels POST /tui/open-models; tui.submitPrompt POST /tui/submit-prompt
    tui.clearPrompt POST /tui/clear-prompt; tui.executeCommand POST /tui/execute-command; tui.showToast POST /tui/show-toast
    tui.publish POST /tui/publish; auth.set PUT /auth/{id}; event.subscribe GET /event; global.event GET /global/event
    global.health GET /global/health; postSessionIdPermissionsPermissionId POST /session/{id}/permissions/{permissionID}
    auth.remove DELETE /mcp/{name}/auth; auth.start POST /mcp/{name}/auth; auth.callback POST /mcp/{name}/auth/callback
    auth.authenticate POST /mcp/{name}/auth/authenticate`;

  // interceptors is hey-api's list of functions of one kind.
  function interceptors() {
    const fns = [];
    return {
      fns,
      use(fn) { fns.push(fn); return fns.length - 1; },
      eject(id) { if (typeof id === "number") fns[id] = null; else { const i = fns.indexOf(id); if (i >= 0) fns[i] = null; } },
      clear() { fns.length = 0; },
      exists(id) { return typeof id === "number" ? !!fns[id] : fns.includes(id); },
      update(id, fn) { if (typeof id === "number") fns[id] = fn; return id; },
    };
  }

  function query(q) {
    const parts = [];
    for (const [k, v] of Object.entries(q || {})) {
      if (v === undefined || v === null) continue;
      if (Array.isArray(v)) for (const x of v) parts.push(encodeURIComponent(k) + "=" + encodeURIComponent(x));
      else if (typeof v === "object") for (const [kk, vv] of Object.entries(v)) parts.push(encodeURIComponent(k + "[" + kk + "]") + "=" + encodeURIComponent(vv));
      else parts.push(encodeURIComponent(k) + "=" + encodeURIComponent(v));
    }
    return parts.length ? "?" + parts.join("&") : "";
  }

  // makeClient is an object shaped as the SDK's client (each namespace a
  // class instance with _client, the hey-api client: get, post…,
  // request, interceptors, getConfig, setConfig, buildUrl), whose requests
  // request(method, url, headers, body) answers in process. As the SDK's, a
  // call resolves with {data, request, response}, or {error, request,
  // response} on an error status (throwOnError: it throws).
  function makeClient(request, directory) {
    const config = { baseUrl: "http://localhost:4096", directory, throwOnError: false, headers: {}, responseStyle: "fields" };
    const ic = { request: interceptors(), response: interceptors(), error: interceptors() };
    const buildUrl = (o) => {
      let url = o.url || "";
      for (const [k, v] of Object.entries(o.path || {})) url = url.split("{" + k + "}").join(encodeURIComponent(v));
      return (o.baseUrl === undefined ? config.baseUrl : o.baseUrl) + url + query(o.query);
    };
    const hey = {
      interceptors: ic,
      getConfig: () => Object.assign({}, config),
      setConfig: (c) => Object.assign(config, c || {}),
      buildUrl,
      async request(o) {
        o = Object.assign({}, config, o || {});
        const method = String(o.method || "GET").toUpperCase();
        const headers = new Headers(Object.assign({}, config.headers, o.headers));
        let body = o.body;
        if (body !== undefined && body !== null && typeof body !== "string") body = JSON.stringify(body);
        if (body !== undefined && body !== null && !headers.has("content-type")) headers.set("content-type", "application/json");
        let req = { method, url: buildUrl(o), headers, body };
        for (const fn of ic.request.fns) if (fn) req = (await fn(req, o)) || req;
        const path = req.url.startsWith(config.baseUrl) ? req.url.slice(config.baseUrl.length) : req.url.replace(/^[a-z]+:\/\/[^/]+/i, "");
        const h = {};
        req.headers.forEach((v, k) => { h[k] = v; });
        const r = await request(method, path, h, req.body === undefined ? null : req.body);
        let response = new Response(r.body, { status: r.status, statusText: r.statusText, headers: r.headers, url: req.url });
        for (const fn of ic.response.fns) if (fn) response = (await fn(response, req, o)) || response;
        if (response.ok) {
          const data = r.status === 204 || !r.body ? {} : JSON.parse(r.body);
          return o.responseStyle === "data" ? data : { data, request: req, response };
        }
        let error;
        try { error = JSON.parse(r.body); } catch (e) { error = r.body; }
        for (const fn of ic.error.fns) if (fn) error = (await fn(error, response, req, o)) || error;
        if (o.throwOnError) {
          const msg = (error && error.data && error.data.message) || (error && error.message) || (error && error.name) ||
            method + " " + req.url + " → " + r.status + " " + r.statusText;
          throw new Error(msg, { cause: { body: error, status: r.status } });
        }
        return o.responseStyle === "data" ? undefined : { error: error || {}, request: req, response };
      },
    };
    for (const m of ["get", "post", "put", "patch", "delete", "head", "options"]) {
      hey[m] = (o) => hey.request(Object.assign({}, o, { method: m.toUpperCase() }));
    }
    class Namespace { constructor() { this._client = hey; } }
    const root = new Namespace();
    for (const line of ROUTES.split(/[;\n]/)) {
      const [name, verb, path] = line.trim().split(/\s+/);
      if (!name) continue;
      // "a.b" is a method of namespace a; "a.b.c" of a's namespace b; a
      // plain name is the client's own
      const names = name.split(".");
      const method = names.pop();
      let target = root;
      for (const n of names) {
        if (!target[n]) target[n] = new Namespace();
        target = target[n];
      }
      const needsOptions = path.includes("{");
      target[method] = function (options) {
        if (needsOptions && options === undefined) throw new TypeError("Cannot read properties of undefined (reading 'client')");
        const c = (options && options.client) || this._client;
        return c.request(Object.assign({}, options, { url: path, method: verb }));
      };
    }
    root.mcp.auth = root.auth;
    return root;
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
  // order) into one Podcode hooks object. info is the project and the
  // host's functions (see context); modules returns the plugin's loaded
  // packages; helpers is tools.js's object.
  function adapt(list, info, modules, helpers) {
    const byHook = {};
    const unsupported = [];
    for (const hooks of list) {
      if (!hooks || typeof hooks !== "object") continue;
      for (const k of Object.keys(hooks)) {
        if (!MAPPED.includes(k)) {
          // a hook is a function: other values are not hooks (an exported
          // helper called as a plugin function may return anything)
          if (typeof hooks[k] === "function" && !unsupported.includes(k)) unsupported.push(k);
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
      out.lifecycle = out.lifecycle || {};
      Object.assign(out.lifecycle, {
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
      });
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
    // chat.message runs when a prompt arrives, before its message is
    // stored: as a UserPromptSubmit vote that abstains. The text parts a
    // hook adds reach the model as context (the prompt's additional
    // context); the prompt's own text stays as the user wrote it.
    const chatMessage = byHook["chat.message"];
    if (chatMessage) {
      out.lifecycle = out.lifecycle || {};
      out.lifecycle.UserPromptSubmit = async (p) => {
        const extra = p.extra || {};
        const [providerID, ...rest] = String(extra.model || "").split("/");
        const model = { providerID: rest.length ? providerID : "", modelID: rest.length ? rest.join("/") : providerID };
        const messageID = "msg_prompt_" + Date.now().toString(16);
        const text = { id: "prt_" + messageID.slice(4) + "_00", sessionID: p.session_id || "", messageID, type: "text", text: String(extra.prompt || "") };
        const output = {
          message: { id: messageID, sessionID: p.session_id || "", role: "user", time: { created: Date.now() }, agent: "build", model },
          parts: [text],
        };
        await run(chatMessage, { sessionID: p.session_id || "", agent: "build", model, messageID }, output);
        const added = (Array.isArray(output.parts) ? output.parts : [])
          .filter((pt) => pt && pt !== text && pt.type === "text" && typeof pt.text === "string" && pt.text !== "")
          .map((pt) => pt.text);
        return added.length ? { data: { additional_context: added.join("\n\n") } } : undefined;
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
                let updates = 0;
                const res = await t.execute(args, {
                  sessionID: ctx.sessionID, messageID: ctx.messageID, agent: ctx.agent, callID: ctx.callID,
                  directory: info.directory, worktree: info.worktree, abort: ctx.abort,
                  // A title set while the call runs is its progress, as
                  // opencode shows it on the running call.
                  metadata(m) {
                    if (m && m.title) {
                      title = m.title;
                      ctx.progress({ progress: ++updates, message: String(m.title) });
                    }
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
    // event hooks hear Podcode's bus as opencode's events (package
    // opencode maps them), each called in turn and not awaited, as
    // opencode calls them
    const events = byHook.event;
    if (events) {
      info.events((payload) => {
        for (const fn of events) {
          const r = fn(payload);
          if (r && typeof r.then === "function") r.then(undefined, (e) => console.error("event hook threw:", e));
        }
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
      return adapt(list, info, modules, helpers);
    };
  }

  return { pluginFunctions, context, adapt, server, makeClient };
})()
