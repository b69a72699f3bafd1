package mcpclient

import (
	"context"
	"log/slog"
	"slices"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/tool"
)

// What a server offers besides its tools: its prompts (prompts.go: the
// slash commands /mcp__<server>__<prompt>) and its resources (resources.go:
// @server:uri mentions and the mcp_list_resources / mcp_read_resource
// tools).
//
// Lifecycle: a server's prompts and resources are listed once its tools
// are (connect, after the start, bounded apart), when it advertises them;
// notifications/prompts/list_changed and notifications/resources/list_changed
// list them again (coalesced as tools/list_changed is: Server.coalesce). A list
// that fails is a warning: the server is ready with its tools, and offers
// what it offered before. What a server offered stays known while it is
// down (as its tools stay registered); Hub.Prompts lists only the prompts
// of servers that are ready, and using one of a server that is not running
// says so.

// Bounds of what one server may offer, and of one list.
const (
	maxPrompts   = 512
	maxResources = 1000
	maxTemplates = 200
	// maxPages bounds the pages of one list: a server whose cursors never
	// end (or whose pages are empty) is cut there.
	maxPages = 50
	// maxDescription bounds a prompt's or a resource's description as
	// listings show it.
	maxDescription = 300
)

// offers is what a server offers besides its tools, as last listed;
// Server.mu guards it.
type offers struct {
	prompts, resources bool // the server advertises them (its capabilities)
	promptList         []Prompt
	resourceList       []Resource
	templateList       []ResourceTemplate
}

// Hub is the servers of every Set started on one tool registry (the
// project's, an editor's over ACP): where a slash command finds an MCP
// server's prompt, an @server:uri mention its server, and what the
// resource tools read from. The first Set added with a registry registers
// the resource tools (ListResourcesToolID, ReadResourceToolID) in it, as
// built-ins, before any server of the Set starts, so that no server's tool
// takes their ids. Its methods are safe for concurrent use, and on nil (no
// server at all).
type Hub struct {
	mu    sync.Mutex
	sets  []*Set
	tools bool // the resource tools are registered
}

// NewHub returns an empty hub.
func NewHub() *Hub { return &Hub{} }

// register registers the resource tools in reg, the first time (Start,
// before its servers start).
func (h *Hub) register(reg *tool.Registry, log *slog.Logger) {
	h.mu.Lock()
	first := reg != nil && !h.tools
	h.tools = h.tools || first
	h.mu.Unlock()
	if !first {
		return
	}
	for _, d := range h.resourceTools() {
		if err := reg.Add(d); err != nil {
			log.Warn("mcp: a resource tool is not registered", "tool", d.ID, "error", err.Error())
		}
	}
}

// add adds set, whose servers are fixed (Start, once they are made).
func (h *Hub) add(set *Set) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sets = append(h.sets, set)
}

// remove removes set (Set.Close).
func (h *Hub) remove(set *Set) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sets = slices.DeleteFunc(h.sets, func(s *Set) bool { return s == set })
}

// servers are the servers of every set, in the order the sets were added.
func (h *Hub) servers() []*Server {
	if h == nil {
		return nil
	}
	h.mu.Lock()
	sets := slices.Clone(h.sets)
	h.mu.Unlock()
	var out []*Server
	for _, set := range sets {
		out = append(out, set.servers...)
	}
	return out
}

// Server is the server named name, nil when there is none.
func (h *Hub) Server(name string) *Server {
	for _, s := range h.servers() {
		if s.spec.Name == name {
			return s
		}
	}
	return nil
}

// listOffers lists what session's server offers besides its tools, after
// its first list of tools (connect): the prompts and the resources it
// advertises. A failed list is a warning, and the server starts anyway.
func (s *Server) listOffers(ctx context.Context, session *sdk.ClientSession) {
	var caps *sdk.ServerCapabilities
	if init := session.InitializeResult(); init != nil {
		caps = init.Capabilities
	}
	s.mu.Lock()
	s.offered.prompts = caps != nil && caps.Prompts != nil
	s.offered.resources = caps != nil && caps.Resources != nil
	prompts, resources := s.offered.prompts, s.offered.resources
	if !prompts {
		s.offered.promptList = nil
	}
	if !resources {
		s.offered.resourceList, s.offered.templateList = nil, nil
	}
	s.mu.Unlock()
	s.listSome(ctx, session, prompts, resources)
}

// relistOffers lists the prompts, or the resources, again after the
// server said they changed, bounded by the start bound. Before the first
// list has set the session there is nothing to do: that list sees the
// change.
func (s *Server) relistOffers(ctx context.Context, prompts, resources bool) {
	s.mu.Lock()
	session := s.session
	prompts = prompts && s.offered.prompts
	resources = resources && s.offered.resources
	s.mu.Unlock()
	if session == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, s.startTimeout())
	defer cancel()
	s.listSome(ctx, session, prompts, resources)
}

func (s *Server) listSome(ctx context.Context, session *sdk.ClientSession, prompts, resources bool) {
	s.offerMu.Lock() // one list at a time, so that a late list does not replace a newer one
	defer s.offerMu.Unlock()
	if prompts {
		if err := s.listPrompts(ctx, session); err != nil {
			s.log.Warn("mcp: listing the server's prompts failed; its slash commands are those of the last list", "error", err.Error())
		}
	}
	if resources {
		if err := s.listResources(ctx, session); err != nil {
			s.log.Warn("mcp: listing the server's resources failed; they are those of the last list", "error", err.Error())
		}
	}
}

// current runs fn under the server's lock if session is still the one
// calls use (a list of a session replaced since changes nothing).
func (s *Server) current(session *sdk.ClientSession, fn func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.session == session {
		fn()
	}
}

// pages gathers the items of a paginated list, at most max of them and
// maxPages pages; cut says the list was longer.
func pages[T any](ctx context.Context, max int, page func(ctx context.Context, cursor string) ([]T, string, error)) (items []T, cut bool, err error) {
	cursor := ""
	for n := 0; ; n++ {
		if n == maxPages {
			return items, true, nil
		}
		got, next, err := page(ctx, cursor)
		if err != nil {
			return nil, false, err
		}
		for _, it := range got {
			if len(items) == max {
				return items, true, nil
			}
			items = append(items, it)
		}
		if next == "" {
			return items, false, nil
		}
		cursor = next
	}
}

// status adds what o lists to st.
func (o *offers) status(st *Status) {
	for _, p := range o.promptList {
		st.Prompts = append(st.Prompts, p.Command)
	}
	for _, r := range o.resourceList {
		st.Resources = append(st.Resources, r.URI)
	}
	for _, t := range o.templateList {
		st.ResourceTemplates = append(st.ResourceTemplates, t.URITemplate)
	}
}
