package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/pipeline"
)

// CreateSession is the body of POST /sessions.
type CreateSession struct {
	Title string `json:"title,omitempty"`
	Model string `json:"model,omitempty" jsonschema:"provider/model"`
}

// PostMessage is the body of POST /sessions/{id}/messages.
type PostMessage struct {
	Text   string         `json:"text"`
	Async  bool           `json:"async,omitempty" jsonschema:"answer 202 at once; follow the turn on /events (a turn refused before it started, by a hook or a turn already running, is announced there as turn.refused, with the error)"`
	Params map[string]any `json:"params,omitempty" jsonschema:"chat.params tunables the client specifies (pipeline.Tunables)"`
}

// PermissionReply is the body of POST /permissions/{id}: allow for a
// yes/no question; for a question with a form (an MCP server's
// elicitation: the event's question.form), action and content, or allow
// (true accepts the form's defaults, false declines).
type PermissionReply struct {
	Allow   bool           `json:"allow,omitempty"` // false when left out
	Action  string         `json:"action,omitempty" jsonschema:"accept, decline or cancel; takes the place of allow (accept is allow true)"`
	Content map[string]any `json:"content,omitempty" jsonschema:"with action accept, for a question with a form: its values by field name; a field left out gets its default; values that do not fit the form answer 400 and the question stays pending"`
}

// validator is a body that checks itself after decoding.
type validator interface{ validate() error }

func (b *CreateSession) validate() error {
	if b.Model != "" && !strings.Contains(b.Model, "/") {
		return fmt.Errorf("model %q is not of the form provider/model", b.Model)
	}
	return nil
}

func (b *PostMessage) validate() error {
	if strings.TrimSpace(b.Text) == "" {
		return errors.New(`"text" is required`)
	}
	for k := range b.Params {
		known := false
		for _, t := range pipeline.Tunables {
			known = known || k == t
		}
		if !known {
			return fmt.Errorf("params: unknown key %q (known: %s)", k, strings.Join(pipeline.Tunables, ", "))
		}
	}
	return nil
}

func (b *PermissionReply) validate() error {
	switch b.Action {
	case "", guard.Accept, guard.Decline, guard.Cancel:
	default:
		return fmt.Errorf("action %q is not accept, decline or cancel", b.Action)
	}
	if b.Content != nil && b.Action != guard.Accept {
		return errors.New(`content goes with "action": "accept"`)
	}
	return nil
}

// DecodeBody decodes one JSON value from r into v, refusing unknown fields
// and trailing data, and validates it. The error says what was wrong and
// where (the field, or the byte offset).
func DecodeBody(r io.Reader, v validator) error {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.Is(err, io.EOF):
			return v.validate() // an empty body is an empty object
		case errors.Is(err, io.ErrUnexpectedEOF):
			return errors.New("the body is not valid JSON: it ends too early")
		case errors.As(err, &se):
			return fmt.Errorf("the body is not valid JSON at byte %d: %v", se.Offset, err)
		case errors.As(err, &te):
			return fmt.Errorf("field %q: want %s, found a JSON %s", te.Field, te.Type, te.Value)
		case strings.Contains(err.Error(), "request body too large"):
			return fmt.Errorf("the body is larger than %d bytes", MaxBody)
		default:
			return fmt.Errorf("bad body: %v", err)
		}
	}
	if dec.More() {
		return errors.New("the body holds more than one JSON value")
	}
	return v.validate()
}
