package guard

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
)

// DecodeForm reads MCP's elicitation schema: every primitive kind, titled
// choices three ways, multiple choices, defaults checked against their
// field, the required fields first; what a form cannot ask for is an
// error that names the field.
func TestDecodeForm(t *testing.T) {
	schema := map[string]any{"type": "object", "required": []any{"email", "colour"}, "properties": map[string]any{
		"email":  map[string]any{"type": "string", "format": "email", "title": "Email"},
		"colour": map[string]any{"type": "string", "oneOf": []any{map[string]any{"const": "r", "title": "Red"}, map[string]any{"const": "g", "title": "Green"}}, "default": "g"},
		"legacy": map[string]any{"type": "string", "enum": []any{"a", "b"}, "enumNames": []any{"Ay", "Bee"}},
		"n":      map[string]any{"type": "integer", "minimum": 1.0, "maximum": 9.0, "default": 3.0},
		"tags":   map[string]any{"type": "array", "items": map[string]any{"anyOf": []any{map[string]any{"const": "x", "title": "Ex"}}}, "default": []any{"x"}},
		"sure":   map[string]any{"type": "boolean"},
		"odd":    map[string]any{"type": "string", "format": "hostname"},
	}}
	f, err := DecodeForm("probe", "hello", schema)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, fl := range f.Fields {
		names = append(names, fl.Name)
	}
	if strings.Join(names, " ") != "email colour legacy n odd sure tags" {
		t.Fatalf("fields in order %v", names)
	}
	if f.Fields[1].Options[0] != (Option{Value: "r", Title: "Red"}) || f.Fields[2].Options[1] != (Option{Value: "b", Title: "Bee"}) ||
		f.Fields[0].Format != "email" || !f.Fields[0].Required || f.Fields[4].Format != "" || f.Fields[6].Type != FieldMulti {
		t.Fatalf("%+v", f.Fields)
	}
	if d := f.Defaults(); fmt.Sprint(d) != "map[colour:g n:3 tags:[x]]" {
		t.Fatalf("defaults %v", d)
	}
	for _, c := range []struct {
		schema any
		want   string
	}{
		{map[string]any{"type": "array"}, `of type "array", not object`},
		{map[string]any{"properties": map[string]any{"o": map[string]any{"type": "object"}}}, `field "o": type "object"`},
		{map[string]any{"properties": map[string]any{"l": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}}, `field "l": a list without choices`},
		{map[string]any{"properties": map[string]any{"e": map[string]any{"type": "string", "enum": []any{1.0}}}}, `choice 1 is not a string`},
		{map[string]any{"properties": map[string]any{"d": map[string]any{"type": "integer", "default": "x"}}}, `field "d": its default does not fit it`},
		{map[string]any{"properties": map[string]any{"d": map[string]any{"type": "string", "enum": []any{"a"}, "default": "b"}}}, `not one of the choices`},
		{map[string]any{"properties": map[string]any{"": map[string]any{"type": "string"}}}, `name must be`},
	} {
		if _, err := DecodeForm("probe", "", c.schema); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.schema, err, c.want)
		}
	}
	many := map[string]any{}
	for i := range maxFormFields + 1 {
		many[fmt.Sprint("f", i)] = map[string]any{"type": "string"}
	}
	if _, err := DecodeForm("probe", "", map[string]any{"properties": many}); err == nil || !strings.Contains(err.Error(), "more than 50") {
		t.Errorf("%d fields: %v", len(many), err)
	}
	if f, err := DecodeForm("probe", strings.Repeat("é", maxFormMessage), nil); err != nil || len(f.Message) > maxFormMessage+len("…") || len(f.Fields) != 0 {
		t.Errorf("a long message, no schema: %d bytes, %v", len(f.Message), err)
	}
}

// The schema and the answer are a server's and a client's: whatever they
// hold, decoding and completing never panic; a form decoded is one whose
// defaults complete (unless a required field has none), and a completed
// answer completes again to itself.
func FuzzDecodeForm(f *testing.F) {
	sep1034Schema, err := os.ReadFile("testdata/sep1034-schema.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte(sep1034Schema), []byte(`{}`))
	f.Add([]byte(sep1034Schema), []byte(`{"name":"Ann","age":41,"status":"pending","verified":false}`))
	f.Add([]byte(`{"type":"object","properties":{"t":{"type":"array","items":{"enum":["a","b"]},"minItems":1,"maxItems":2}},"required":["t"]}`), []byte(`{"t":["a","a"]}`))
	f.Add([]byte(`{"properties":{"s":{"type":"string","format":"date-time","minLength":3,"maxLength":1}}}`), []byte(`{"s":"2025-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"properties":{"n":{"type":"number","minimum":5,"maximum":1,"default":1e400}}}`), []byte(`{"n":null}`))
	f.Add([]byte(`null`), []byte(`null`))
	f.Fuzz(func(t *testing.T, schema, content []byte) {
		var s any
		if json.Unmarshal(schema, &s) != nil {
			return
		}
		form, err := DecodeForm("fuzz", "m", s)
		if err != nil {
			return
		}
		if len(form.Fields) > maxFormFields {
			t.Fatalf("%d fields", len(form.Fields))
		}
		// A form passed on to another client (Schema) is the same form
		// there.
		if again, err := DecodeForm("fuzz", "m", form.Schema()); err != nil || !sameForm(again, form) {
			t.Fatalf("the form's schema decodes to %+v, %v; want %+v", again, err, form)
		}
		if len(form.Unfilled()) == 0 {
			if _, err := form.Complete(nil); err != nil {
				t.Fatalf("the defaults do not complete: %v", err)
			}
		}
		var c map[string]any
		if json.Unmarshal(content, &c) != nil {
			return
		}
		out, err := form.Complete(c)
		if err != nil {
			return
		}
		again, err := form.Complete(out)
		if err != nil || fmt.Sprint(again) != fmt.Sprint(out) {
			t.Fatalf("completed %v, then %v (%v)", out, again, err)
		}
		if _, err := json.Marshal(out); err != nil {
			t.Fatalf("the answer does not encode: %v", err)
		}
	})
}

// Every kind of choice MCP's elicitation has (SEP-1330: untitled, titled
// with oneOf, legacy enumNames, multiple with enum or anyOf) decodes to a
// form whose Schema decodes to the same form: a form passes on intact.
func TestFormSchemaRoundTrip(t *testing.T) {
	schema := map[string]any{"type": "object", "required": []any{"untitled"}, "properties": map[string]any{
		"untitled": map[string]any{"type": "string", "enum": []any{"a", "b"}, "default": "a"},
		"titled": map[string]any{"type": "string", "oneOf": []any{
			map[string]any{"const": "r", "title": "Red"}, map[string]any{"const": "g", "title": "Green"}}},
		"legacy": map[string]any{"type": "string", "enum": []any{"x", "y"}, "enumNames": []any{"Ex", "Why"}},
		"many":   map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"p", "q"}}, "minItems": 1.0, "default": []any{"p"}},
		"titledMany": map[string]any{"type": "array", "items": map[string]any{"anyOf": []any{
			map[string]any{"const": "s", "title": "Small"}, map[string]any{"const": "l", "title": "Large"}}}},
		"when": map[string]any{"type": "string", "format": "date", "title": "When", "description": "a day"},
		"n":    map[string]any{"type": "integer", "minimum": 1.0, "maximum": 9.0, "default": 3.0},
	}}
	form, err := DecodeForm("probe", "pick", schema)
	if err != nil {
		t.Fatal(err)
	}
	again, err := DecodeForm("probe", "pick", form.Schema())
	if err != nil || !sameForm(again, form) {
		t.Fatalf("round trip: %v\n got %+v\nwant %+v", err, again, form)
	}
	if got := form.Fields[0]; got.Name != "untitled" || !got.Required {
		t.Errorf("first field %+v", got)
	}
}

// sameForm compares what two forms ask, not the schemas they were read from.
func sameForm(a, b *Form) bool {
	a2, b2 := *a, *b
	a2.requested, b2.requested = nil, nil
	return reflect.DeepEqual(a2, b2)
}
