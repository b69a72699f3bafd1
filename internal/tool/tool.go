// Package tool defines what a tool is for Podcode, whoever wrote it (a
// built-in, a plugin), the registry that merges them by id (SPEC H10), the
// validation of arguments against a tool's schema, and the built-in tools.
//
// A tool's life in one call, as the runner drives it (the hooks themselves
// are not this package's business):
//
//  1. Validate: the model's arguments are checked against Parameters (or by
//     Def.Validate when the tool brings its own validator, as a zod schema
//     does); an error names the field.
//  2. The host's policies and the tool.execute.before pipeline may rewrite
//     the arguments; rewritten arguments are validated again.
//  3. Execute runs with a context that ends when the call is cancelled or
//     times out.
//  4. The Result goes through tool.execute.after, then to the model.
package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
)

// Source of built-in tools in Def.Source.
const Builtin = "builtin"

// Def is one tool.
type Def struct {
	ID          string
	Description string          // what the model reads to decide when to call it
	Parameters  json.RawMessage // JSON Schema of the arguments object
	Source      string          // Builtin, the id of the plugin that registered it, or "mcp:<server>"
	// Alias is another name rules and hooks know the tool by: Claude Code's
	// mcp__<server>__<tool> for an MCP server's tool (a permission rule or
	// a .claude matcher may name either). Empty for most tools.
	Alias string
	// Validate checks arguments and returns those Execute receives (a zod
	// schema may transform them). Nil means: validate against Parameters.
	Validate func(ctx context.Context, args map[string]any) (map[string]any, error)
	Execute  func(ctx context.Context, call Call, args map[string]any) (Result, error)

	once   sync.Once
	schema *compiledSchema
	err    error
}

// Call identifies one tool call; plugins see it as execute's ctx.
type Call struct {
	SessionID string `json:"sessionID"`
	MessageID string `json:"messageID"`
	CallID    string `json:"callID"`
	Agent     string `json:"agent"`
	Cwd       string `json:"cwd"`
}

// Result is what a tool returns. Output is what the model reads; Title and
// Metadata are for people and interfaces.
type Result struct {
	Title    string         `json:"title"`
	Output   string         `json:"output"`
	Metadata map[string]any `json:"metadata,omitempty"`
	// Attachments are what the result holds besides text (an image read,
	// an MCP tool's audio): Output describes each, for the model and the
	// hooks; an MCP client of Podcode's server gets them as they are.
	// They are not stored, and a tool.execute.after hook that changes the
	// result drops them: what a redactor could not see, it cannot vouch for.
	Attachments []Attachment `json:"-"`
}

// MaxAttachmentBytes bounds the attachments of one result.
const MaxAttachmentBytes = 10 << 20

// Attachment is content of a result that is not text.
type Attachment struct {
	MIMEType string // image/png, audio/wav, text/plain, ...
	Data     []byte // an image's or audio's bytes, or a binary resource's
	URI      string // set for a resource (embedded in the result), else ""
	Text     string // a text resource's text
}

// Kind is what a is: "image", "audio" or "resource".
func (a Attachment) Kind() string {
	switch {
	case a.URI != "":
		return "resource"
	case strings.HasPrefix(a.MIMEType, "image/"):
		return "image"
	case strings.HasPrefix(a.MIMEType, "audio/"):
		return "audio"
	}
	return "resource"
}

// Check validates args for d (step 1 of the call).
func (d *Def) Check(ctx context.Context, args map[string]any) (map[string]any, error) {
	if args == nil {
		args = map[string]any{}
	}
	if d.Validate != nil {
		return d.Validate(ctx, args)
	}
	d.once.Do(func() { d.schema, d.err = compileSchema(d.Parameters) })
	if d.err != nil {
		return nil, fmt.Errorf("tool %s: bad parameters schema: %w", d.ID, d.err)
	}
	if err := d.schema.validate(args); err != nil {
		return nil, fmt.Errorf("invalid arguments for %s: %w", d.ID, err)
	}
	return args, nil
}

// IsProtected reports whether id belongs to a built-in whose execute carries
// a security gate; a plugin may not replace it (SPEC H10).
func IsProtected(id string) bool {
	switch id {
	case "read", "write", "edit", "bash", "webfetch", "task":
		return true
	}
	return strings.HasPrefix(id, "browser_")
}

// Registry holds the tools by id. It is safe for concurrent use.
type Registry struct {
	log      *slog.Logger
	mu       sync.RWMutex
	tools    map[string]*Def
	watchers map[int]func()
	nextW    int
}

// Watch calls fn after every change of the registry (a tool added,
// replaced or removed: an MCP server's tools come and go), outside the
// registry's lock, until stop is called. fn must not block.
func (r *Registry) Watch(fn func()) (stop func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.watchers == nil {
		r.watchers = map[int]func(){}
	}
	id := r.nextW
	r.nextW++
	r.watchers[id] = fn
	return func() {
		r.mu.Lock()
		delete(r.watchers, id)
		r.mu.Unlock()
	}
}

func (r *Registry) changed() {
	r.mu.RLock()
	fns := make([]func(), 0, len(r.watchers))
	for _, fn := range r.watchers {
		fns = append(fns, fn)
	}
	r.mu.RUnlock()
	for _, fn := range fns {
		fn()
	}
}

// NewRegistry returns an empty registry that logs refusals to logger.
func NewRegistry(logger *slog.Logger) *Registry {
	if logger == nil {
		logger = slog.Default()
	}
	return &Registry{log: logger, tools: map[string]*Def{}}
}

// Add merges d by id: a later tool replaces an earlier one with the same id,
// except that a protected id belongs to the built-ins: a plugin tool with
// such an id is refused, logged, and returned as an error, whether or not
// the built-in exists yet (the browser_* family is reserved as a whole).
func (r *Registry) Add(d *Def) error {
	_, err := r.add(d, false)
	return err
}

// AddIfAbsent adds d only if its id is free or held by a tool of d's own
// Source, which d replaces (a source registering its tools again); the
// check and the insert are under one lock, so that of two sources
// registering one id at once the first keeps it, whatever the order of
// their goroutines. It returns the tool that holds the id when that is
// another source's (d is not added), else nil. An id Add refuses (none, a
// protected one) is refused so too, with Add's error.
func (r *Registry) AddIfAbsent(d *Def) (holder *Def, err error) { return r.add(d, true) }

func (r *Registry) add(d *Def, ifAbsent bool) (holder *Def, err error) {
	if d.ID == "" || d.Execute == nil {
		return nil, fmt.Errorf("tool: a tool needs an id and an execute (source %s)", d.Source)
	}
	if d.Source != Builtin && IsProtected(d.ID) {
		r.log.Warn("plugin: refused to override a protected tool", "plugin", d.Source, "tool", d.ID)
		return nil, fmt.Errorf("tool: plugin %s may not replace the protected built-in tool %q", d.Source, d.ID)
	}
	r.mu.Lock()
	old, exists := r.tools[d.ID]
	switch {
	case exists && ifAbsent && old.Source != d.Source:
		r.mu.Unlock()
		return old, nil
	case exists:
		r.log.Info("tool replaced", "tool", d.ID, "was", old.Source, "now", d.Source, "plugin", d.Source)
	}
	r.tools[d.ID] = d
	r.mu.Unlock()
	r.changed()
	return nil, nil
}

// Remove removes the tool with id if source registered it (an MCP server
// whose tool is gone), and reports whether it did.
func (r *Registry) Remove(id, source string) bool {
	r.mu.Lock()
	d, ok := r.tools[id]
	ok = ok && d.Source == source
	if ok {
		delete(r.tools, id)
	}
	r.mu.Unlock()
	if ok {
		r.changed()
	}
	return ok
}

// Get returns the tool with id.
func (r *Registry) Get(id string) (*Def, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	d, ok := r.tools[id]
	return d, ok
}

// List returns every tool, sorted by id.
func (r *Registry) List() []*Def {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]*Def, 0, len(r.tools))
	for _, d := range r.tools {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b *Def) int { return strings.Compare(a.ID, b.ID) })
	return out
}
