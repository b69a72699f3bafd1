package guard

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/podcode/podcode/internal/chat"
)

// Bounds of an elicitation's form: a server is untrusted, and what it asks
// is shown to a person.
const (
	maxFormSchema      = 256 << 10 // bytes of requestedSchema as JSON
	maxFormFields      = 50
	maxFieldOptions    = 500
	maxFieldName       = 100
	maxFieldTitle      = 200
	maxFieldText       = 1000
	maxFormMessage     = 4000
	maxDefaultListSize = maxFieldOptions
)

// rawProperty is one property of an elicitation's requestedSchema, as
// MCP's PrimitiveSchemaDefinition allows: a string (with a format, an enum,
// titled oneOf choices or legacy enumNames), a number, an integer, a
// boolean, or an array of enum strings (a multiple choice).
type rawProperty struct {
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Format      string          `json:"format"`
	Enum        []any           `json:"enum"`
	EnumNames   []string        `json:"enumNames"`
	OneOf       []rawChoice     `json:"oneOf"`
	AnyOf       []rawChoice     `json:"anyOf"`
	Items       *rawProperty    `json:"items"`
	MinLength   *int            `json:"minLength"`
	MaxLength   *int            `json:"maxLength"`
	Minimum     *float64        `json:"minimum"`
	Maximum     *float64        `json:"maximum"`
	MinItems    *int            `json:"minItems"`
	MaxItems    *int            `json:"maxItems"`
	Default     json.RawMessage `json:"default"`
}

type rawChoice struct {
	Const any    `json:"const"`
	Title string `json:"title"`
}

// DecodeForm is an elicitation's message and requestedSchema (as the SDK
// decoded it: any JSON value) as the form Podcode shows, bounded and
// checked: an object of flat primitive properties (see rawProperty), each
// default a value of its field. Fields come in the order of the schema's
// required list, then by name (the decoded schema keeps no order). A nil
// schema asks for nothing: a confirmation.
func DecodeForm(server, message string, schema any) (*Form, error) {
	form := &Form{Server: server, Message: chat.Shorten(message, maxFormMessage), Fields: []Field{}}
	if schema == nil {
		return form, nil
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("the requested schema is not JSON: %w", err)
	}
	if len(raw) > maxFormSchema {
		return nil, fmt.Errorf("the requested schema is %d bytes, more than %d", len(raw), maxFormSchema)
	}
	form.requested = raw
	var obj struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, fmt.Errorf("the requested schema: %w", err)
	}
	if obj.Type != "" && obj.Type != "object" {
		return nil, fmt.Errorf("the requested schema is of type %q, not object", obj.Type)
	}
	if len(obj.Properties) > maxFormFields {
		return nil, fmt.Errorf("the form has %d fields, more than %d", len(obj.Properties), maxFormFields)
	}
	names := make([]string, 0, len(obj.Properties))
	for name := range obj.Properties {
		names = append(names, name)
	}
	rank := func(name string) int {
		if i := slices.Index(obj.Required, name); i >= 0 {
			return i
		}
		return len(obj.Required)
	}
	slices.SortFunc(names, func(a, b string) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		return strings.Compare(a, b)
	})
	for _, name := range names {
		f, err := decodeField(name, obj.Properties[name], slices.Contains(obj.Required, name))
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", chat.Shorten(name, maxFieldName), err)
		}
		form.Fields = append(form.Fields, f)
	}
	return form, nil
}

func decodeField(name string, raw json.RawMessage, required bool) (Field, error) {
	if name == "" || len(name) > maxFieldName {
		return Field{}, fmt.Errorf("a field's name must be 1 to %d bytes", maxFieldName)
	}
	var p rawProperty
	if err := json.Unmarshal(raw, &p); err != nil {
		return Field{}, err
	}
	f := Field{Name: name, Title: chat.Shorten(p.Title, maxFieldTitle), Description: chat.Shorten(p.Description, maxFieldText),
		Required: required, MinLength: p.MinLength, MaxLength: p.MaxLength, Minimum: p.Minimum, Maximum: p.Maximum}
	var err error
	switch p.Type {
	case FieldString:
		f.Type = FieldString
		switch p.Format {
		case "", "email", "uri", "date", "date-time":
			f.Format = p.Format
		default:
			// A format Podcode does not know is any text: the server
			// checks its own.
		}
		f.Options, err = choices(p.Enum, p.EnumNames, p.OneOf)
	case FieldNumber, FieldInteger, FieldBoolean:
		f.Type = p.Type
	case FieldMulti:
		f.Type = FieldMulti
		f.MinItems, f.MaxItems = p.MinItems, p.MaxItems
		if p.Items == nil {
			return f, errors.New("a list without items: only a list of choices can be asked for")
		}
		alts := p.Items.AnyOf
		if len(alts) == 0 {
			alts = p.Items.OneOf
		}
		f.Options, err = choices(p.Items.Enum, p.Items.EnumNames, alts)
		if err == nil && len(f.Options) == 0 {
			err = errors.New("a list without choices: only a list of choices can be asked for")
		}
	default:
		return f, fmt.Errorf("type %q is not one a form can ask for (string, number, integer, boolean, or a list of choices)", chat.Shorten(p.Type, 40))
	}
	if err != nil {
		return f, err
	}
	if len(p.Default) > 0 && string(p.Default) != "null" {
		var v any
		if err := json.Unmarshal(p.Default, &v); err != nil {
			return f, fmt.Errorf("its default: %w", err)
		}
		if l, ok := v.([]any); ok && len(l) > maxDefaultListSize {
			return f, fmt.Errorf("its default lists more than %d values", maxDefaultListSize)
		}
		// A default is what an answer that leaves the field out sends:
		// it must be a value of the field.
		probe := &Form{Fields: []Field{f}}
		done, err := probe.Complete(map[string]any{name: v})
		if err != nil {
			return f, fmt.Errorf("its default does not fit it: %w", errors.Unwrap(err))
		}
		f.Default = done[name]
	}
	return f, nil
}

// choices are a string field's options: enum's values (with legacy
// enumNames as their titles) or oneOf/anyOf's const and title.
func choices(enum []any, names []string, alts []rawChoice) ([]Option, error) {
	if len(enum) > maxFieldOptions || len(alts) > maxFieldOptions {
		return nil, fmt.Errorf("more than %d choices", maxFieldOptions)
	}
	var out []Option
	for i, v := range enum {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("choice %d is not a string", i+1)
		}
		o := Option{Value: s}
		if i < len(names) {
			o.Title = chat.Shorten(names[i], maxFieldTitle)
		}
		out = append(out, o)
	}
	for i, a := range alts {
		s, ok := a.Const.(string)
		if !ok {
			return nil, fmt.Errorf("choice %d is not a string", i+1)
		}
		out = append(out, Option{Value: s, Title: chat.Shorten(a.Title, maxFieldTitle)})
	}
	return out, nil
}
