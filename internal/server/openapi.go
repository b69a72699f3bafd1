package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/httpjson"
	"github.com/podcode/podcode/internal/mcpclient"
	"github.com/podcode/podcode/internal/pipeline"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/trust"
	"github.com/podcode/podcode/internal/webhook"
)

// The OpenAPI document (GET /openapi.json) is generated from the route
// table: each endpoint carries an operation per method, whose request
// body and answers are Go types; their schemas come from the types
// (jsonschema-go), so the document cannot disagree with what the handlers
// encode and decode. A named struct type becomes a component, referenced
// wherever it appears.

// operation is what the document says of one method of an endpoint.
type operation struct {
	method      string // which of the endpoint's methods; "" when it has one
	id          string // the operationId, unique in the document
	summary     string
	description string
	params      []param      // header and query parameters; path parameters come from the path
	body        reflect.Type // the JSON request body's type; nil for none
	needsBody   bool         // the body is required (an empty one is refused)
	rawBody     bool         // the body is any bytes, at most webhook.DefaultMaxBody (a webhook's payload)
	answers     []answer
	// foreignErrors: the operation's errors are not httpjson's (the web
	// page's are net/http's, MCP's its SDK's): it gets no default error
	// answer, only those it lists.
	foreignErrors bool
}

// param is a header or query parameter; its value is a string.
type param struct {
	name, in    string // in: "header" or "query"
	required    bool
	description string
}

// answer is one response of an operation.
type answer struct {
	status      int // 0: the default response
	description string
	types       []reflect.Type                // the JSON body's type, or the types it may be; none for no JSON body
	content     map[string]*jsonschema.Schema // bodies that are not JSON, by media type
	shared      string                        // a response of components.responses, instead of the above
}

// jsonAnswer is a JSON answer: a T.
func jsonAnswer[T any](status int, description string) answer {
	return answer{status: status, description: description, types: []reflect.Type{reflect.TypeFor[T]()}}
}

// eitherAnswer is a JSON answer that is an A or a B.
func eitherAnswer[A, B any](status int, description string) answer {
	return answer{status: status, description: description, types: []reflect.Type{reflect.TypeFor[A](), reflect.TypeFor[B]()}}
}

// objectAnswer is a JSON object that no Go type of the server describes
// (what says what it is), or text of the textTypes.
func objectAnswer(status int, description, what string, textTypes ...string) answer {
	a := textAnswer(status, description, textTypes...)
	a.content["application/json"] = &jsonschema.Schema{Type: "object", Description: what}
	return a
}

// bodyOf is the type of a JSON request body.
func bodyOf[T any]() reflect.Type { return reflect.TypeFor[T]() }

// errorAnswer is an error answer of httpjson's shape.
func errorAnswer(status int, description string) answer {
	return jsonAnswer[ErrorBody](status, description)
}

// emptyAnswer is an answer without a body.
func emptyAnswer(status int, description string) answer {
	return answer{status: status, description: description}
}

// textAnswer is an answer whose body is text of one of mediaTypes.
func textAnswer(status int, description string, mediaTypes ...string) answer {
	a := answer{status: status, description: description, content: map[string]*jsonschema.Schema{}}
	for _, mt := range mediaTypes {
		a.content[mt] = &jsonschema.Schema{Type: "string"}
	}
	return a
}

// notFound is the 404 of a session route.
var notFound = answer{status: http.StatusNotFound, shared: "NotFound"}

// schemaNames names the components whose Go type's name is not theirs.
var schemaNames = map[reflect.Type]string{
	reflect.TypeFor[ErrorBody]():        "Error",
	reflect.TypeFor[trust.Skip]():       "Skipped",
	reflect.TypeFor[mcpclient.Status](): "MCPServer",
}

// schemaNote is what the document says of another package's type beyond
// its fields: descriptions, and the values of a string field where that
// package names them as constants (only there: a list written here could
// drift). The server's own types describe their fields with `jsonschema`
// tags instead. A note on a field the type does not have is an error.
type schemaNote struct {
	description string
	fields      map[string]fieldNote
}

type fieldNote struct {
	description string
	enum        []string // a string's values
	pattern     string   // a string's pattern (a regular expression it contains a match of)
	example     string   // a string that validates
	keys        []string // an object's keys
}

var schemaNotes = map[reflect.Type]schemaNote{
	reflect.TypeFor[ErrorBody](): {description: "The body of every error answer of the API (package httpjson)."},
	// The bodies: what validate refuses.
	reflect.TypeFor[CreateSession]():   {fields: map[string]fieldNote{"model": {pattern: "/", example: "openai/gpt-4o"}}},
	reflect.TypeFor[PostMessage]():     {fields: map[string]fieldNote{"text": {pattern: `\S`, example: "What does this repository do?"}, "params": {keys: pipeline.Tunables}}},
	reflect.TypeFor[PermissionReply](): {fields: map[string]fieldNote{"action": {enum: []string{guard.Accept, guard.Decline, guard.Cancel}}}},
	reflect.TypeFor[store.Session](): {fields: map[string]fieldNote{
		"parentID": {description: "the session that started this sub-agent"},
		"status":   {enum: []string{store.SessionIdle, store.SessionRunning, store.SessionInterrupted, store.SessionClosed}},
	}},
	reflect.TypeFor[chat.Message](): {fields: map[string]fieldNote{
		"seq":     {description: "order within the session"},
		"role":    {enum: []string{chat.RoleUser, chat.RoleAssistant, chat.RoleTool, chat.RoleSummary, chat.RoleContext}},
		"hooks":   {description: "the hooks that ran around this message, in the order they ran"},
		"usage":   {description: "an assistant message's model call's tokens"},
		"through": {description: "a summary message's last summarized seq"},
		"status":  {enum: []string{chat.StatusComplete, chat.StatusInterrupted, chat.StatusError}},
	}},
	reflect.TypeFor[chat.HookRun](): {description: "One hook that ran: a plugin's pipeline hook or a lifecycle handler.", fields: map[string]fieldNote{
		"kind":    {description: "pipeline or lifecycle"},
		"layer":   {description: "a lifecycle handler's layer"},
		"message": {description: "a lifecycle handler's reason for its vote, redacted"},
		"startUs": {description: "when the run started, in µs after the start of the call it ran around (the tool call; the model call's chat.params; else its own dispatch)"},
		"input":   {description: fmt.Sprintf("a pipeline step's input as JSON, redacted, at most %d bytes (cut with a note)", chat.MaxRunData)},
		"output":  {description: fmt.Sprintf("a pipeline step's returned value as JSON, redacted, at most %d bytes (cut with a note); absent when it returned none", chat.MaxRunData)},
	}},
	reflect.TypeFor[chat.ToolCall](): {fields: map[string]fieldNote{
		"args": {description: "the tool's arguments, a JSON value"},
	}},
	reflect.TypeFor[trust.Skip](): {description: "Project code that does not run until the user trusts it (`podcode trust`).", fields: map[string]fieldNote{
		"kind":    {enum: []string{trust.KindPlugin, trust.KindManifest, trust.KindClaude, trust.KindMCP, trust.KindConfig, trust.KindClaudeContent}},
		"name":    {description: "the item, as podcode trust names it"},
		"state":   {enum: []string{string(trust.NeverTrusted), string(trust.Changed), string(trust.Unreadable), string(trust.DisabledState)}},
		"effect":  {enum: []string{trust.EffectSkipped, trust.EffectDenying}, description: "skipped: none of it runs; denying: none of it runs and its fail-closed guards deny the events they match"},
		"meaning": {description: "what the effect means for this item, and how to make it run"},
		"guards":  {description: "the handlers that deny while it is not trusted"},
	}},
	reflect.TypeFor[mcpclient.Status](): {description: "An MCP server the tools come from, and its state.", fields: map[string]fieldNote{
		"transport":         {enum: []string{mcpclient.Stdio, mcpclient.HTTP, mcpclient.SSE, mcpclient.Remote}},
		"state":             {enum: []string{mcpclient.StateStarting, mcpclient.StateReady, mcpclient.StateRetrying, mcpclient.StateStopped, mcpclient.StateUntrusted}},
		"tools":             {description: "the ids its tools are registered as"},
		"prompts":           {description: "the slash commands its prompts are invoked by (mcp__<server>__<prompt>)"},
		"resources":         {description: "its resources' URIs, as last listed; not told to a tenant"},
		"resourceTemplates": {description: "its resource templates (RFC 6570), as last listed; not told to a tenant"},
	}},
}

// openAPIDocument is the document, generated on first use and kept:
// serving it costs a write. The route table's documentation does not
// depend on a server's state, so a zero Server's table stands for all.
func openAPIDocument() ([]byte, error) {
	openAPICache.once.Do(func() {
		openAPICache.doc, openAPICache.err = generateOpenAPI(append((&Server{}).endpoints(), webhookEndpoint))
	})
	return openAPICache.doc, openAPICache.err
}

var openAPICache struct {
	once sync.Once
	doc  []byte
	err  error
}

// serveOpenAPI answers GET /openapi.json.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request) {
	doc, err := openAPIDocument()
	if err != nil {
		s.Log.Error("server: the OpenAPI document cannot be generated", "error", err.Error())
		httpjson.Error(w, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(doc)
}

// The document's JSON shape (the parts of OpenAPI 3.1 it uses).
type (
	openAPIDoc struct {
		OpenAPI    string                         `json:"openapi"`
		Info       openAPIInfo                    `json:"info"`
		Servers    []openAPIServer                `json:"servers"`
		Security   []map[string][]string          `json:"security"`
		Paths      map[string]map[string]*operDoc `json:"paths"`
		Components openAPIComponents              `json:"components"`
	}
	openAPIInfo struct {
		Title       string `json:"title"`
		Version     string `json:"version"`
		Description string `json:"description"`
	}
	openAPIServer struct {
		URL         string `json:"url"`
		Description string `json:"description"`
	}
	openAPIComponents struct {
		SecuritySchemes map[string]map[string]string  `json:"securitySchemes"`
		Schemas         map[string]*jsonschema.Schema `json:"schemas"`
		Responses       map[string]*responseDoc       `json:"responses"`
	}
	operDoc struct {
		OperationID string                  `json:"operationId"`
		Summary     string                  `json:"summary"`
		Description string                  `json:"description,omitempty"`
		Security    *[]map[string][]string  `json:"security,omitempty"` // [] for an operation without the token
		Parameters  []paramDoc              `json:"parameters,omitempty"`
		RequestBody *bodyDoc                `json:"requestBody,omitempty"`
		Responses   map[string]*responseDoc `json:"responses"`
	}
	paramDoc struct {
		Name        string             `json:"name"`
		In          string             `json:"in"`
		Required    bool               `json:"required,omitempty"`
		Description string             `json:"description,omitempty"`
		Schema      *jsonschema.Schema `json:"schema"`
	}
	bodyDoc struct {
		Required bool                `json:"required,omitempty"`
		Content  map[string]mediaDoc `json:"content"`
	}
	responseDoc struct {
		Ref         string              `json:"$ref,omitempty"`
		Description string              `json:"description,omitempty"`
		Content     map[string]mediaDoc `json:"content,omitempty"`
	}
	mediaDoc struct {
		Schema *jsonschema.Schema `json:"schema"`
	}
)

// pathParam finds a path's {name} wildcards.
var pathParam = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// docPath is the document's path for a ServeMux path: "/{$}" is "/", and
// a subtree ("/ui/") is its one documented wildcard ("/ui/{file}").
func docPath(muxPath string) string {
	if p, ok := strings.CutSuffix(muxPath, "{$}"); ok {
		return p
	}
	if strings.HasSuffix(muxPath, "/") && muxPath != "/" {
		return muxPath + "{file}"
	}
	return muxPath
}

// generateOpenAPI builds the document of eps: every method of every
// endpoint must have its operation, with a unique id and described
// answers. The JSON is indented and its keys sorted, so the same table
// gives the same bytes.
func generateOpenAPI(eps []endpoint) ([]byte, error) {
	gen := newSchemaGen()
	// Components first: an operation refers to them.
	for _, e := range eps {
		for _, op := range e.ops {
			for _, t := range append([]reflect.Type{op.body}, answerTypes(op)...) {
				if err := gen.collect(t); err != nil {
					return nil, fmt.Errorf("openapi: %s %s: %w", op.id, t, err)
				}
			}
		}
	}
	unauthorized := &responseDoc{Ref: "#/components/responses/Unauthorized"}
	doc := openAPIDoc{
		OpenAPI: "3.1.0",
		Info: openAPIInfo{Title: "Podcode API", Version: "1",
			Description: "Sessions, turns, permission replies and events of a Podcode server. With a token configured, every request needs Authorization: Bearer <token>; a tenant's token (server.tokens) sees only its tenant's sessions and events. A browser's cross-origin write (Sec-Fetch-Site, or an Origin that is not the Host) answers 403, and so does, on a server without a token, a request addressed to a name other than localhost or an IP address (DNS rebinding); webhooks excepted."},
		Servers:  []openAPIServer{{URL: "http://" + DefaultAddr, Description: "where podcode serve listens by default (--addr or server.addr change it)"}},
		Security: []map[string][]string{{"bearer": {}}},
		Paths:    map[string]map[string]*operDoc{},
	}
	errRef := gen.ref(reflect.TypeFor[ErrorBody]())
	errContent := map[string]mediaDoc{"application/json": {Schema: errRef}}
	doc.Components = openAPIComponents{
		SecuritySchemes: map[string]map[string]string{"bearer": {"type": "http", "scheme": "bearer"}},
		Responses: map[string]*responseDoc{
			"Unauthorized": {Description: "missing or wrong API token (Authorization: Bearer <token>)", Content: errContent},
			"NotFound":     {Description: "no such session (another tenant's sessions are not found either)", Content: errContent},
			"Error":        {Description: "the request failed: 499 when the client went away or the turn was cancelled, 503 while the server shuts down, 500 otherwise", Content: errContent},
		},
	}
	ids := map[string]string{}
	for _, e := range eps {
		path := docPath(e.path)
		var pathParams []paramDoc
		for _, m := range pathParam.FindAllStringSubmatch(path, -1) {
			pathParams = append(pathParams, paramDoc{Name: m[1], In: "path", Required: true, Schema: &jsonschema.Schema{Type: "string"}})
		}
		ops, err := operationsOf(e)
		if err != nil {
			return nil, err
		}
		for _, method := range e.methods {
			op := ops[method]
			where := method + " " + path
			if op.id == "" || op.summary == "" {
				return nil, fmt.Errorf("openapi: %s: the operation has no id or no summary", where)
			}
			if other, dup := ids[op.id]; dup {
				return nil, fmt.Errorf("openapi: %s: operationId %q is also %s's", where, op.id, other)
			}
			ids[op.id] = where
			od := &operDoc{OperationID: op.id, Summary: op.summary, Description: op.description,
				Parameters: slices.Clone(pathParams), Responses: map[string]*responseDoc{}}
			if e.public {
				od.Security = &[]map[string][]string{}
			}
			for _, p := range op.params {
				od.Parameters = append(od.Parameters, paramDoc{Name: p.name, In: p.in, Required: p.required, Description: p.description,
					Schema: &jsonschema.Schema{Type: "string"}})
			}
			switch {
			case op.body != nil:
				s, err := gen.schemaOf(op.body)
				if err != nil {
					return nil, fmt.Errorf("openapi: %s: the request body: %w", where, err)
				}
				od.RequestBody = &bodyDoc{Required: op.needsBody, Content: map[string]mediaDoc{"application/json": {Schema: s}}}
			case op.rawBody:
				od.RequestBody = &bodyDoc{Content: map[string]mediaDoc{"*/*": {Schema: &jsonschema.Schema{Type: "string", MaxLength: jsonschema.Ptr(int(webhook.DefaultMaxBody))}}}}
			}
			for _, a := range op.answers {
				code := "default"
				if a.status != 0 {
					code = strconv.Itoa(a.status)
				}
				if od.Responses[code] != nil {
					return nil, fmt.Errorf("openapi: %s: two answers %s", where, code)
				}
				rd, err := gen.response(a)
				if err != nil {
					return nil, fmt.Errorf("openapi: %s %s: %w", where, code, err)
				}
				od.Responses[code] = rd
			}
			if !e.public && od.Responses["401"] == nil {
				od.Responses["401"] = unauthorized
			}
			if !op.foreignErrors && od.Responses["default"] == nil {
				od.Responses["default"] = &responseDoc{Ref: "#/components/responses/Error"}
			}
			if doc.Paths[path] == nil {
				doc.Paths[path] = map[string]*operDoc{}
			}
			doc.Paths[path][strings.ToLower(method)] = od
		}
	}
	schemas, err := gen.components()
	if err != nil {
		return nil, err
	}
	doc.Components.Schemas = schemas
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	return buf.Bytes(), nil
}

// operationsOf maps each of e's methods to its operation.
func operationsOf(e endpoint) (map[string]operation, error) {
	out := map[string]operation{}
	for _, op := range e.ops {
		m := op.method
		if m == "" && len(e.methods) == 1 {
			m = e.methods[0]
		}
		if !slices.Contains(e.methods, m) {
			return nil, fmt.Errorf("openapi: %s: operation %q is for method %q, which the endpoint does not serve", e.path, op.id, m)
		}
		if _, dup := out[m]; dup {
			return nil, fmt.Errorf("openapi: %s %s: two operations", m, e.path)
		}
		out[m] = op
	}
	for _, m := range e.methods {
		if _, ok := out[m]; !ok {
			return nil, fmt.Errorf("openapi: %s %s: the route table gives no operation", m, e.path)
		}
	}
	return out, nil
}

func answerTypes(op operation) []reflect.Type {
	var out []reflect.Type
	for _, a := range op.answers {
		out = append(out, a.types...)
	}
	return out
}

// schemaGen makes the schemas of Go types: each named struct type it meets
// is a component, and appears elsewhere as its $ref.
type schemaGen struct {
	names map[reflect.Type]string             // the components, by type
	refs  map[reflect.Type]*jsonschema.Schema // jsonschema-go's TypeSchemas: fixed schemas and every component's $ref
}

func newSchemaGen() *schemaGen {
	return &schemaGen{names: map[reflect.Type]string{}, refs: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[time.Time]():       {Type: "string", Format: "date-time"},
		reflect.TypeFor[json.RawMessage](): {}, // any JSON value, not the bytes its Go type says
	}}
}

// collect finds the components t uses (t itself when it is one).
func (g *schemaGen) collect(t reflect.Type) error {
	if t == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if _, fixed := g.refs[t]; fixed {
		return nil
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array, reflect.Map:
		return g.collect(t.Elem())
	case reflect.Struct:
	default:
		return nil
	}
	if t.Name() != "" {
		name := schemaNames[t]
		if name == "" {
			name = t.Name()
		}
		for other, n := range g.names {
			if n == name {
				return fmt.Errorf("the components %s and %s are both named %s (see schemaNames)", other, t, name)
			}
		}
		g.names[t] = name
		g.refs[t] = &jsonschema.Schema{Ref: "#/components/schemas/" + name}
	}
	for _, f := range reflect.VisibleFields(t) {
		if _, _, ok := jsonField(f); ok {
			if err := g.collect(f.Type); err != nil {
				return err
			}
		}
	}
	return nil
}

// ref is the $ref of component t.
func (g *schemaGen) ref(t reflect.Type) *jsonschema.Schema { return g.refs[t].CloneSchemas() }

// schemaOf is t's schema, its components as $refs (t too, when it is one).
func (g *schemaGen) schemaOf(t reflect.Type) (*jsonschema.Schema, error) {
	if r := g.refs[t]; r != nil {
		return r.CloneSchemas(), nil
	}
	return g.generate(t, nil)
}

// generate is t's schema with the other components as $refs; self, a
// component, is generated in full.
func (g *schemaGen) generate(t, self reflect.Type) (*jsonschema.Schema, error) {
	refs := maps.Clone(g.refs)
	delete(refs, self)
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: refs})
	if err != nil {
		return nil, err
	}
	fixNulls(t, s)
	return s, nil
}

func (g *schemaGen) response(a answer) (*responseDoc, error) {
	if a.shared != "" {
		return &responseDoc{Ref: "#/components/responses/" + a.shared}, nil
	}
	if a.description == "" {
		return nil, errors.New("the answer has no description")
	}
	rd := &responseDoc{Description: a.description}
	var alts []*jsonschema.Schema
	for _, t := range a.types {
		s, err := g.schemaOf(t)
		if err != nil {
			return nil, err
		}
		alts = append(alts, s)
	}
	switch len(alts) {
	case 0:
	case 1:
		rd.Content = map[string]mediaDoc{"application/json": {Schema: alts[0]}}
	default:
		rd.Content = map[string]mediaDoc{"application/json": {Schema: &jsonschema.Schema{AnyOf: alts}}}
	}
	for mt, s := range a.content {
		if rd.Content == nil {
			rd.Content = map[string]mediaDoc{}
		}
		rd.Content[mt] = mediaDoc{Schema: s}
	}
	return rd, nil
}

// components generates every component's schema, with its notes.
func (g *schemaGen) components() (map[string]*jsonschema.Schema, error) {
	out := map[string]*jsonschema.Schema{}
	for t, name := range g.names {
		s, err := g.generate(t, t)
		if err != nil {
			return nil, fmt.Errorf("openapi: components.schemas.%s: %w", name, err)
		}
		if err := applyNote(s, schemaNotes[t]); err != nil {
			return nil, fmt.Errorf("openapi: components.schemas.%s (%s): %w", name, t, err)
		}
		out[name] = s
	}
	for t := range schemaNotes {
		if g.names[t] == "" {
			return nil, fmt.Errorf("openapi: schemaNotes has %s, which no operation uses", t)
		}
	}
	return out, nil
}

func applyNote(s *jsonschema.Schema, n schemaNote) error {
	if n.description != "" {
		s.Description = n.description
	}
	for name, f := range n.fields {
		p := s.Properties[name]
		if p == nil {
			return fmt.Errorf("a note on field %q, which it does not have", name)
		}
		if f.description != "" {
			p.Description = f.description
		}
		if f.enum != nil {
			if p.Type != "string" {
				return fmt.Errorf("field %q: values listed for a field that is not a string", name)
			}
			for _, v := range f.enum {
				p.Enum = append(p.Enum, v)
			}
		}
		if f.pattern != "" || f.example != "" {
			if p.Type != "string" {
				return fmt.Errorf("field %q: a pattern or an example for a field that is not a string", name)
			}
			p.Pattern = f.pattern
			if f.example != "" {
				p.Examples = []any{f.example}
			}
		}
		if f.keys != nil {
			if p.Type != "object" {
				return fmt.Errorf("field %q: keys listed for a field that is not an object", name)
			}
			names := &jsonschema.Schema{}
			for _, k := range f.keys {
				names.Enum = append(names.Enum, k)
			}
			p.PropertyNames = names
		}
	}
	return nil
}

// fixNulls makes s say what encoding/json writes for t where
// jsonschema-go says otherwise: a nil slice, map or pointer in a field
// with omitempty or omitzero is left out, never null; and a pointer to a
// component is null or the component (jsonschema-go would put "null"
// beside the $ref, which then matches nothing).
func fixNulls(t reflect.Type, s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if s.Ref != "" && slices.Contains(s.Types, "null") {
		*s = jsonschema.Schema{AnyOf: []*jsonschema.Schema{{Type: "null"}, {Ref: s.Ref}}, Description: s.Description}
	}
	if s.Ref != "" || len(s.AnyOf) > 0 {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		fixNulls(t.Elem(), s.Items)
	case reflect.Map:
		fixNulls(t.Elem(), s.AdditionalProperties)
	case reflect.Struct:
		for _, f := range reflect.VisibleFields(t) {
			name, omit, ok := jsonField(f)
			p := s.Properties[name]
			if !ok || p == nil {
				continue
			}
			if omit && slices.Contains(p.Types, "null") {
				if p.Ref != "" { // a pointer to a component
					p.Types = nil
				} else if p.Types = slices.DeleteFunc(p.Types, func(t string) bool { return t == "null" }); len(p.Types) == 1 {
					p.Type, p.Types = p.Types[0], nil
				}
			}
			fixNulls(f.Type, p)
		}
	}
}

// jsonField is f's name in JSON and whether a zero value is left out;
// false for a field encoding/json does not write.
func jsonField(f reflect.StructField) (name string, omit, ok bool) {
	if !f.IsExported() || f.Anonymous {
		return "", false, false
	}
	tag := f.Tag.Get("json")
	if tag == "-" {
		return "", false, false
	}
	name, opts, _ := strings.Cut(tag, ",")
	if name == "" {
		name = f.Name
	}
	for o := range strings.SplitSeq(opts, ",") {
		omit = omit || o == "omitempty" || o == "omitzero"
	}
	return name, omit, true
}
