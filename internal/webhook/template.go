package webhook

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"text/template"
	"text/template/parse"
)

// Data is what a webhook's prompt template sees.
//
//   - .Body is the request body as text.
//   - .JSON is the body parsed as JSON when it is JSON (nil otherwise):
//     objects are map[string]any, arrays []any, numbers json.Number (so
//     large ids print as sent, not as 1.2e+18); null members of objects are
//     left out, so that {{.JSON.pull_request.title}} with "pull_request":
//     null renders empty like a missing one.
//   - .Headers are the request's headers without the secret ones (see
//     [PublicHeaders]), by canonical name, several values joined with ", ":
//     {{index .Headers "X-Github-Event"}}.
//
// A missing field, key or header renders as the empty string, however deep
// (not "<no value>", and not an error). Using a field of something that is
// not an object (.JSON.x when the body is an array) is an error of the
// template at that request, answered 422.
type Data struct {
	Body    string
	JSON    any
	Headers map[string]string
}

// orEmptyFunc is the function appended to every printing action. It is not
// part of the template language offered to users: a template that calls it
// by name fails to parse, since it is only added after parsing.
const orEmptyFunc = "podcodeOrEmpty"

// parsePrompt parses the prompt template of webhook name. Missing keys are
// invalid values (missingkey=default), which field chains pass on without
// an error, and every action that prints ends with orEmptyFunc, which turns
// them (and nil) into "".
func parsePrompt(name, text string) (*template.Template, error) {
	t, err := template.New(name).Option("missingkey=default").Parse(text)
	if err != nil {
		return nil, err
	}
	t.Funcs(template.FuncMap{orEmptyFunc: orEmpty})
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			emptyForMissing(tt.Tree, tt.Tree.Root)
		}
	}
	return t, nil
}

func orEmpty(v any) any {
	if v == nil {
		return ""
	}
	return v
}

// emptyForMissing appends `| podcodeOrEmpty` to every action under n that
// prints (an action with a declaration or assignment prints nothing).
func emptyForMissing(tree *parse.Tree, n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			emptyForMissing(tree, c)
		}
	case *parse.ActionNode:
		if n.Pipe == nil || len(n.Pipe.Decl) > 0 {
			return
		}
		id := parse.NewIdentifier(orEmptyFunc).SetTree(tree).SetPos(n.Pos)
		n.Pipe.Cmds = append(n.Pipe.Cmds, &parse.CommandNode{NodeType: parse.NodeCommand, Pos: n.Pos, Args: []parse.Node{id}})
	case *parse.IfNode:
		emptyForMissing(tree, n.List)
		emptyForMissing(tree, n.ElseList)
	case *parse.RangeNode:
		emptyForMissing(tree, n.List)
		emptyForMissing(tree, n.ElseList)
	case *parse.WithNode:
		emptyForMissing(tree, n.List)
		emptyForMissing(tree, n.ElseList)
	}
}

// render executes t over d.
func render(t *template.Template, d *Data) (string, error) {
	var b bytes.Buffer
	if err := t.Execute(&b, d); err != nil {
		return "", err
	}
	return b.String(), nil
}

// parseJSON returns body parsed as one JSON value (numbers as json.Number),
// and whether it is JSON at all. Empty or whitespace-only is not.
func parseJSON(body []byte) (any, bool) {
	if !json.Valid(body) {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false
	}
	return v, true
}

// withoutNulls returns a copy of v without the null members of its objects
// (null elements of arrays stay: their positions mean something).
func withoutNulls(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			if x != nil {
				out[k] = withoutNulls(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			out[i] = withoutNulls(x)
		}
		return out
	}
	return v
}

// secretWords are the parts of a header name that mark it as carrying a
// secret; the names are compared case-insensitively. They are the words
// internal/logging redacts by, plus signature and cookie. Authorization,
// Proxy-Authorization, Cookie and X-Podcode-Signature are among the names
// they match.
var secretWords = []string{"secret", "token", "signature", "key", "password", "passwd", "credential", "auth", "cookie"}

// IsSecretHeader reports whether a request header of this name may carry a
// secret, and so is kept out of WebhookReceived's extra, the prompt and the
// logs.
func IsSecretHeader(name string) bool {
	n := strings.ToLower(name)
	for _, w := range secretWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// PublicHeaders returns h without its secret headers (IsSecretHeader), by
// canonical name, several values of one header joined with ", ".
func PublicHeaders(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for k, vs := range h {
		if IsSecretHeader(k) {
			continue
		}
		k = http.CanonicalHeaderKey(k)
		v := strings.Join(vs, ", ")
		if prev, ok := out[k]; ok { // h was built by hand with a non-canonical key
			v = prev + ", " + v
		}
		out[k] = v
	}
	return out
}
