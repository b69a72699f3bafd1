package webhook

import (
	"net/http"
	"testing"
)

func TestTemplateMissingRendersEmpty(t *testing.T) {
	body := []byte(`{"a": {"b": "B", "n": null, "list": [1, null, {"c": "C"}]}, "big": 12345678901234567890, "f": 1.5, "t": true}`)
	js, ok := parseJSON(body)
	if !ok {
		t.Fatal("not JSON")
	}
	d := &Data{Body: "raw <no value> text", JSON: withoutNulls(js), Headers: PublicHeaders(http.Header{"X-Github-Event": {"push"}, "Authorization": {"x"}})}
	for _, tc := range []struct{ tmpl, want string }{
		{"{{.JSON.a.b}}", "B"},
		{"{{.JSON.missing}}", ""},
		{"{{.JSON.missing.deeper.still}}", ""},
		{"{{.JSON.a.n}}", ""},
		{"{{.JSON.a.n.x}}", ""},
		{`{{index .JSON "missing"}}`, ""},
		{`{{index .Headers "X-Github-Event"}}`, "push"},
		{`{{index .Headers "Authorization"}}`, ""},
		{"{{.Headers.Missing}}", ""},
		{"{{.JSON.big}} {{.JSON.f}} {{.JSON.t}}", "12345678901234567890 1.5 true"},
		{"{{range .JSON.a.list}}[{{.}}]{{end}}", "[1][][map[c:C]]"},
		{"{{if .JSON.missing}}yes{{else}}no{{end}}", "no"},
		{"{{with .JSON.a}}{{.b}}{{.zz}}{{end}}", "B"},
		{"{{$x := .JSON.missing}}[{{$x}}]", "[]"},
		{`{{define "inner"}}<{{.JSON.q}}>{{end}}{{template "inner" .}}`, "<>"},
		{"{{.Body}}", "raw <no value> text"},
		{"{{printf \"%q\" .JSON.a.b}}", `"B"`},
	} {
		tm, err := parsePrompt("t", tc.tmpl)
		if err != nil {
			t.Fatalf("%s: %v", tc.tmpl, err)
		}
		got, err := render(tm, d)
		if err != nil {
			t.Errorf("%s: %v", tc.tmpl, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s = %q, want %q", tc.tmpl, got, tc.want)
		}
	}
}

func TestTemplateFieldOfNonObjectIsError(t *testing.T) {
	js, _ := parseJSON([]byte(`[1, 2]`))
	tm, err := parsePrompt("t", "{{.JSON.x}}")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := render(tm, &Data{JSON: withoutNulls(js)}); err == nil {
		t.Fatal("a field of an array rendered")
	}
}

func TestParseJSON(t *testing.T) {
	for _, tc := range []struct {
		body string
		json bool
	}{
		{`{}`, true}, {` [1] `, true}, {`"s"`, true}, {`3`, true}, {`null`, true},
		{``, false}, {`   `, false}, {`{} {}`, false}, {`{`, false}, {`plain`, false},
	} {
		if _, ok := parseJSON([]byte(tc.body)); ok != tc.json {
			t.Errorf("parseJSON(%q) = %v", tc.body, ok)
		}
	}
}

func TestIsSecretHeader(t *testing.T) {
	for name, secret := range map[string]bool{
		"X-Podcode-Signature": true, "Authorization": true, "Proxy-Authorization": true, "Cookie": true,
		"x-api-key": true, "X-Auth-Token": true, "X-Hub-Signature-256": true, "X-Gitlab-Token": true,
		"X-Webhook-Secret": true, "Sec-Websocket-Key": true,
		"X-Podcode-Timestamp": false, "Content-Type": false, "User-Agent": false, "X-Github-Event": false,
		"X-Github-Delivery": false, "Keep-Alive": false, "Accept": false,
	} {
		if IsSecretHeader(name) != secret {
			t.Errorf("IsSecretHeader(%q) = %v", name, !secret)
		}
	}
}
