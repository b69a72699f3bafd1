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
	c.UseLoader(noLoader{})
	// An absolute URL of its own, so that a relative reference does not
	// resolve against the server's working directory (and name it).
	const self = "https://tool.podcode.invalid/schema.json"
	if err := c.AddResource(self, doc); err != nil {
		return nil, err
	}
	s, err := c.Compile(self)
	if err != nil {
		return nil, err
	}
	return &compiledSchema{s: s}, nil
}

// noLoader refuses every schema a tool's schema refers to outside itself.
// A schema comes from a plugin or an MCP server: the compiler's default
// would read any file:// URL it names (a FIFO, or standard input, would
// hang the call), and the validation errors would tell the model what the
// file holds.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("the schema refers to %s: only references within the tool's own schema are followed", url)
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
