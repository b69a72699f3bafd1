package tool

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// compiledSchema validates arguments against a tool's JSON Schema.
type compiledSchema struct {
	s *jsonschema.Schema
}

var printer = message.NewPrinter(language.English)

// compileSchema compiles raw, a JSON Schema (draft 2020-12 unless it says
// otherwise). An empty schema accepts any object.
func compileSchema(raw json.RawMessage) (*compiledSchema, error) {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{"type":"object"}`)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("tool.json", doc); err != nil {
		return nil, err
	}
	s, err := c.Compile("tool.json")
	if err != nil {
		return nil, err
	}
	return &compiledSchema{s: s}, nil
}

// validate checks args. The error names each failing field by its path
// (e.g. "options.timeout: got string, want number").
func (c *compiledSchema) validate(args map[string]any) error {
	// The validator wants JSON values: numbers as float64 or json.Number,
	// objects as map[string]any. Round-trip to normalise Go values.
	b, err := json.Marshal(args)
	if err != nil {
		return fmt.Errorf("arguments are not JSON: %w", err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return err
	}
	err = c.s.Validate(v)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var msgs []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			field := strings.Join(e.InstanceLocation, ".")
			if field == "" {
				field = "arguments"
			}
			msgs = append(msgs, field+": "+e.ErrorKind.LocalizedString(printer))
			return
		}
		for _, cause := range e.Causes {
			walk(cause)
		}
	}
	walk(ve)
	sort.Strings(msgs)
	return errors.New(strings.Join(msgs, "; "))
}
