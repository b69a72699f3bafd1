package mcpclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/tool"
)

// The ids of the resource tools, and Claude Code's names of them (their
// aliases: a .claude matcher ReadMcpResourceTool matches the read, and a
// hook's input names it so).
const (
	ListResourcesToolID = "mcp_list_resources"
	ReadResourceToolID  = "mcp_read_resource"
	listResourcesClaude = "ListMcpResourcesTool"
	readResourceClaude  = "ReadMcpResourceTool"
)

// Resource is one of a server's resources, as resources/list gives it.
type Resource struct {
	URI         string `json:"uri"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Size        int64  `json:"size,omitempty"`
}

// ResourceTemplate is one of a server's resource templates (RFC 6570).
type ResourceTemplate struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
}

// listResources lists the server's resources and resource templates
// (resources/list, resources/templates/list, bounded) and makes them the
// server's, if session is still the one calls use. A server whose
// templates cannot be listed (an older one) has none.
func (s *Server) listResources(ctx context.Context, session *sdk.ClientSession) error {
	got, cut, err := pages(ctx, maxResources, func(ctx context.Context, cursor string) ([]*sdk.Resource, string, error) {
		res, err := session.ListResources(ctx, &sdk.ListResourcesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.Resources, res.NextCursor, nil
	})
	if err != nil {
		return err
	}
	if cut {
		s.log.Warn("mcp: the server lists more resources than Podcode takes from one server; the rest are left out", "max", maxResources)
	}
	var resources []Resource
	for _, r := range got {
		if r == nil || r.URI == "" {
			continue
		}
		desc := r.Description
		if desc == "" {
			desc = r.Title
		}
		resources = append(resources, Resource{URI: r.URI, Name: r.Name, Description: chat.Shorten(desc, maxDescription), MIMEType: r.MIMEType, Size: r.Size})
	}
	var templates []ResourceTemplate
	tpl, cut, err := pages(ctx, maxTemplates, func(ctx context.Context, cursor string) ([]*sdk.ResourceTemplate, string, error) {
		res, err := session.ListResourceTemplates(ctx, &sdk.ListResourceTemplatesParams{Cursor: cursor})
		if err != nil {
			return nil, "", err
		}
		return res.ResourceTemplates, res.NextCursor, nil
	})
	switch {
	case err != nil:
		s.log.Info("mcp: the server's resource templates are not listed", "error", err.Error())
	case cut:
		s.log.Warn("mcp: the server lists more resource templates than Podcode takes from one server; the rest are left out", "max", maxTemplates)
	}
	for _, t := range tpl {
		if t == nil || t.URITemplate == "" {
			continue
		}
		desc := t.Description
		if desc == "" {
			desc = t.Title
		}
		templates = append(templates, ResourceTemplate{URITemplate: t.URITemplate, Name: t.Name, Description: chat.Shorten(desc, maxDescription), MIMEType: t.MIMEType})
	}
	s.current(session, func() { s.offered.resourceList, s.offered.templateList = resources, templates })
	return nil
}

// ReadResource reads the resource at uri (resources/read), with the
// call's cancellation and the server's time limit, and returns the text
// the model reads of it (RenderResource) and what it counted.
func (s *Server) ReadResource(ctx context.Context, uri string) (string, map[string]any, error) {
	session, err := s.currentSession()
	if err != nil {
		return "", nil, err
	}
	s.mu.Lock()
	offers := s.offered.resources
	s.mu.Unlock()
	if !offers {
		return "", nil, fmt.Errorf("MCP server %q offers no resources", s.spec.Name)
	}
	limit := s.callTimeout()
	ctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	res, err := session.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	switch {
	case err == nil:
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && context.Cause(ctx) == context.DeadlineExceeded:
		return "", nil, fmt.Errorf("MCP server %q: reading %s did not answer within %s", s.spec.Name, uri, limit)
	default:
		return "", nil, fmt.Errorf("MCP server %q: reading %s: %w", s.spec.Name, uri, err)
	}
	out, meta := RenderResource(res)
	meta["server"], meta["uri"] = s.spec.Name, uri
	return out, meta, nil
}

// RenderResource is the text the model reads of a resource: each of its
// contents' text as it is, a binary one described ("[binary: image/png,
// 1234 bytes]"), a content of another URI than the first under its URI;
// at most tool.MaxOutputBytes, then cut with a note (as Render cuts a
// tool's result). meta counts the binary contents and says whether the
// text was cut.
func RenderResource(res *sdk.ReadResourceResult) (string, map[string]any) {
	var content []sdk.Content
	first := ""
	binary := 0
	for _, c := range res.Contents {
		if c == nil {
			continue
		}
		var text string
		switch {
		case c.Text != "" || len(c.Blob) == 0:
			text = c.Text
		default:
			mime := c.MIMEType
			if mime == "" {
				mime = "application/octet-stream"
			}
			text = fmt.Sprintf("[binary: %s, %d bytes]", mime, len(c.Blob))
			binary++
		}
		if first == "" {
			first = c.URI
		} else if c.URI != first {
			text = fmt.Sprintf("[resource <%s>]\n%s", c.URI, text)
		}
		content = append(content, &sdk.TextContent{Text: text})
	}
	if len(content) == 0 {
		content = append(content, &sdk.TextContent{Text: "(the resource is empty)"})
	}
	out, meta := Render(&sdk.CallToolResult{Content: content})
	if binary > 0 {
		meta["binary"] = binary
	}
	return out, meta
}

// errTenantResources refuses a tenant's call of the resource tools: the
// servers are the user's, and their resources' URIs and contents may be the
// user's files (what /healthz keeps from tenants too).
var errTenantResources = errors.New("the MCP servers' resources are the server owner's: a tenant cannot list or read them")

// ownersOnly is exec, refused for a tenant's call (errTenantResources).
func ownersOnly(exec func(context.Context, tool.Call, map[string]any) (tool.Result, error)) func(context.Context, tool.Call, map[string]any) (tool.Result, error) {
	return func(ctx context.Context, call tool.Call, args map[string]any) (tool.Result, error) {
		if chat.ScopeFrom(ctx).TenantID != 0 {
			return tool.Result{}, errTenantResources
		}
		return exec(ctx, call, args)
	}
}

// resourceTools are the tools through which the model lists and reads the
// resources of every server of the hub (Claude Code's ListMcpResourcesTool
// and ReadMcpResourceTool), and through which an @server:uri mention is
// read, so that each read passes the hooks and the permission rules as any
// tool call does. A tenant's call is refused (errTenantResources).
func (h *Hub) resourceTools() []*tool.Def {
	list, _ := json.Marshal(map[string]any{
		"type": "object", "additionalProperties": false,
		"properties": map[string]any{"server": map[string]any{"type": "string", "description": "the MCP server whose resources to list; all servers when left out"}},
	})
	read, _ := json.Marshal(map[string]any{
		"type": "object", "required": []string{"server", "uri"}, "additionalProperties": false,
		"properties": map[string]any{
			"server": map[string]any{"type": "string", "description": "the MCP server's name"},
			"uri":    map[string]any{"type": "string", "description": "the resource's URI, as listed (or made from a listed URI template)"},
		},
	})
	return []*tool.Def{
		{ID: ListResourcesToolID, Source: tool.Builtin, Alias: listResourcesClaude, Parameters: list,
			Description: "List the resources (and resource templates) the MCP servers offer: data such as files, records or pages, each by its URI. Read one with " + ReadResourceToolID + ".",
			Execute: ownersOnly(func(ctx context.Context, _ tool.Call, args map[string]any) (tool.Result, error) {
				name, _ := args["server"].(string)
				return h.listTool(ctx, name)
			})},
		{ID: ReadResourceToolID, Source: tool.Builtin, Alias: readResourceClaude, Parameters: read,
			Description: "Read a resource of an MCP server by its URI (see " + ListResourcesToolID + ").",
			Execute: ownersOnly(func(ctx context.Context, _ tool.Call, args map[string]any) (tool.Result, error) {
				name, _ := args["server"].(string)
				uri, _ := args["uri"].(string)
				s, err := h.named(name)
				if err != nil {
					return tool.Result{}, err
				}
				out, meta, err := s.ReadResource(ctx, uri)
				if err != nil {
					return tool.Result{}, err
				}
				return tool.Result{Title: name + ": " + uri, Output: out, Metadata: meta}, nil
			})},
	}
}

// named is the server named name, or an error that lists the servers.
func (h *Hub) named(name string) (*Server, error) {
	if s := h.Server(name); s != nil {
		return s, nil
	}
	var names []string
	for _, s := range h.servers() {
		names = append(names, s.spec.Name)
	}
	return nil, fmt.Errorf("no MCP server %q (the servers: %s)", name, strings.Join(names, ", "))
}

// listTool is the list tool's answer: each server's resources and
// templates, as last listed (a server that is not running says so).
func (h *Hub) listTool(ctx context.Context, name string) (tool.Result, error) {
	servers := h.servers()
	if name != "" {
		s, err := h.named(name)
		if err != nil {
			return tool.Result{}, err
		}
		servers = []*Server{s}
	}
	var b strings.Builder
	count := 0
	for _, s := range servers {
		if ctx.Err() != nil {
			return tool.Result{}, ctx.Err()
		}
		s.mu.Lock()
		state, offers := s.state, s.offered.resources
		resources, templates := s.offered.resourceList, s.offered.templateList
		s.mu.Unlock()
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		switch {
		case state != StateReady:
			fmt.Fprintf(&b, "%s: not running (%s)\n", s.spec.Name, state)
			continue
		case !offers:
			fmt.Fprintf(&b, "%s: offers no resources\n", s.spec.Name)
			continue
		case len(resources)+len(templates) == 0:
			fmt.Fprintf(&b, "%s: no resources\n", s.spec.Name)
			continue
		}
		fmt.Fprintf(&b, "%s:\n", s.spec.Name)
		for _, r := range resources {
			fmt.Fprintf(&b, "- %s", r.URI)
			describe(&b, r.Name, r.MIMEType, r.Description)
			count++
		}
		if len(templates) > 0 {
			b.WriteString("templates (fill in the {…} parts to make a URI):\n")
			for _, t := range templates {
				fmt.Fprintf(&b, "- %s", t.URITemplate)
				describe(&b, t.Name, t.MIMEType, t.Description)
			}
		}
	}
	out, meta := Render(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.TrimRight(b.String(), "\n")}}})
	meta["resources"] = count
	return tool.Result{Title: "MCP resources", Output: out, Metadata: meta}, nil
}

func describe(b *strings.Builder, name, mime, desc string) {
	if name != "" {
		fmt.Fprintf(b, " %s", name)
	}
	if mime != "" {
		fmt.Fprintf(b, " (%s)", mime)
	}
	if desc != "" {
		fmt.Fprintf(b, ": %s", strings.Join(strings.Fields(desc), " "))
	}
	b.WriteString("\n")
}

// Mention is an @server:uri in a prompt.
type Mention struct {
	Server, URI string
}

// String is the mention as written.
func (m Mention) String() string { return "@" + m.Server + ":" + m.URI }

// mention is Claude Code's @server:uri: a server's name (letters, digits,
// "_" and "-") and what follows its ":" to the next space, at the start
// of the text or after a space or "(".
var mention = regexp.MustCompile(`(^|[\s(])@([A-Za-z0-9_-]+):(\S+)`)

// Mentions are the @server:uri mentions of text of a server known says it
// knows, each once, in order. Punctuation that ends a sentence is not part
// of the URI, nor a ")" that closes a parenthesis the URI did not open.
func Mentions(text string, known func(server string) bool) []Mention {
	var out []Mention
	seen := map[Mention]bool{}
	for _, m := range mention.FindAllStringSubmatch(text, -1) {
		uri := strings.TrimRight(m[3], ".,;:!?")
		if strings.HasSuffix(uri, ")") && !strings.Contains(uri, "(") {
			uri = strings.TrimRight(strings.TrimSuffix(uri, ")"), ".,;:!?")
		}
		men := Mention{Server: m[2], URI: uri}
		if uri == "" || seen[men] || !known(men.Server) {
			continue
		}
		seen[men] = true
		out = append(out, men)
	}
	return out
}

// ExpandMentions is text with the resources its mentions name appended,
// as Claude Code attaches them and as a command's @path is attached: the
// text stays as written, and each mention of a server known says it knows
// adds "Contents of @server:uri:" and the resource, read by read (the
// resource tool, through the hooks); one that cannot be read adds why. A
// mention of no server stays text (an address, a handle), without a read.
func ExpandMentions(ctx context.Context, text string, known func(server string) bool,
	read func(ctx context.Context, server, uri string) (string, error)) (string, error) {
	var b strings.Builder
	b.WriteString(text)
	for _, m := range Mentions(text, known) {
		content, err := read(ctx, m.Server, m.URI)
		switch {
		case err != nil && ctx.Err() != nil:
			return "", ctx.Err()
		case err != nil:
			fmt.Fprintf(&b, "\n\n%s could not be read: %v", m, err)
		default:
			fmt.Fprintf(&b, "\n\nContents of %s:\n%s", m, content)
		}
	}
	return b.String(), nil
}
