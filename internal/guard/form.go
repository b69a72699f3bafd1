package guard

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/podcode/podcode/internal/chat"
)

// Form is a question that asks for values, not only yes or no: what an
// MCP server's elicitation/create (form mode) asks the user to fill in.
// It travels as Question.Form; the question's Tool, Args and Reason are
// still set (NewFormQuestion), so that an asker that shows no forms asks
// its yes/no question about the form's defaults (AskForm).
type Form struct {
	Server  string  `json:"server"`           // the MCP server that asks, or the plugin when Plugin
	Plugin  bool    `json:"plugin,omitempty"` // a plugin's tool asks (its ctx.ask), not an MCP server
	Message string  `json:"message"`          // what the server says, as it wrote it (bounded)
	Fields  []Field `json:"fields"`           // in the order the server listed them

	// requested is the schema as DecodeForm read it, for Requested.
	requested json.RawMessage
}

// Requested is the schema to pass f on to another MCP client with: the one
// it was asked with, as it was written (a legacy enumNames stays one), or
// Schema's when that is not known (a form that came from another node).
func (f *Form) Requested() any {
	if f.requested != nil {
		return f.requested
	}
	return f.Schema()
}

// Field is one value a Form asks for: flat and primitive, as MCP's
// elicitation schema allows.
type Field struct {
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Type is FieldString, FieldNumber, FieldInteger, FieldBoolean or
	// FieldMulti (several of Options).
	Type     string `json:"type"`
	Required bool   `json:"required,omitempty"`
	// Format of a string: email, uri, date or date-time; "" for any text.
	Format string `json:"format,omitempty"`
	// Options are the values a string may take (a single choice) or a
	// FieldMulti's values are taken from; none: any value.
	Options   []Option `json:"options,omitempty"`
	MinLength *int     `json:"minLength,omitempty"`
	MaxLength *int     `json:"maxLength,omitempty"`
	Minimum   *float64 `json:"minimum,omitempty"`
	Maximum   *float64 `json:"maximum,omitempty"`
	MinItems  *int     `json:"minItems,omitempty"`
	MaxItems  *int     `json:"maxItems,omitempty"`
	// Default is the value an answer that leaves the field out gets
	// (SEP-1034): a string, a float64, a bool or, for FieldMulti, a []any
	// of strings.
	Default any `json:"default,omitempty"`
}

// Option is one value a field may take, with the title shown for it.
type Option struct {
	Value string `json:"value"`
	Title string `json:"title,omitempty"`
}

// Field types.
const (
	FieldString  = "string"
	FieldNumber  = "number"
	FieldInteger = "integer"
	FieldBoolean = "boolean"
	FieldMulti   = "array"
)

// The actions of an Answer, MCP's.
const (
	Accept  = "accept"  // the values were given
	Decline = "decline" // the user said no
	Cancel  = "cancel"  // the user dismissed it without choosing
)

// Answer is the answer to a form question.
type Answer struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"` // with Accept: every field that has a value
}

// MaxFormString bounds a string value of an answer, whatever the field's
// maxLength says.
const MaxFormString = 64 << 10

// FormAsker is an Asker that can show a form and take its values (the
// web page through the API). Askers that show only yes/no questions are
// asked through AskForm's fallback.
type FormAsker interface {
	Asker
	AskForm(ctx context.Context, q Question) (Answer, error)
}

// Who is who asks f: "the MCP server <name>" or "the plugin <id>".
func (f *Form) Who() string {
	if f.Plugin {
		return "the plugin " + f.Server
	}
	return "the MCP server " + f.Server
}

// Asks is the line that puts f to a person: "the MCP server <name> asks:
// <message>" (or "the plugin <id> asks: …"), the message cut at max bytes.
// Who asks is always said: a plugin is not an MCP server, and neither is
// Podcode.
func (f *Form) Asks(max int) string { return f.Who() + " asks: " + chat.Shorten(f.Message, max) }

// NewFormQuestion is the question of form f, asked in session during a
// call of tool (empty when none). Its Args are the values that yes
// sends and its Reason says so, so that an asker that shows no forms asks
// a question that is true as it stands: "Allow <tool>? {defaults} (the MCP
// server X asks: …; yes accepts these values, no declines)".
func NewFormQuestion(session, tool string, f *Form) Question {
	if tool == "" {
		tool = f.Server
	}
	defaults := f.Defaults()
	reason := f.Asks(300)
	if missing := f.Unfilled(); len(missing) > 0 {
		reason += fmt.Sprintf(" (%s must be filled in: only a client that shows forms can accept)", strings.Join(missing, ", "))
	} else {
		reason += " (yes accepts these values, no declines)"
	}
	return Question{ID: chat.NewID("perm"), SessionID: session, Tool: tool, Args: defaults, Reason: reason, Form: f}
}

// AskForm puts form question q to a: a FormAsker shows the form; another
// asker is asked q as a yes/no question, yes accepting the defaults and
// no declining. A form with a required field that has no default cannot be
// accepted so: it is declined without asking. A nil asker is
// ErrNobodyToAsk.
func AskForm(ctx context.Context, a Asker, q Question) (Answer, error) {
	if a == nil {
		return Answer{}, ErrNobodyToAsk
	}
	if q.Form == nil {
		return Answer{}, errors.New("a form question without a form")
	}
	if fa, ok := a.(FormAsker); ok {
		return fa.AskForm(ctx, q)
	}
	if missing := q.Form.Unfilled(); len(missing) > 0 {
		return Answer{Action: Decline}, nil
	}
	ok, err := a.Ask(ctx, q)
	if err != nil {
		return Answer{}, err
	}
	if !ok {
		return Answer{Action: Decline}, nil
	}
	return Answer{Action: Accept, Content: q.Form.Defaults()}, nil
}

// AskForm is Ask for a question an MCP server puts: a form question goes
// through AskForm to the asker Ask would use (ctx's, else SetAsker's); a
// question without a form is Ask's yes/no, yes answered Accept and no
// Decline. It waits at most AskTimeout.
func (g *Guard) AskForm(ctx context.Context, q Question) (Answer, error) {
	if q.Form == nil {
		ok, err := g.Ask(ctx, q)
		switch {
		case err != nil:
			return Answer{}, err
		case ok:
			return Answer{Action: Accept}, nil
		}
		return Answer{Action: Decline}, nil
	}
	asker := g.askerFor(ctx)
	timeout := g.AskTimeout
	if timeout <= 0 {
		timeout = DefaultAskTimeout
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ans, err := AskForm(actx, asker, q)
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return Answer{}, fmt.Errorf("nobody answered within %s", timeout)
	}
	return ans, err
}

// Schema is f as MCP's elicitation asks for it (requestedSchema): an
// object of its fields, a single choice with titles as oneOf of
// const/title, a multiple choice as an array whose items are (titled)
// choices, each with its bounds and default; for passing a form on to
// another MCP client.
func (f *Form) Schema() map[string]any {
	props := map[string]any{}
	var required []string
	for _, fl := range f.Fields {
		p := map[string]any{"type": fl.Type}
		set := func(k string, v any, ok bool) {
			if ok {
				p[k] = v
			}
		}
		set("title", fl.Title, fl.Title != "")
		set("description", fl.Description, fl.Description != "")
		set("format", fl.Format, fl.Format != "")
		set("minLength", fl.MinLength, fl.MinLength != nil)
		set("maxLength", fl.MaxLength, fl.MaxLength != nil)
		set("minimum", fl.Minimum, fl.Minimum != nil)
		set("maximum", fl.Maximum, fl.Maximum != nil)
		set("minItems", fl.MinItems, fl.MinItems != nil)
		set("maxItems", fl.MaxItems, fl.MaxItems != nil)
		set("default", fl.Default, fl.Default != nil)
		if len(fl.Options) > 0 {
			titled := slices.ContainsFunc(fl.Options, func(o Option) bool { return o.Title != "" })
			var choice map[string]any
			if titled {
				var alts []any
				for _, o := range fl.Options {
					alts = append(alts, map[string]any{"const": o.Value, "title": cmp.Or(o.Title, o.Value)})
				}
				key := "oneOf"
				if fl.Type == FieldMulti {
					key = "anyOf"
				}
				choice = map[string]any{key: alts}
			} else {
				var values []any
				for _, o := range fl.Options {
					values = append(values, o.Value)
				}
				choice = map[string]any{"enum": values}
			}
			if fl.Type == FieldMulti {
				choice["type"] = FieldString
				p["items"] = choice
			} else {
				for k, v := range choice {
					p[k] = v
				}
			}
		}
		props[fl.Name] = p
		if fl.Required {
			required = append(required, fl.Name)
		}
	}
	schema := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		schema["required"] = required
	}
	return schema
}

// Defaults are the fields' defaults, by name.
func (f *Form) Defaults() map[string]any {
	out := map[string]any{}
	for _, fl := range f.Fields {
		if fl.Default != nil {
			out[fl.Name] = fl.Default
		}
	}
	return out
}

// Unfilled names the required fields without a default.
func (f *Form) Unfilled() []string {
	var out []string
	for _, fl := range f.Fields {
		if fl.Required && fl.Default == nil {
			out = append(out, fl.Name)
		}
	}
	return out
}

// Complete is content as the server gets it: every field content leaves
// out that has a default gets it (SEP-1034), numbers become float64 and a
// multiple choice []any of strings; then every value is checked against its field
// (type, format, options, bounds) and every required field must have one.
// content is not changed. The error names the field.
func (f *Form) Complete(content map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(f.Fields))
	for k, v := range content {
		i := slices.IndexFunc(f.Fields, func(fl Field) bool { return fl.Name == k })
		if i < 0 {
			return nil, fmt.Errorf("the form has no field %q", k)
		}
		if v == nil {
			continue // null: left out
		}
		val, err := f.Fields[i].check(v)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", k, err)
		}
		out[k] = val
	}
	for _, fl := range f.Fields {
		if _, ok := out[fl.Name]; ok {
			continue
		}
		if fl.Default != nil {
			val, err := fl.check(fl.Default)
			if err != nil {
				return nil, fmt.Errorf("field %q: its default: %w", fl.Name, err)
			}
			out[fl.Name] = val
			continue
		}
		if fl.Required {
			return nil, fmt.Errorf("field %q is required", fl.Name)
		}
	}
	return out, nil
}

// check is v as field fl's value, or why it is not one.
func (fl *Field) check(v any) (any, error) {
	switch fl.Type {
	case FieldString:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%s is not a string", describe(v))
		}
		return s, fl.checkString(s)
	case FieldNumber, FieldInteger:
		n, ok := number(v)
		if !ok {
			return nil, fmt.Errorf("%s is not a number", describe(v))
		}
		if fl.Type == FieldInteger && n != math.Trunc(n) {
			return nil, fmt.Errorf("%v is not an integer", n)
		}
		if fl.Minimum != nil && n < *fl.Minimum {
			return nil, fmt.Errorf("%v is below the minimum %v", n, *fl.Minimum)
		}
		if fl.Maximum != nil && n > *fl.Maximum {
			return nil, fmt.Errorf("%v is above the maximum %v", n, *fl.Maximum)
		}
		return n, nil
	case FieldBoolean:
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("%s is not true or false", describe(v))
		}
		return b, nil
	case FieldMulti:
		var list []string
		switch v := v.(type) {
		case []string:
			list = slices.Clone(v)
		case []any:
			for _, x := range v {
				s, ok := x.(string)
				if !ok {
					return nil, fmt.Errorf("%s in the list is not a string", describe(x))
				}
				list = append(list, s)
			}
		default:
			return nil, fmt.Errorf("%s is not a list", describe(v))
		}
		for i, s := range list {
			if !fl.allows(s) {
				return nil, fmt.Errorf("%q is not one of the choices", chat.Shorten(s, 80))
			}
			if slices.Contains(list[:i], s) {
				return nil, fmt.Errorf("%q is chosen twice", chat.Shorten(s, 80))
			}
		}
		if fl.MinItems != nil && len(list) < *fl.MinItems {
			return nil, fmt.Errorf("%d chosen, fewer than %d", len(list), *fl.MinItems)
		}
		if fl.MaxItems != nil && len(list) > *fl.MaxItems {
			return nil, fmt.Errorf("%d chosen, more than %d", len(list), *fl.MaxItems)
		}
		out := make([]any, len(list)) // as encoding/json decodes a list
		for i, s := range list {
			out[i] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown field type %q", fl.Type)
}

func (fl *Field) checkString(s string) error {
	if !utf8.ValidString(s) {
		return errors.New("the text is not UTF-8")
	}
	n := utf8.RuneCountInString(s)
	if len(s) > MaxFormString {
		return fmt.Errorf("the text is longer than %d bytes", MaxFormString)
	}
	if fl.MinLength != nil && n < *fl.MinLength {
		return fmt.Errorf("the text is shorter than %d characters", *fl.MinLength)
	}
	if fl.MaxLength != nil && n > *fl.MaxLength {
		return fmt.Errorf("the text is longer than %d characters", *fl.MaxLength)
	}
	if len(fl.Options) > 0 && !fl.allows(s) {
		return fmt.Errorf("%q is not one of the choices", chat.Shorten(s, 80))
	}
	switch fl.Format {
	case "email":
		if a, err := mail.ParseAddress(s); err != nil || a.Address != s {
			return fmt.Errorf("%q is not an email address", chat.Shorten(s, 80))
		}
	case "uri":
		if u, err := url.Parse(s); err != nil || u.Scheme == "" {
			return fmt.Errorf("%q is not an absolute URI", chat.Shorten(s, 80))
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return fmt.Errorf("%q is not a date (YYYY-MM-DD)", chat.Shorten(s, 80))
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return fmt.Errorf("%q is not a date and time (RFC 3339)", chat.Shorten(s, 80))
		}
	}
	return nil
}

func (fl *Field) allows(s string) bool {
	return slices.ContainsFunc(fl.Options, func(o Option) bool { return o.Value == s })
}

// number is v as a float64: what encoding/json decodes, or a Go number.
func number(v any) (float64, bool) {
	var n float64
	switch v := v.(type) {
	case float64:
		n = v
	case float32:
		n = float64(v)
	case int:
		n = float64(v)
	case int64:
		n = float64(v)
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return 0, false
		}
		n = f
	default:
		return 0, false
	}
	return n, !math.IsNaN(n) && !math.IsInf(n, 0)
}

func describe(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("a %T", v)
	}
	return chat.Shorten(string(b), 80)
}
