// Package opencodeapi serves, in process, the part of opencode's server API
// that the SDK client of its plugins calls (ctx.client: @opencode-ai/sdk's
// routes), over Podcode's app, agent and store. A plugin's
// client.session.get, client.app.log or client.tui.showToast is a request
// to Handler, made by the plugin runtime without a socket. It acts for the
// tenant whose turn the plugin's hook serves (the request's chat.Scope:
// that tenant's sessions, its workspace for the turns it starts), and for
// the server's own (the default tenant) outside a tenant's turn: a plugin
// never reaches another tenant's sessions. A request of code that serves
// no call (jsplugin.Requester.OfNoCall: a timer, code left running after
// its call) is the server's own only on a server without tenants; with
// tenants, the session routes refuse it (403).
//
// Plugins start before the agent exists (their server() runs in app.Boot):
// the routes of the app (health, log, toast, config, providers, paths,
// project, agents, commands) answer from then on (app.Options.PluginAPI);
// those of the sessions answer 503 until the command that runs turns
// installs the Handler with its agent (New(a, ag), App.SetPluginAPI).
//
// The routes (opencode's paths and shapes, see package opencode):
//
//	GET    /global/health               {healthy, version}
//	POST   /log                         a line in the server's log, with the plugin's id and the service
//	POST   /tui/show-toast              a log line and the event tui.toast.show
//	GET    /session                     the sessions
//	POST   /session                     a new session
//	GET    /session/{id}                one session
//	DELETE /session/{id}                deletes it
//	GET    /session/{id}/message        its messages ({info, parts}), ?limit=n for the last n
//	POST   /session/{id}/message        a prompt: a turn, answered when it ends; with noReply, a message
//	                                    added without a turn (agent.Inject)
//	POST   /session/{id}/prompt_async   a turn in the background (at most maxBackground per tenant at once)
//	POST   /session/{id}/abort          cancels the session's turn
//	GET    /config, /config/providers, /provider, /path, /project, /project/current, /agent, /command
//
// Anything else is 404 with opencode's error shape, naming the route: the
// plugin's call resolves with {error} (or throws with throwOnError).
package opencodeapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/httpjson"
	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/opencode"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/internal/version"
)

// maxBody bounds a request's body.
const maxBody = 4 << 20

// maxBackground bounds the turns promptAsync runs at once for one tenant:
// a plugin that loops on it gets 429s, not a goroutine per call, and one
// tenant's turns do not take the others' slots.
const maxBackground = 4

// Handler is the API over an app and, once there is one, its agent.
type Handler struct {
	app     *app.App
	ag      *agent.Agent // nil: the session routes answer 503
	project opencode.Project
	mux     *http.ServeMux

	bgMu sync.Mutex
	bg   map[string]int // background turns running, by tenant (maxBackground)
}

// New returns the API over a and ag; ag may be nil (see the package doc).
func New(a *app.App, ag *agent.Agent) *Handler {
	h := &Handler{app: a, ag: ag, project: opencode.ProjectAt(a.Cwd), bg: map[string]int{}}
	m := http.NewServeMux()
	m.HandleFunc("GET /global/health", h.health)
	m.HandleFunc("POST /log", h.log)
	m.HandleFunc("POST /tui/show-toast", h.toast)
	m.HandleFunc("GET /session", h.withAgent(h.withActor(h.sessions)))
	m.HandleFunc("POST /session", h.withAgent(h.withActor(h.create)))
	m.HandleFunc("GET /session/{id}", h.withAgent(h.withActor(h.session)))
	m.HandleFunc("DELETE /session/{id}", h.withAgent(h.withActor(h.delete)))
	m.HandleFunc("GET /session/{id}/message", h.withAgent(h.withActor(h.messages)))
	m.HandleFunc("POST /session/{id}/message", h.withAgent(h.withActor(h.prompt)))
	m.HandleFunc("POST /session/{id}/prompt_async", h.withAgent(h.withActor(h.promptAsync)))
	m.HandleFunc("POST /session/{id}/abort", h.withAgent(h.withActor(h.abort)))
	m.HandleFunc("GET /config", h.config)
	m.HandleFunc("GET /config/providers", h.configProviders)
	m.HandleFunc("GET /provider", h.providers)
	m.HandleFunc("GET /path", h.path)
	m.HandleFunc("GET /project", h.projects)
	m.HandleFunc("GET /project/current", h.currentProject)
	m.HandleFunc("GET /agent", h.agents)
	m.HandleFunc("GET /command", h.commands)
	m.HandleFunc("/", h.notFound)
	h.mux = m
	return h
}

// withAgent answers 503 while there is no agent.
func (h *Handler) withAgent(fn http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if h.ag == nil {
			fail(w, http.StatusServiceUnavailable, "UnavailableError", "the server's sessions are not open yet (they are once the server runs turns)")
			return
		}
		fn(w, r)
	}
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	h.mux.ServeHTTP(w, r)
}

// fail answers with opencode's error shape: {name, data: {message}}.
func fail(w http.ResponseWriter, status int, name, msg string) {
	httpjson.Write(w, status, map[string]any{"name": name, "data": map[string]any{"message": msg}})
}

func (h *Handler) failErr(w http.ResponseWriter, err error) {
	switch {
	case errors.Is(err, store.ErrNotFound):
		fail(w, http.StatusNotFound, "NotFoundError", err.Error())
	case errors.Is(err, agent.ErrBusy):
		fail(w, http.StatusConflict, "BusyError", err.Error())
	case errors.Is(err, agent.ErrShuttingDown):
		fail(w, http.StatusServiceUnavailable, "UnavailableError", err.Error())
	default:
		var rejected *agent.PromptRejected
		if errors.As(err, &rejected) {
			fail(w, http.StatusForbidden, "PromptRejectedError", err.Error())
			return
		}
		fail(w, http.StatusInternalServerError, "UnknownError", err.Error())
	}
}

// actor is whom a request acts for (see the package doc).
type actor struct {
	tenant string // the sessions' owner in the store
	id     int64  // the tenant's id, 0 for the server's own
}

// actorOf is whom r acts for. A request of code that serves no call (a
// plugin's timer, or code its call left running) is the user's own on a
// server without tenants; on one with tenants it may be a tenant's doing,
// and acts for no one: an error.
func (h *Handler) actorOf(r *http.Request) (actor, error) {
	if jsplugin.RequesterFrom(r.Context()).OfNoCall && h.app.HasTenants() {
		return actor{}, errNoCaller
	}
	s := chat.ScopeFrom(r.Context())
	switch {
	case s.TenantID > 0:
		return actor{tenant: store.TenantKey(s.TenantID), id: s.TenantID}, nil
	case s.Tenant != "":
		return actor{tenant: s.Tenant}, nil
	}
	return actor{tenant: store.DefaultTenant}, nil
}

var errNoCaller = errors.New("the request was made by code that serves no call of the plugin's (a timer, an event, or code left running after its call ended) on a server with tenants: it acts for no one's sessions")

// withActor runs fn for the request's actor, or answers 403.
func (h *Handler) withActor(fn func(w http.ResponseWriter, r *http.Request, who actor)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		who, err := h.actorOf(r)
		if err != nil {
			fail(w, http.StatusForbidden, "ForbiddenError", fmt.Sprintf("%s %s: %v", r.Method, r.URL.Path, err))
			return
		}
		fn(w, r, who)
	}
}

// turnContext is the context of a turn a request starts: not ended by the
// request, in the actor's workspace (a tenant's sandbox).
func (h *Handler) turnContext(r *http.Request, who actor) (context.Context, error) {
	ctx := context.WithoutCancel(r.Context())
	if who.id == 0 {
		return ctx, nil
	}
	ws, err := h.app.Workspace(who.id)
	if err != nil {
		return nil, err
	}
	return tool.WithWorkspace(ctx, ws), nil
}

func (a actor) turn(id, prompt string) agent.TurnRequest {
	return agent.TurnRequest{Tenant: a.tenant, TenantID: a.id, SessionID: id, Prompt: prompt, Channel: "plugin"}
}

// decode reads r's JSON body into v (an empty body leaves v as it is);
// a body that is not answers 400, and decode reports false.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	data, err := io.ReadAll(r.Body)
	if err == nil && len(strings.TrimSpace(string(data))) > 0 {
		if err = json.Unmarshal(data, v); err != nil {
			err = fmt.Errorf("%s %s: the body is not the JSON expected: %w", r.Method, r.URL.Path, err)
		}
	}
	if err != nil {
		fail(w, http.StatusBadRequest, "BadRequest", err.Error())
		return false
	}
	return true
}

func (h *Handler) notFound(w http.ResponseWriter, r *http.Request) {
	fail(w, http.StatusNotFound, "NotFoundError", fmt.Sprintf("%s %s: opencode's API in Podcode does not provide this route (docs/plugins.md lists those it does)", r.Method, r.URL.Path))
}

func (h *Handler) health(w http.ResponseWriter, r *http.Request) {
	httpjson.Write(w, http.StatusOK, map[string]any{"healthy": true, "version": version.App()})
}

// pluginLog is the server's log with the calling plugin's id.
func (h *Handler) pluginLog(ctx context.Context) *slog.Logger {
	l := h.app.Log
	if id := jsplugin.RequesterFrom(ctx).Plugin; id != "" {
		l = l.With("plugin", id)
	}
	return l
}

func (h *Handler) log(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Service string         `json:"service"`
		Level   string         `json:"level"`
		Message string         `json:"message"`
		Extra   map[string]any `json:"extra"`
	}
	if !decode(w, r, &body) {
		return
	}
	level := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}[body.Level]
	attrs := []any{"service", body.Service, "source", "client.app.log"}
	if len(body.Extra) > 0 {
		extra, _ := json.Marshal(body.Extra)
		attrs = append(attrs, "extra", string(extra))
	}
	h.pluginLog(r.Context()).Log(r.Context(), level, body.Message, attrs...)
	httpjson.Write(w, http.StatusOK, true)
}

func (h *Handler) toast(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Title    string `json:"title"`
		Message  string `json:"message"`
		Variant  string `json:"variant"`
		Duration int    `json:"duration"`
	}
	if !decode(w, r, &body) {
		return
	}
	if body.Duration <= 0 {
		body.Duration = 5000
	}
	if body.Variant == "" {
		body.Variant = "info"
	}
	attrs := []any{"variant", body.Variant, "source", "client.tui.showToast"}
	if body.Title != "" {
		attrs = append(attrs, "title", body.Title)
	}
	h.pluginLog(r.Context()).Info("plugin: toast: "+body.Message, attrs...)
	props := map[string]any{"message": body.Message, "variant": body.Variant, "duration": body.Duration}
	if body.Title != "" {
		props["title"] = body.Title
	}
	tenant := store.DefaultTenant // a toast of no known caller's is the server's own
	if who, err := h.actorOf(r); err == nil {
		tenant = who.tenant
	}
	h.app.Bus.PublishFor(tenant, opencode.ToastShown, props)
	httpjson.Write(w, http.StatusOK, true)
}

func (h *Handler) sessions(w http.ResponseWriter, r *http.Request, who actor) {
	list, err := h.ag.Store.Sessions(r.Context(), who.tenant)
	if err != nil {
		h.failErr(w, err)
		return
	}
	out := make([]map[string]any, 0, len(list))
	for _, s := range list {
		out = append(out, h.project.Session(s))
	}
	httpjson.Write(w, http.StatusOK, out)
}

func (h *Handler) create(w http.ResponseWriter, r *http.Request, who actor) {
	var body struct {
		ParentID string `json:"parentID"`
		Title    string `json:"title"`
	}
	if !decode(w, r, &body) {
		return
	}
	if body.ParentID != "" {
		if _, err := h.ag.Store.Session(r.Context(), who.tenant, body.ParentID); err != nil {
			h.failErr(w, err)
			return
		}
	}
	s, err := h.ag.NewSession(r.Context(), agent.SessionRequest{Tenant: who.tenant, TenantID: who.id, Title: body.Title, ParentID: body.ParentID, Channel: "plugin"})
	if err != nil {
		h.failErr(w, err)
		return
	}
	httpjson.Write(w, http.StatusOK, h.project.Session(s))
}

func (h *Handler) session(w http.ResponseWriter, r *http.Request, who actor) {
	s, err := h.ag.Store.Session(r.Context(), who.tenant, r.PathValue("id"))
	if err != nil {
		h.failErr(w, err)
		return
	}
	httpjson.Write(w, http.StatusOK, h.project.Session(s))
}

func (h *Handler) delete(w http.ResponseWriter, r *http.Request, who actor) {
	if err := h.ag.DeleteSession(r.Context(), who.tenant, r.PathValue("id")); err != nil {
		h.failErr(w, err)
		return
	}
	httpjson.Write(w, http.StatusOK, true)
}

func (h *Handler) messages(w http.ResponseWriter, r *http.Request, who actor) {
	id := r.PathValue("id")
	if _, err := h.ag.Store.Session(r.Context(), who.tenant, id); err != nil {
		h.failErr(w, err)
		return
	}
	msgs, err := h.ag.Store.Messages(r.Context(), id)
	if err != nil {
		h.failErr(w, err)
		return
	}
	entries := h.project.Messages(msgs)
	if n, err := strconv.Atoi(r.URL.Query().Get("limit")); err == nil && n >= 0 && n < len(entries) {
		entries = entries[len(entries)-n:]
	}
	httpjson.Write(w, http.StatusOK, entries)
}

// promptBody is session.prompt's body: its text parts are the prompt.
type promptBody struct {
	Parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"parts"`
	NoReply bool `json:"noReply"`
}

func (b promptBody) text() string {
	var parts []string
	for _, p := range b.Parts {
		if p.Type == "text" && p.Text != "" {
			parts = append(parts, p.Text)
		}
	}
	return strings.Join(parts, "\n\n")
}

// readPrompt reads a prompt's body and its text; a body without text
// answers 400 naming the SDK's method, and readPrompt reports false.
func readPrompt(w http.ResponseWriter, r *http.Request, method string) (promptBody, string, bool) {
	var body promptBody
	if !decode(w, r, &body) {
		return body, "", false
	}
	text := body.text()
	if text == "" {
		fail(w, http.StatusBadRequest, "BadRequest", method+": no text part to send")
		return body, "", false
	}
	return body, text, true
}

func (h *Handler) prompt(w http.ResponseWriter, r *http.Request, who actor) {
	id := r.PathValue("id")
	body, text, ok := readPrompt(w, r, "session.prompt")
	if !ok {
		return
	}
	if body.NoReply {
		m, err := h.ag.Inject(r.Context(), who.tenant, id, text)
		if err != nil {
			h.failErr(w, err)
			return
		}
		httpjson.Write(w, http.StatusOK, opencode.Entry{Info: h.project.Info(m), Parts: h.project.Parts(m, nil)})
		return
	}
	ctx, err := h.turnContext(r, who)
	if err != nil {
		h.failErr(w, err)
		return
	}
	res, err := h.ag.Run(ctx, who.turn(id, text))
	if err != nil {
		h.failErr(w, err)
		return
	}
	entries := h.project.Messages(res.Messages)
	for i := len(entries) - 1; i >= 0; i-- {
		if entries[i].Info["role"] == chat.RoleAssistant {
			httpjson.Write(w, http.StatusOK, entries[i])
			return
		}
	}
	fail(w, http.StatusInternalServerError, "UnknownError", "the turn stored no answer")
}

func (h *Handler) promptAsync(w http.ResponseWriter, r *http.Request, who actor) {
	id := r.PathValue("id")
	_, text, ok := readPrompt(w, r, "session.promptAsync")
	if !ok {
		return
	}
	if _, err := h.ag.Store.Session(r.Context(), who.tenant, id); err != nil {
		h.failErr(w, err)
		return
	}
	ctx, err := h.turnContext(r, who)
	if err != nil {
		h.failErr(w, err)
		return
	}
	if !h.takeBackground(who.tenant) {
		fail(w, http.StatusTooManyRequests, "TooManyRequestsError", fmt.Sprintf("session.promptAsync: %d turns started by plugins already run for this tenant; wait for one to end", maxBackground))
		return
	}
	go func() {
		defer h.doneBackground(who.tenant)
		res, err := h.ag.Run(ctx, who.turn(id, text))
		if err == nil {
			return
		}
		h.pluginLog(ctx).Warn("plugin: client.session.promptAsync: the turn failed", "session", id, "error", err.Error())
		if res == nil {
			// refused before it started: nothing else would say so
			h.app.Bus.PublishFor(who.tenant, agent.EventTurnRefused, map[string]any{"sessionID": id, "error": h.app.Redact.String(err.Error())})
		}
	}()
	w.WriteHeader(http.StatusNoContent)
}

// takeBackground takes one of tenant's background slots, if one is free.
func (h *Handler) takeBackground(tenant string) bool {
	h.bgMu.Lock()
	defer h.bgMu.Unlock()
	if h.bg[tenant] >= maxBackground {
		return false
	}
	h.bg[tenant]++
	return true
}

func (h *Handler) doneBackground(tenant string) {
	h.bgMu.Lock()
	defer h.bgMu.Unlock()
	if h.bg[tenant]--; h.bg[tenant] <= 0 {
		delete(h.bg, tenant)
	}
}

// abort cancels the session's turn, wherever it runs; it answers whether
// there was one.
func (h *Handler) abort(w http.ResponseWriter, r *http.Request, who actor) {
	s, err := h.ag.Store.Session(r.Context(), who.tenant, r.PathValue("id"))
	if err != nil {
		h.failErr(w, err)
		return
	}
	httpjson.Write(w, http.StatusOK, h.ag.CancelAnywhere(r.Context(), s))
}

func (h *Handler) config(w http.ResponseWriter, r *http.Request) {
	cfg := h.app.Config
	out := map[string]any{"$schema": "https://opencode.ai/config.json", "plugin": cfg.Plugin, "permission": cfg.Permission}
	if m, err := h.app.Models.Default(); err == nil {
		out["model"] = m.ProviderID + "/" + m.ModelID
	}
	httpjson.Write(w, http.StatusOK, out)
}

// providerList is the providers of the models Podcode knows, as opencode's
// provider list: each with its models and their limits.
func (h *Handler) providerList() ([]map[string]any, map[string]string) {
	byProvider := map[string]map[string]any{}
	var order []string
	def := map[string]string{}
	for _, name := range h.app.Models.Names() {
		m, err := h.app.Models.Lookup(name)
		if err != nil {
			continue
		}
		p := byProvider[m.ProviderID]
		if p == nil {
			p = map[string]any{"id": m.ProviderID, "name": m.ProviderID, "env": []string{}, "models": map[string]any{}}
			byProvider[m.ProviderID] = p
			order = append(order, m.ProviderID)
			def[m.ProviderID] = m.ModelID
		}
		p["models"].(map[string]any)[m.ModelID] = map[string]any{"id": m.ModelID, "name": m.ModelID, "providerID": m.ProviderID,
			"reasoning": m.Reasoning, "limit": map[string]any{"context": m.Limit.Context, "output": m.Limit.Output},
			"cost": map[string]any{"input": m.Price.Input, "output": m.Price.Output}}
	}
	out := make([]map[string]any, 0, len(order))
	for _, id := range order {
		out = append(out, byProvider[id])
	}
	return out, def
}

func (h *Handler) providers(w http.ResponseWriter, r *http.Request) {
	all, def := h.providerList()
	connected := make([]string, 0, len(all))
	for _, p := range all {
		connected = append(connected, p["id"].(string))
	}
	httpjson.Write(w, http.StatusOK, map[string]any{"all": all, "default": def, "connected": connected})
}

func (h *Handler) configProviders(w http.ResponseWriter, r *http.Request) {
	all, def := h.providerList()
	httpjson.Write(w, http.StatusOK, map[string]any{"providers": all, "default": def})
}

func (h *Handler) path(w http.ResponseWriter, r *http.Request) {
	state, _ := os.UserCacheDir()
	cfg, _ := os.UserConfigDir()
	httpjson.Write(w, http.StatusOK, map[string]any{"state": filepath.Join(state, "podcode"), "config": filepath.Join(cfg, "podcode"),
		"worktree": h.project.Worktree, "directory": h.project.Directory})
}

func (h *Handler) projectInfo() map[string]any {
	p := map[string]any{"id": h.project.ID(), "worktree": h.project.Worktree, "time": map[string]any{"created": 0}, "sandboxes": []string{}}
	if h.project.VCS != "" {
		p["vcs"] = h.project.VCS
	}
	return p
}

func (h *Handler) projects(w http.ResponseWriter, r *http.Request) {
	httpjson.Write(w, http.StatusOK, []map[string]any{h.projectInfo()})
}

func (h *Handler) currentProject(w http.ResponseWriter, r *http.Request) {
	httpjson.Write(w, http.StatusOK, h.projectInfo())
}

func (h *Handler) agents(w http.ResponseWriter, r *http.Request) {
	httpjson.Write(w, http.StatusOK, []map[string]any{{"name": opencode.Agent, "mode": "primary", "builtIn": true, "options": map[string]any{}, "permission": map[string]any{}, "tools": map[string]any{}}})
}

func (h *Handler) commands(w http.ResponseWriter, r *http.Request) {
	httpjson.Write(w, http.StatusOK, []any{})
}
