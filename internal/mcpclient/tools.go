package mcpclient

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/tool"
)

// maxToolID is the longest tool id Podcode gives an MCP tool: OpenAI's
// limit on a function name.
const maxToolID = 64

// maxTools bounds the tools one server may register.
const maxTools = 512

// ToolID is the id an MCP server's tool is registered as: <server>_<tool>,
// with every character outside [A-Za-z0-9_-] replaced by "_" (providers
// take no others in a function name), cut to 64 characters with a short
// hash of the full name when longer. The server's name comes first so
// that the id says where the tool comes from, and a permission rule
// "<server>_*" covers a server's tools. Two servers' ids can be the same
// ("_" separates the names and may be in them: server gh's tool x_y and
// server gh_x's tool y): the first to register it keeps it (register), and
// Specs leaves out a project's server whose name so overlaps another's.
func ToolID(server, name string) string {
	id := sanitize(server + "_" + name)
	if len(id) > maxToolID {
		sum := sha256.Sum256([]byte(server + "\x00" + name))
		id = id[:maxToolID-9] + "_" + hex.EncodeToString(sum[:4])
	}
	return id
}

// ClaudeName is the name Claude Code gives the tool: mcp__<server>__<tool>.
// A .claude matcher or a permission rule may name a tool so. Both names
// are sanitized as ToolID's are: the tool's name is the server's to
// choose, and a "/" in it would escape a rule "mcp__<server>__*", whose
// "*" does not match "/".
func ClaudeName(server, name string) string {
	return "mcp__" + sanitize(server) + "__" + sanitize(name)
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, s)
}

// list lists the server's tools in session and makes the registry's MCP
// tools of this server those: added, replaced, removed (step 3). The first
// list of a session makes it the one calls use; a later one (relist) whose
// session has since been replaced changes nothing.
func (s *Server) list(ctx context.Context, session *sdk.ClientSession, first bool) error {
	s.listMu.Lock() // one list at a time, so that registrations do not interleave
	defer s.listMu.Unlock()
	var tools []*sdk.Tool
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			return err
		}
		if len(tools) == maxTools {
			s.log.Warn("mcp: the server lists more tools than Podcode takes from one server; the rest are left out", "max", maxTools)
			break
		}
		tools = append(tools, t)
	}
	s.mu.Lock()
	if !first && s.session != session {
		s.mu.Unlock()
		return nil
	}
	s.session = session
	s.mu.Unlock()
	s.register(tools)
	return nil
}

// relist lists the tools again after notifications/tools/list_changed,
// bounded by ctx, the connection's. Before the first list has set the
// session, there is nothing to do: that list, still under way, sees the
// change.
func (s *Server) relist(ctx context.Context) {
	s.mu.Lock()
	session := s.session
	s.mu.Unlock()
	if session == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, s.startTimeout())
	defer cancel()
	if err := s.list(ctx, session, false); err != nil {
		s.log.Warn("mcp: listing the tools again after the server said they changed failed", "error", err.Error())
		return
	}
	s.log.Info("mcp: tools listed again", "tools", len(s.Status().Tools))
}

// register syncs the registry with tools. An id another source holds
// already (another server's tool whose id is the same: "_" both separates
// the names and may be in them) stays that source's: the first to
// register an id keeps it, and the tool that would take it is left out
// with a warning that names both.
func (s *Server) register(tools []*sdk.Tool) {
	reg := s.set.opts.Tools
	source := "mcp:" + s.spec.Name
	next := map[string]string{}
	for _, t := range tools {
		id := ToolID(s.spec.Name, t.Name)
		if other, dup := next[id]; dup {
			s.log.Warn("mcp: two tools of the server get the same id; the second is left out", "tool", t.Name, "other", other, "id", id)
			continue
		}
		schema, err := inputSchema(t)
		if err != nil {
			s.log.Warn("mcp: the tool's input schema is not usable; the tool is left out", "tool", t.Name, "error", err.Error())
			continue
		}
		desc := t.Description
		if desc == "" {
			desc = t.Title
		}
		d := &tool.Def{ID: id, Description: desc, Parameters: schema, Source: source,
			Alias: ClaudeName(s.spec.Name, t.Name), Execute: s.execute(t.Name)}
		holder, err := reg.AddIfAbsent(d)
		if err != nil {
			s.log.Warn("mcp: the tool is left out", "tool", t.Name, "error", err.Error())
			continue
		}
		if holder != nil {
			s.log.Warn("mcp: a tool of another source has the id already and keeps it; the server's tool is left out",
				"tool", t.Name, "id", id, "held_by", holder.Source)
			continue
		}
		next[id] = t.Name
	}
	s.mu.Lock()
	old := s.registered
	s.registered = next
	s.mu.Unlock()
	for id := range old {
		if _, still := next[id]; !still {
			reg.Remove(id, source)
		}
	}
}

// inputSchema is the tool's input schema as JSON, an object schema.
func inputSchema(t *sdk.Tool) (json.RawMessage, error) {
	if t.InputSchema == nil {
		return json.RawMessage(`{"type":"object"}`), nil
	}
	raw, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, err
	}
	var probe struct {
		Type any `json:"type"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if probe.Type != "object" {
		return nil, fmt.Errorf("its type is %v, not object", probe.Type)
	}
	return raw, nil
}

// execute is the Execute of one of the server's tools: the call, with the
// turn's cancellation and the server's time limit. A result the server
// marks as an error is the call's error, as a built-in's failure is.
func (s *Server) execute(name string) func(ctx context.Context, call tool.Call, args map[string]any) (tool.Result, error) {
	return func(ctx context.Context, call tool.Call, args map[string]any) (tool.Result, error) {
		session, err := s.currentSession()
		if err != nil {
			return tool.Result{}, err
		}
		limit := s.callTimeout()
		ctx, cancel := context.WithTimeout(ctx, limit)
		defer cancel()
		res, err := s.callTool(ctx, session, name, args)
		switch {
		case err == nil:
		case errors.Is(ctx.Err(), context.DeadlineExceeded) && context.Cause(ctx) == context.DeadlineExceeded:
			return tool.Result{}, fmt.Errorf("MCP server %q: %s did not answer within %s", s.spec.Name, name, limit)
		case errors.Is(err, ErrNeedsAuthorization):
			// Not the authorization URL: the model and a tenant read this
			// (the user finds it in the log and in `podcode mcp list`).
			return tool.Result{}, fmt.Errorf("MCP server %q: %s: %w: the user must sign in (podcode mcp auth %s)", s.spec.Name, name, ErrNeedsAuthorization, s.spec.Name)
		default:
			return tool.Result{}, fmt.Errorf("MCP server %q: %s: %w", s.spec.Name, name, err)
		}
		out, meta := Render(res)
		if res.IsError {
			return tool.Result{}, errors.New(out)
		}
		meta["server"] = s.spec.Name
		return tool.Result{Title: s.spec.Name + ": " + name, Output: out, Metadata: meta, Attachments: Attachments(res)}, nil
	}
}

// Render is the text the model reads of a tool's result, bounded by
// tool.MaxOutputBytes: text as it is; an image or audio described (its
// type and size: the providers Podcode speaks to take no images in a tool
// result); a resource link by its name and URI; an embedded resource by
// its text, or described when it is binary; structured content as JSON
// when there is no other content. meta counts what was described, and
// says whether the output was cut.
func Render(res *sdk.CallToolResult) (string, map[string]any) {
	var b strings.Builder
	meta := map[string]any{}
	count := func(k string) {
		n, _ := meta[k].(int)
		meta[k] = n + 1
	}
	for i, c := range res.Content {
		if i > 0 {
			b.WriteString("\n")
		}
		switch c := c.(type) {
		case *sdk.TextContent:
			b.WriteString(c.Text)
		case *sdk.ImageContent:
			fmt.Fprintf(&b, "[image: %s, %d bytes]", c.MIMEType, len(c.Data))
			count("images")
		case *sdk.AudioContent:
			fmt.Fprintf(&b, "[audio: %s, %d bytes]", c.MIMEType, len(c.Data))
			count("audio")
		case *sdk.ResourceLink:
			fmt.Fprintf(&b, "[resource link: %s <%s>", c.Name, c.URI)
			if c.MIMEType != "" {
				fmt.Fprintf(&b, " (%s)", c.MIMEType)
			}
			b.WriteString("]")
			count("resource_links")
		case *sdk.EmbeddedResource:
			r := c.Resource
			switch {
			case r == nil:
				b.WriteString("[resource]")
			case r.Text != "":
				fmt.Fprintf(&b, "[resource <%s>]\n%s", r.URI, r.Text)
			default:
				fmt.Fprintf(&b, "[resource <%s>: %s, %d bytes]", r.URI, r.MIMEType, len(r.Blob))
			}
			count("resources")
		default:
			fmt.Fprintf(&b, "[content of type %T]", c)
		}
		if b.Len() > tool.MaxOutputBytes {
			break
		}
	}
	if len(res.Content) == 0 && res.StructuredContent != nil {
		if raw, err := json.Marshal(res.StructuredContent); err == nil {
			b.Write(raw)
		}
	}
	out := b.String()
	if len(out) > tool.MaxOutputBytes {
		cut := tool.MaxOutputBytes
		for cut > 0 && !utf8Start(out[cut]) {
			cut--
		}
		out = out[:cut] + fmt.Sprintf("\n[output cut at %d bytes]", tool.MaxOutputBytes)
		meta["truncated"] = true
	}
	return out, meta
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

// Attachments are a result's images, audio and embedded resources as they
// came (Render describes them in text), at most tool.MaxAttachmentBytes of
// them in all: past that, the rest are only described.
func Attachments(res *sdk.CallToolResult) []tool.Attachment {
	var out []tool.Attachment
	size := 0
	for _, c := range res.Content {
		var a tool.Attachment
		switch c := c.(type) {
		case *sdk.ImageContent:
			a = tool.Attachment{MIMEType: c.MIMEType, Data: c.Data}
		case *sdk.AudioContent:
			a = tool.Attachment{MIMEType: c.MIMEType, Data: c.Data}
		case *sdk.EmbeddedResource:
			if c.Resource == nil {
				continue
			}
			a = tool.Attachment{MIMEType: c.Resource.MIMEType, URI: c.Resource.URI, Text: c.Resource.Text, Data: c.Resource.Blob}
		default:
			continue
		}
		if size += len(a.Data) + len(a.Text); size > tool.MaxAttachmentBytes {
			break
		}
		out = append(out, a)
	}
	return out
}
