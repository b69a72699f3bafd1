package server

import (
	"encoding/json"
	"errors"
	"maps"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/podcode/podcode/internal/httpjson"
)

// componentTypes maps each component of the document to the Go type it
// was generated from.
func componentTypes(t *testing.T) map[string]reflect.Type {
	t.Helper()
	gen := newSchemaGen()
	for _, e := range append((&Server{}).endpoints(), webhookEndpoint) {
		for _, op := range e.ops {
			for _, typ := range append([]reflect.Type{op.body}, answerTypes(op)...) {
				if err := gen.collect(typ); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	out := map[string]reflect.Type{}
	for typ, name := range gen.names {
		out[name] = typ
	}
	return out
}

// validate checks v, encoded by encoding/json, against s.
func validate(s *openapi3.Schema, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var decoded any
	if err := json.Unmarshal(data, &decoded); err != nil {
		return err
	}
	if err := s.VisitJSON(decoded, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors()); err != nil {
		return errors.New(string(data) + ": " + err.Error())
	}
	return nil
}

// Each component's schema describes what encoding/json writes for its Go
// type: the least value (nil slices, maps and pointers; empty fields with
// omitempty left out) and a value with every field set match it, and the
// schema has exactly the fields the full value writes. A field added to a type, or
// a tag changed, changes the document with it.
func TestOpenAPISchemasDescribeGoTypes(t *testing.T) {
	doc := loadOpenAPI(t)
	types := componentTypes(t)
	if len(types) != len(doc.Components.Schemas) {
		t.Errorf("%d components, %d types", len(doc.Components.Schemas), len(types))
	}
	for name, typ := range types {
		ref := doc.Components.Schemas[name]
		if ref == nil || ref.Value == nil {
			t.Errorf("components.schemas.%s is missing (%s)", name, typ)
			continue
		}
		s := ref.Value
		if err := validate(s, filled(typ, s, true).Interface()); err != nil {
			t.Errorf("%s: the least %s does not match: %v", name, typ, err)
		}
		full := filled(typ, s, false).Interface()
		if err := validate(s, full); err != nil {
			t.Errorf("%s: a full %s does not match: %v", name, typ, err)
		}
		var written map[string]any
		data, _ := json.Marshal(full)
		json.Unmarshal(data, &written)
		if got, want := slices.Sorted(maps.Keys(s.Properties)), slices.Sorted(maps.Keys(written)); !slices.Equal(got, want) {
			t.Errorf("%s has properties %v; %s writes %v", name, got, typ, want)
		}
	}
}

// filled is a value of t with every field set: slices with one element,
// maps with one key, pointers to a filled value. A string takes the first
// of the values s lists, if it lists them, or its first example; a map's
// key the first of the names s allows. The least value is a zero value
// but for those strings: its slices, maps and pointers are nil.
func filled(t reflect.Type, s *openapi3.Schema, least bool) reflect.Value {
	v := reflect.New(t).Elem()
	if least && t.Kind() != reflect.String && t.Kind() != reflect.Struct {
		return v
	}
	switch {
	case t == reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)))
		return v
	case t == reflect.TypeFor[json.RawMessage]():
		v.SetBytes([]byte(`{"any": ["json"]}`))
		return v
	}
	if s != nil && len(s.AnyOf) > 0 { // null or a component
		for _, alt := range s.AnyOf {
			if alt.Value != nil && !alt.Value.Type.Is("null") {
				s = alt.Value
			}
		}
	}
	switch t.Kind() {
	case reflect.Pointer:
		v.Set(filled(t.Elem(), s, least).Addr())
	case reflect.String:
		if !least {
			v.SetString("text")
		}
		if s != nil && len(s.Enum) > 0 {
			v.SetString(s.Enum[0].(string))
		} else if s != nil && len(s.Examples) > 0 {
			v.SetString(s.Examples[0].(string))
		}
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(7)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(7)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(1.5)
	case reflect.Interface:
		v.Set(reflect.ValueOf("anything"))
	case reflect.Slice:
		var items *openapi3.Schema
		if s != nil && s.Items != nil {
			items = s.Items.Value
		}
		v.Set(reflect.Append(v, filled(t.Elem(), items, least)))
	case reflect.Map:
		key := "key"
		if s != nil && s.PropertyNames != nil && len(s.PropertyNames.Value.Enum) > 0 {
			key = s.PropertyNames.Value.Enum[0].(string)
		}
		var elem *openapi3.Schema
		if s != nil && s.AdditionalProperties.Schema != nil {
			elem = s.AdditionalProperties.Schema.Value
		}
		v.Set(reflect.MakeMap(t))
		v.SetMapIndex(reflect.ValueOf(key).Convert(t.Key()), filled(t.Elem(), elem, least))
	case reflect.Struct:
		for _, f := range reflect.VisibleFields(t) {
			name, omit, ok := jsonField(f)
			if !ok || (least && omit) {
				continue
			}
			var prop *openapi3.Schema
			if s != nil && s.Properties[name] != nil {
				prop = s.Properties[name].Value
			}
			v.FieldByIndex(f.Index).Set(filled(f.Type, prop, least))
		}
	}
	return v
}

// A request body's required fields are those DecodeBody refuses to go
// without: a full body is accepted, and so is {} when nothing is required;
// a body without a required field is refused; the body itself is required
// when an empty one is refused.
func TestOpenAPIRequestBodiesRequireWhatDecodeBodyDoes(t *testing.T) {
	doc := loadOpenAPI(t)
	types := componentTypes(t)
	bodies := 0
	for _, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody == nil || op.RequestBody.Value.Content["application/json"] == nil {
				continue // none, or not JSON (a webhook's payload)
			}
			ref := op.RequestBody.Value.Content["application/json"].Schema
			name := strings.TrimPrefix(ref.Ref, "#/components/schemas/")
			typ := types[name]
			if typ == nil {
				t.Errorf("%s %s: the body %q is not a component", method, op.OperationID, ref.Ref)
				continue
			}
			bodies++
			s := ref.Value
			if _, ok := reflect.New(typ).Interface().(validator); !ok {
				t.Errorf("%s: %s does not validate itself", name, typ)
				continue
			}
			decode := func(v any) error {
				data, _ := json.Marshal(v)
				return DecodeBody(strings.NewReader(string(data)), reflect.New(typ).Interface().(validator))
			}
			full := map[string]any{}
			data, _ := json.Marshal(filled(typ, s, false).Interface())
			json.Unmarshal(data, &full)
			if err := decode(full); err != nil {
				t.Errorf("%s: a full body is refused: %v", name, err)
			}
			empty := DecodeBody(strings.NewReader(""), reflect.New(typ).Interface().(validator))
			if (empty != nil) != op.RequestBody.Value.Required {
				t.Errorf("%s: an empty body is %v, and the document says required: %v", op.OperationID, empty, op.RequestBody.Value.Required)
			}
			if err := decode(map[string]any{}); (err == nil) != (len(s.Required) == 0) {
				t.Errorf("%s: {} is %v, and the schema requires %v", name, err, s.Required)
			}
			for _, req := range s.Required {
				without := maps.Clone(full)
				delete(without, req)
				if err := decode(without); err == nil {
					t.Errorf("%s: a body without %q, which the schema requires, is accepted", name, req)
				}
			}
		}
	}
	if bodies == 0 {
		t.Fatal("no operation has a JSON request body")
	}
}

// The Error schema is what httpjson.Error writes.
func TestOpenAPIErrorIsHTTPJSONError(t *testing.T) {
	doc := loadOpenAPI(t)
	rec := httptest.NewRecorder()
	httpjson.Error(rec, 418, errors.New("no tea"))
	var body any
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
		t.Fatal(err)
	}
	if err := doc.Components.Schemas["Error"].Value.VisitJSON(body, openapi3.EnableJSONSchema2020()); err != nil {
		t.Errorf("%s: %v", rec.Body, err)
	}
}

// The generator refuses a route table it cannot document fully, saying
// where: a method without its operation, an id used twice, an answer
// without a description, a note on a field a type does not have.
func TestOpenAPIGeneratorRefusesIncompleteTables(t *testing.T) {
	ok := operation{id: "a", summary: "a", answers: []answer{emptyAnswer(204, "done")}}
	cases := []struct {
		name string
		eps  []endpoint
		want string
	}{
		{"no operation", []endpoint{{methods: []string{"GET"}, path: "/a"}}, "GET /a: the route table gives no operation"},
		{"a method without its operation", []endpoint{{methods: []string{"GET", "POST"}, path: "/a", ops: []operation{{method: "GET", id: "a", summary: "a"}}}},
			"POST /a: the route table gives no operation"},
		{"a duplicate id", []endpoint{{methods: []string{"GET"}, path: "/a", ops: []operation{ok}}, {methods: []string{"GET"}, path: "/b", ops: []operation{ok}}},
			`GET /b: operationId "a" is also GET /a's`},
		{"no summary", []endpoint{{methods: []string{"GET"}, path: "/a", ops: []operation{{id: "a"}}}}, "GET /a: the operation has no id or no summary"},
		{"an answer without a description", []endpoint{{methods: []string{"GET"}, path: "/a", ops: []operation{{id: "a", summary: "a", answers: []answer{emptyAnswer(200, "")}}}}},
			"GET /a 200: the answer has no description"},
	}
	for _, c := range cases {
		_, err := generateOpenAPI(c.eps)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}

	if err := applyNote(&jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"here": {Type: "string"}}}, schemaNote{fields: map[string]fieldNote{"gone": {description: "x"}}}); err == nil || !strings.Contains(err.Error(), `"gone"`) {
		t.Errorf("a note on a missing field: %v", err)
	}
}

type nullsInner struct {
	A string `json:"a"`
}

type nullsOuter struct {
	Kept    []string    `json:"kept"`
	Omitted []string    `json:"omitted,omitempty"`
	Ptr     *nullsInner `json:"ptr"`
	OptPtr  *nullsInner `json:"optPtr,omitempty"`
	Inner   nullsInner  `json:"inner"`
}

// A schema allows null exactly where encoding/json writes it: a nil slice
// or pointer in a field without omitempty; a pointer to a component is
// null or the component, and a component is referenced, not copied.
func TestOpenAPINullOnlyWhereEncodingJSONWritesIt(t *testing.T) {
	gen := newSchemaGen()
	if err := gen.collect(reflect.TypeFor[nullsOuter]()); err != nil {
		t.Fatal(err)
	}
	s, err := gen.generate(reflect.TypeFor[nullsOuter](), reflect.TypeFor[nullsOuter]())
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(s.Properties)
	const ref = `{"$ref":"#/components/schemas/nullsInner"}`
	want := `{"inner":` + ref + `,"kept":{"type":["null","array"],"items":{"type":"string"}},"omitted":{"type":"array","items":{"type":"string"}},` +
		`"optPtr":` + ref + `,"ptr":{"anyOf":[{"type":"null"},` + ref + `]}}`
	if string(got) != want {
		t.Errorf("properties:\n%s\nwant\n%s", got, want)
	}
}
