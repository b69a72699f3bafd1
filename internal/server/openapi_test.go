package server

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/podcode/podcode/internal/apptest"
)

// openAPIBytes is the document as served.
func openAPIBytes(t testing.TB) []byte {
	t.Helper()
	data, err := openAPIDocument()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// loadOpenAPI generates the document, parses it and validates it as
// OpenAPI 3.
func loadOpenAPI(t testing.TB) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openAPIBytes(t))
	if err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.json is not valid OpenAPI 3: %v", err)
	}
	return doc
}

func TestOpenAPIValid(t *testing.T) {
	doc := loadOpenAPI(t)
	if !doc.IsOpenAPI31OrLater() {
		t.Errorf("openapi: %q, want 3.1.x", doc.OpenAPI)
	}
}

// Every route the server registers is documented with its method, and the
// document describes no route the server does not serve.
func TestOpenAPIRoutes(t *testing.T) {
	doc := loadOpenAPI(t)
	s := New(newAgent(t, apptest.Project{}), "")
	served := map[string]bool{} // "METHOD /path" in the document's terms
	for _, e := range append(s.endpoints(), webhookEndpoint) {
		if len(e.methods) == 0 {
			t.Errorf("%s: no method", e.path)
		}
		for _, m := range e.methods {
			served[m+" "+docPath(e.path)] = true
		}
	}
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for m := range item.Operations() {
			documented[m+" "+path] = true
		}
	}
	for r := range served {
		if !documented[r] {
			t.Errorf("%s is served but not in openapi.json", r)
		}
	}
	for r := range documented {
		if !served[r] {
			t.Errorf("%s is in openapi.json but not served", r)
		}
	}
}

// errorContract lists the operations whose errors are not the API's JSON
// error body: the web page's (plain-text 404s of net/http; the page at /
// has none) and MCP's (the MCP SDK's transport answers).
var errorContract = map[string]string{
	"GET /":          "none",
	"GET /ui/{file}": "web",
	"GET /mcp":       "mcp",
	"POST /mcp":      "mcp",
	"DELETE /mcp":    "mcp",
}

// noBody lists the success responses other than 204 that carry no body.
var noBody = map[string]bool{
	"POST /mcp 202": true, // the MCP SDK's answer to a notification or a response
}

// Every operation has a unique operationId, a schema for each success
// response that has a body, and error responses in the shape of
// internal/httpjson; the document names its servers.
func TestOpenAPIComplete(t *testing.T) {
	doc := loadOpenAPI(t)
	if len(doc.Servers) == 0 {
		t.Error("openapi.json has no servers")
	} else if got := doc.Servers[0].URL; got != "http://"+DefaultAddr {
		t.Errorf("servers[0]: %q, want http://%s (DefaultAddr)", got, DefaultAddr)
	}
	errSchema := doc.Components.Schemas["Error"]
	if errSchema == nil || errSchema.Value == nil || !slices.Equal(errSchema.Value.Required, []string{"error"}) {
		t.Fatal(`components.schemas.Error must be httpjson's {"error": string}`)
	}
	ids := map[string]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			name := method + " " + path
			if op.OperationID == "" {
				t.Errorf("%s: no operationId", name)
			} else if other, dup := ids[op.OperationID]; dup {
				t.Errorf("%s: operationId %q is also %s's", name, op.OperationID, other)
			}
			ids[op.OperationID] = name
			errs := 0
			for code, ref := range op.Responses.Map() {
				res := ref.Value
				status, _ := strconv.Atoi(code)
				switch {
				case status >= 200 && status < 300:
					if status == http.StatusNoContent || noBody[name+" "+code] {
						continue
					}
					if len(res.Content) == 0 {
						t.Errorf("%s %s: no response content", name, code)
					}
					for mt, c := range res.Content {
						if c.Schema == nil {
							t.Errorf("%s %s %s: no schema", name, code, mt)
						}
					}
				case status >= 400 || code == "default":
					errs++
					if errorContract[name] != "" {
						continue
					}
					c := res.Content.Get("application/json")
					if c == nil || !isErrorSchema(c.Schema) {
						t.Errorf("%s %s: the error body is not #/components/schemas/Error", name, code)
					}
				}
			}
			if errs == 0 && errorContract[name] != "none" {
				t.Errorf("%s: no error response", name)
			}
		}
	}
}

// isErrorSchema: s is httpjson's error body, or may be (a turn that ended
// early answers its result instead, with its error).
func isErrorSchema(s *openapi3.SchemaRef) bool {
	if s == nil {
		return false
	}
	if s.Ref == "#/components/schemas/Error" {
		return true
	}
	return s.Value != nil && slices.ContainsFunc(s.Value.AnyOf, func(alt *openapi3.SchemaRef) bool { return alt.Ref == "#/components/schemas/Error" })
}
