package jsplugin

// Plugins written for opencode share the {id, server} shape but not the
// calling convention: their hooks take (input, output) and mutate output,
// their tool hook is a map of tool({description, args, execute}), and the
// older form is a module of plugin functions async (ctx) => hooks. A
// plugin is treated as opencode's when
//
//   - its module exports functions rather than {id, server} (every
//     exported function is a plugin function, called in export order),
//     and it says it is opencode's: it lies in a folder .opencode/plugin
//     or .opencode/plugins (where opencode finds plugins), or imports
//     @opencode-ai/plugin; any other module of named exports alone is
//     skipped (SPEC P2);
//   - it is an npm package that depends on @opencode-ai/plugin (then
//     server() also receives opencode's context, and id may be left out);
//     or
//   - server() returned a hook declaring two parameters or a tool map.
//
// opencode.js adapts what maps (the hooks of Hooks, event, the tool map,
// directory/worktree/project) and makes what Podcode lacks (client, $,
// serverUrl) throw where it is read, which refuses a plugin that
// destructures it at load.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/dop251/goja"

	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/jsrt"
	"github.com/podcode/podcode/internal/opencode"
	"github.com/podcode/podcode/internal/store"
)

// opencodePackage is the package opencode plugins depend on.
const opencodePackage = "@opencode-ai/plugin"

// ocAdapter returns opencode.js evaluated in vm, evaluating it on first use.
type ocAdapter func(vm *goja.Runtime) (*goja.Object, error)

// looksOpencode reports whether server()'s result v is opencode's: a hook
// of Hooks declaring two parameters (input, output), or a tool map rather
// than a function. An event key alone does not tell: Podcode ignores
// unknown keys (P10).
func looksOpencode(v goja.Value) bool {
	obj, ok := v.(*goja.Object)
	if !ok {
		return false
	}
	if t, ok := obj.Get(HookTool).(*goja.Object); ok {
		if _, isFn := goja.AssertFunction(t); !isFn {
			return true
		}
	}
	for _, h := range Hooks {
		if f, ok := obj.Get(h).(*goja.Object); ok {
			if _, isFn := goja.AssertFunction(f); isFn && f.Get("length").ToInteger() >= 2 {
				return true
			}
		}
	}
	return false
}

// opencodeAdapter evaluates opencode.js in vm.
func opencodeAdapter(vm *goja.Runtime) (*goja.Object, error) {
	prog, err := opencodeProgram()
	if err != nil {
		return nil, err
	}
	v, err := vm.RunProgram(prog)
	if err != nil {
		return nil, err
	}
	return v.ToObject(vm), nil
}

func ocFunc(oc *goja.Object, name string) (goja.Callable, error) {
	fn, ok := goja.AssertFunction(oc.Get(name))
	if !ok {
		return nil, errors.New("opencode.js: no function " + name)
	}
	return fn, nil
}

// opencodeServer is the server() of a module of opencode plugin functions,
// or nil when the module exports none.
func opencodeServer(vm *goja.Runtime, adapter ocAdapter, exports goja.Value, info map[string]any, p *Plugin) (goja.Callable, error) {
	oc, err := adapter(vm)
	if err != nil {
		return nil, err
	}
	list, err := ocFunc(oc, "pluginFunctions")
	if err != nil {
		return nil, err
	}
	fns, err := list(goja.Undefined(), exports)
	if err != nil {
		return nil, err
	}
	if fns.ToObject(vm).Get("length").ToInteger() == 0 {
		return nil, nil
	}
	mk, err := ocFunc(oc, "server")
	if err != nil {
		return nil, err
	}
	srv, err := mk(goja.Undefined(), fns, vm.ToValue(info), p.modulesFunc(vm), p.helpers)
	if err != nil {
		return nil, err
	}
	fn, _ := goja.AssertFunction(srv)
	return fn, nil
}

// modulesFunc returns the plugin's loaded packages, where a tool map's
// zod is found.
func (p *Plugin) modulesFunc(vm *goja.Runtime) goja.Value {
	return vm.ToValue(func(goja.FunctionCall) goja.Value {
		if p.modules == nil {
			return vm.NewArray()
		}
		return p.modules.loaded()
	})
}

// opencodeContext is opencode's plugin context for info.
func opencodeContext(vm *goja.Runtime, adapter ocAdapter, info map[string]any) (*goja.Object, error) {
	oc, err := adapter(vm)
	if err != nil {
		return nil, err
	}
	fn, err := ocFunc(oc, "context")
	if err != nil {
		return nil, err
	}
	v, err := fn(goja.Undefined(), vm.ToValue(info))
	if err != nil {
		return nil, err
	}
	return v.ToObject(vm), nil
}

// opencodeHooks returns the Podcode hooks of server()'s result v: v itself
// for a Podcode plugin, the adapted hooks for an opencode one, and the
// opencode hooks that have no Podcode counterpart.
func (l *loader) opencodeHooks(vm *goja.Runtime, p *Plugin, adapter ocAdapter, v goja.Value, module, marked bool) (goja.Value, []string, error) {
	var res goja.Value
	if module {
		res = v // opencode.js's server already adapted them
	} else {
		if !marked && !looksOpencode(v) {
			return v, nil, nil
		}
		oc, err := adapter(vm)
		if err != nil {
			return nil, nil, err
		}
		adapt, err := ocFunc(oc, "adapt")
		if err != nil {
			return nil, nil, err
		}
		res, err = adapt(goja.Undefined(), vm.NewArray(v), vm.ToValue(l.opencodeInfo(vm, p)), p.modulesFunc(vm), p.helpers)
		if err != nil {
			return nil, nil, err
		}
	}
	obj, ok := res.(*goja.Object)
	if !ok {
		return v, nil, nil
	}
	var unsupported []string
	if u, ok := obj.Get("unsupported").Export().([]any); ok {
		for _, k := range u {
			if s, ok := k.(string); ok {
				unsupported = append(unsupported, s)
			}
		}
	}
	return obj.Get("hooks"), unsupported, nil
}

// opencodeInfo is what opencode's context says about the project (the
// working directory, and the git worktree holding it), and the host
// functions its client and events need: request, an in-process request to
// Options.API; events, a subscription to the bus in opencode's events.
func (l *loader) opencodeInfo(vm *goja.Runtime, p *Plugin) map[string]any {
	proj := opencode.ProjectAt(l.o.Cwd)
	p.rt.AttributeCalls() // its client's requests are the calling hook's tenant's (requestScope)
	return map[string]any{"directory": proj.Directory, "worktree": proj.Worktree, "vcs": proj.VCS,
		"request": l.ocRequest(p),
		"events": func(fn goja.Value) goja.Value {
			mapper := opencode.NewMapper(proj)
			accept := func(ev bus.Event) bool {
				// an opencode plugin is written for one user: it hears the
				// server's own sessions, not the tenants'
				return (ev.Tenant == "" || ev.Tenant == store.DefaultTenant) && opencode.Maps(ev.Type)
			}
			return l.subscribe(vm, p, "", fn, accept, func(ev bus.Event) []any {
				evs := mapper.Map(ev)
				out := make([]any, len(evs))
				for i, e := range evs {
					out[i] = map[string]any{"event": map[string]any{"id": e.ID, "type": e.Type, "properties": e.Properties}}
				}
				return out
			})
		}}
}

// maxAPIResponse bounds what one in-process request of a plugin's
// client returns.
const maxAPIResponse = 16 << 20

// ocRequest is the request function of a plugin's opencode client: the
// request is served by Options.API on a goroutine (counted with the
// plugin's fetch requests), as the plugin, and answers {status,
// statusText, headers, body}.
func (l *loader) ocRequest(p *Plugin) func(method, url string, headers map[string]string, body goja.Value) *goja.Promise {
	return func(method, url string, headers map[string]string, body goja.Value) *goja.Promise {
		var data []byte
		if body != nil && !goja.IsNull(body) && !goja.IsUndefined(body) {
			data = []byte(body.String())
		}
		scope, ofNoCall, err := requestScope(p.rt)
		return p.rt.Async(len(data), func() (any, error) {
			if err != nil {
				return apiAnswer(http.StatusForbidden, nil, fmt.Sprintf(`{"name":"ForbiddenError","data":{"message":%q}}`, method+" "+url+": "+err.Error())), nil
			}
			var h http.Handler
			if l.o.API != nil {
				h = l.o.API()
			}
			if h == nil {
				return apiAnswer(http.StatusServiceUnavailable, nil, `{"name":"UnavailableError","data":{"message":"the server's sessions are not open yet (the client answers once the server runs)"}}`), nil
			}
			ctx := chat.WithScope(WithRequester(context.Background(), Requester{Plugin: p.ID, OfNoCall: ofNoCall}), scope)
			req, err := http.NewRequestWithContext(ctx, method, "http://opencode.internal"+url, bytes.NewReader(data))
			if err != nil {
				return nil, err
			}
			for k, v := range headers {
				req.Header.Set(k, v)
			}
			rec := &recorder{header: http.Header{}}
			if err := serveSafely(h, rec, req); err != nil {
				return nil, err
			}
			if rec.tooLarge {
				return nil, fmt.Errorf("%s %s: the answer is larger than %d MiB, the most a plugin's client takes", method, url, maxAPIResponse>>20)
			}
			return apiAnswer(rec.status(), rec.header, rec.body.String()), nil
		})
	}
}

// requestScope is whom a plugin's request to the API acts for: the scope
// of the hook call whose own code makes it; after an await (or in a timer),
// the tenant every call under way serves. Calls of several tenants under
// way leave the request to nobody: an error, never a guess that could hand
// one tenant's sessions to another. With no call under way, ofNoCall: the
// code is no call's (a timer, an event, or code a call left running after
// it settled), and the API decides (the server's own sessions, on a server
// without tenants).
func requestScope(rt *jsrt.Runtime) (scope chat.Scope, ofNoCall bool, err error) {
	ctxs, exact, err := rt.CallContexts()
	if err != nil {
		return chat.Scope{}, false, err
	}
	if exact {
		return chat.ScopeFrom(ctxs[0]), false, nil
	}
	if len(ctxs) == 0 {
		return chat.Scope{}, true, nil
	}
	var owner string
	for i, ctx := range ctxs {
		s := chat.ScopeFrom(ctx)
		key := s.Tenant
		switch {
		case s.TenantID > 0:
			key = store.TenantKey(s.TenantID)
		case key == "":
			key = store.DefaultTenant
		}
		if i == 0 {
			scope, owner = chat.Scope{Tenant: key, TenantID: s.TenantID}, key
		} else if key != owner {
			return chat.Scope{}, false, errors.New("the request was made after an await while the plugin served calls of several tenants: it acts for none of them (make it before the hook awaits anything)")
		}
	}
	return scope, false, nil
}

func apiAnswer(status int, header http.Header, body string) map[string]any {
	hs := []any{}
	for k, vs := range header {
		for _, v := range vs {
			hs = append(hs, []any{strings.ToLower(k), v})
		}
	}
	return map[string]any{"status": status, "statusText": http.StatusText(status), "headers": hs, "body": body}
}

// recorder keeps a handler's answer.
type recorder struct {
	header   http.Header
	code     int
	body     bytes.Buffer
	tooLarge bool
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	if r.tooLarge || r.body.Len()+len(b) > maxAPIResponse {
		r.tooLarge = true
		return 0, errors.New("answer too large")
	}
	return r.body.Write(b)
}

// serveSafely serves req, a panic of the handler's being the request's
// error rather than the end of the server.
func serveSafely(h http.Handler, w http.ResponseWriter, req *http.Request) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("%s %s: the server failed answering it: %v", req.Method, req.URL.Path, v)
		}
	}()
	h.ServeHTTP(w, req)
	return nil
}
func (r *recorder) status() int {
	if r.code == 0 {
		return http.StatusOK
	}
	return r.code
}

// opencodeID names an opencode plugin, which has no id of its own: its
// package's name, or its file's name without the extension.
func opencodeID(src source, entry string) string {
	if src.from == FromConfig && !strings.HasPrefix(src.spec, ".") && !filepath.IsAbs(src.spec) && !strings.HasPrefix(src.spec, "file:") {
		return src.spec
	}
	base := filepath.Base(entry)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// dependsOnOpencode reports whether entry is in an installed npm package
// (under node_modules) whose package.json lists opencodePackage among its
// dependencies of any kind. A project's own package.json does not count:
// a project may hold Podcode plugins and depend on opencode's SDK.
func dependsOnOpencode(entry string) bool {
	if !slices.Contains(strings.Split(filepath.ToSlash(entry), "/"), "node_modules") {
		return false
	}
	for dir := filepath.Dir(entry); ; {
		data, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err == nil {
			var pkg map[string]json.RawMessage
			if json.Unmarshal(data, &pkg) != nil {
				return false
			}
			for _, k := range []string{"dependencies", "peerDependencies", "devDependencies", "optionalDependencies"} {
				var deps map[string]any
				if json.Unmarshal(pkg[k], &deps) == nil {
					if _, ok := deps[opencodePackage]; ok {
						return true
					}
				}
			}
			return false
		}
		parent := filepath.Dir(dir)
		if parent == dir || filepath.Base(dir) == "node_modules" {
			return false
		}
		dir = parent
	}
}

// inOpencodeFolder reports whether entry lies in one of the folders
// opencode loads plugins from: .opencode/plugin or .opencode/plugins.
func inOpencodeFolder(entry string) bool {
	dir := filepath.Dir(entry)
	base := filepath.Base(dir)
	return (base == "plugin" || base == "plugins") && filepath.Base(filepath.Dir(dir)) == ".opencode"
}
