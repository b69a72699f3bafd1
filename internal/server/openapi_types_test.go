package server

import (
	"encoding/json"
	"reflect"
	"slices"
	"sort"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/trust"
)

// The document's schemas have the JSON fields of the Go types the
// handlers encode and decode: the same names, and for answers the same
// required fields (those without omitempty). A field added to a type and
// not to the document fails here.
func TestOpenAPISchemasMatchGoTypes(t *testing.T) {
	doc := loadOpenAPI(t)
	cases := []struct {
		schema string
		typ    reflect.Type
		answer bool // encoded by the server: its required fields are the type's
	}{
		{"Session", reflect.TypeFor[store.Session](), true},
		{"Message", reflect.TypeFor[chat.Message](), true},
		{"Usage", reflect.TypeFor[chat.Usage](), true},
		{"HookRun", reflect.TypeFor[chat.HookRun](), true},
		{"ToolCall", reflect.TypeFor[chat.ToolCall](), true},
		{"Result", reflect.TypeFor[chat.Result](), true},
		{"Skipped", reflect.TypeFor[trust.Skip](), true},
		// Bodies: what a client may send; what it must send is validate's.
		{"CreateSession", reflect.TypeFor[CreateSession](), false},
		{"PostMessage", reflect.TypeFor[PostMessage](), false},
		{"PermissionReply", reflect.TypeFor[PermissionReply](), false},
	}
	for _, c := range cases {
		ref := doc.Components.Schemas[c.schema]
		if ref == nil || ref.Value == nil {
			t.Errorf("components.schemas.%s is missing (%s)", c.schema, c.typ)
			continue
		}
		want, err := jsonschema.ForType(c.typ, &jsonschema.ForOptions{IgnoreInvalidTypes: true,
			// Raw JSON is any value, not the byte array its Go type says.
			TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[json.RawMessage](): {}}})
		if err != nil {
			t.Fatalf("%s: %v", c.typ, err)
		}
		var documented []string
		for name := range ref.Value.Properties {
			documented = append(documented, name)
		}
		var fields []string
		for name := range want.Properties {
			fields = append(fields, name)
		}
		sort.Strings(documented)
		sort.Strings(fields)
		if !slices.Equal(documented, fields) {
			t.Errorf("components.schemas.%s has properties %v; %s has JSON fields %v", c.schema, documented, c.typ, fields)
		}
		for name, p := range ref.Value.Properties {
			gp := want.Properties[name]
			if gp == nil || p.Value == nil {
				continue
			}
			// nil slices, maps and pointers are left out (omitempty), never
			// null: only the other type counts.
			goType := slices.DeleteFunc(append([]string{gp.Type}, gp.Types...), func(s string) bool { return s == "" || s == "null" })
			docType := slices.DeleteFunc(slices.Clone([]string(*nonNil(p.Value.Type))), func(s string) bool { return s == "null" })
			if len(goType) > 0 && len(docType) > 0 && !slices.Equal(goType, docType) {
				t.Errorf("components.schemas.%s.%s is %v; %s encodes it as %v", c.schema, name, docType, c.typ, goType)
			}
		}
		if c.answer {
			req := slices.Sorted(slices.Values(ref.Value.Required))
			goReq := slices.Sorted(slices.Values(want.Required))
			if !slices.Equal(req, goReq) {
				t.Errorf("components.schemas.%s requires %v; %s always encodes %v", c.schema, req, c.typ, goReq)
			}
		}
	}
}

func nonNil(t *openapi3.Types) *openapi3.Types {
	if t == nil {
		return &openapi3.Types{}
	}
	return t
}
