package guard

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

func ptr[T any](v T) *T { return &v }

// testForm has a field of every kind.
var testForm = &Form{Server: "probe", Message: "Who are you?", Fields: []Field{
	{Name: "name", Type: FieldString, Required: true, MinLength: ptr(2), MaxLength: ptr(10)},
	{Name: "email", Type: FieldString, Format: "email"},
	{Name: "site", Type: FieldString, Format: "uri"},
	{Name: "born", Type: FieldString, Format: "date"},
	{Name: "at", Type: FieldString, Format: "date-time"},
	{Name: "age", Type: FieldInteger, Minimum: ptr(0.0), Maximum: ptr(150.0), Default: 30.0},
	{Name: "score", Type: FieldNumber, Default: 95.5},
	{Name: "status", Type: FieldString, Options: []Option{{Value: "active"}, {Value: "inactive", Title: "Not active"}}, Default: "active"},
	{Name: "ok", Type: FieldBoolean, Default: true},
	{Name: "tags", Type: FieldMulti, Options: []Option{{Value: "a"}, {Value: "b"}}, MaxItems: ptr(1), Default: []any{"a"}},
}}

// Complete fills in defaults (SEP-1034) and checks every value against its
// field; the error names the field and says what is wrong.
func TestFormComplete(t *testing.T) {
	got, err := testForm.Complete(map[string]any{"name": "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"name": "Ann", "age": 30.0, "score": 95.5, "status": "active", "ok": true, "tags": []any{"a"}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if got, err := testForm.Complete(map[string]any{"name": "Ann", "age": 41, "ok": false, "tags": []string{"b"}, "email": "ann@example.com",
		"site": "https://example.com", "born": "1990-02-03", "at": "2025-01-31T09:30:00Z", "email_unused": nil}); err == nil {
		t.Fatalf("an unknown field was taken: %v", got)
	}
	got, err = testForm.Complete(map[string]any{"name": "Ann", "age": 41, "ok": false, "tags": []string{"b"}, "email": "ann@example.com",
		"site": "https://example.com", "born": "1990-02-03", "at": "2025-01-31T09:30:00Z", "score": nil})
	if err != nil {
		t.Fatal(err)
	}
	if got["age"] != 41.0 || got["ok"] != false || fmt.Sprint(got["tags"]) != "[b]" || got["score"] != 95.5 {
		t.Fatalf("got %v", got)
	}
	for _, c := range []struct {
		content map[string]any
		want    string
	}{
		{map[string]any{}, `field "name" is required`},
		{map[string]any{"name": "A"}, `field "name": the text is shorter than 2`},
		{map[string]any{"name": "Annabelle-Lee"}, `longer than 10`},
		{map[string]any{"name": 7.0}, `field "name": 7 is not a string`},
		{map[string]any{"name": "Ann", "email": "ann"}, `not an email address`},
		{map[string]any{"name": "Ann", "site": "example.com"}, `not an absolute URI`},
		{map[string]any{"name": "Ann", "born": "3 Feb"}, `not a date`},
		{map[string]any{"name": "Ann", "at": "2025-01-31"}, `not a date and time`},
		{map[string]any{"name": "Ann", "age": 1.5}, `1.5 is not an integer`},
		{map[string]any{"name": "Ann", "age": 200.0}, `above the maximum 150`},
		{map[string]any{"name": "Ann", "age": "30"}, `is not a number`},
		{map[string]any{"name": "Ann", "status": "gone"}, `"gone" is not one of the choices`},
		{map[string]any{"name": "Ann", "ok": "yes"}, `is not true or false`},
		{map[string]any{"name": "Ann", "tags": []any{"a", "b"}}, `more than 1`},
		{map[string]any{"name": "Ann", "tags": []any{"c"}}, `"c" is not one of the choices`},
		{map[string]any{"name": "Ann", "tags": "a"}, `is not a list`},
		{map[string]any{"name": "Ann", "nick": "x"}, `no field "nick"`},
		{map[string]any{"name": strings.Repeat("x", MaxFormString+1)}, `longer than`},
	} {
		if _, err := testForm.Complete(c.content); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.content, err, c.want)
		}
	}
}

type yes struct{ asked []Question }

func (y *yes) Ask(_ context.Context, q Question) (bool, error) {
	y.asked = append(y.asked, q)
	return true, nil
}

// A yes/no asker is asked the form's question as it stands (its Args the
// defaults, its Reason saying what yes does); yes accepts the defaults. A
// form with a required field without a default is declined unasked.
func TestAskFormFallsBackToYesNo(t *testing.T) {
	f := &Form{Server: "probe", Message: "Go?", Fields: []Field{{Name: "n", Type: FieldNumber, Default: 2.0}}}
	q := NewFormQuestion("ses_1", "probe_go", f)
	if q.Tool != "probe_go" || q.Args["n"] != 2.0 || !strings.Contains(q.Reason, "the MCP server probe asks: Go? (yes accepts these values") {
		t.Fatalf("%+v", q)
	}
	y := &yes{}
	g := &Guard{}
	g.SetAsker(y)
	ans, err := g.AskForm(context.Background(), q)
	if err != nil || ans.Action != Accept || ans.Content["n"] != 2.0 || len(y.asked) != 1 {
		t.Fatalf("%+v %v", ans, err)
	}
	ans, err = g.AskForm(context.Background(), NewFormQuestion("ses_1", "probe_go", testForm))
	if err != nil || ans.Action != Decline || len(y.asked) != 1 {
		t.Fatalf("a form with a required field without default: %+v %v, asked %d", ans, err, len(y.asked))
	}
	// A question without a form is a yes/no one.
	if ans, err := g.AskForm(context.Background(), Question{ID: "q", Tool: "x"}); err != nil || ans.Action != Accept {
		t.Fatalf("%+v %v", ans, err)
	}
	if _, err := (&Guard{}).AskForm(context.Background(), q); err != ErrNobodyToAsk {
		t.Fatalf("nobody to ask: %v", err)
	}
}
