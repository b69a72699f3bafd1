package jsrt

import (
	"testing"
	"unicode/utf8"
)

// The URL parser never panics, whatever it is given as input, base or
// setter value, and what it serializes parses back to itself.
func FuzzParseWebURL(f *testing.F) {
	for _, s := range []string{
		"https://user:pw@example.com:8080/p/a/t/h?query=string&a=1#hash", "http://[::ffff:192.168.0.1]/", "http://0x7f.1/",
		"file:///C|/x/../..", "mailto:a@b", "foo://h:99/p", "http://münchen.de/", "//x", "../a", "?q", "#f", "http://[1:2:3:4:5:6:7:8:9]/",
		"file://host/share", "data:text/plain,hi ", "http://a:b@c:d@x/", "sc://%zz/", "http://x/%2e%2E/..",
	} {
		f.Add(s, "http://base.example/a/b?c#d", "setter")
	}
	f.Fuzz(func(t *testing.T, input, base, value string) {
		if !utf8.ValidString(input) || !utf8.ValidString(base) || !utf8.ValidString(value) {
			return // JavaScript hands the parser valid UTF-8 only
		}
		u := parseURL(input, parseURL(base, nil))
		if u == nil {
			return
		}
		href := u.href(false)
		again := parseURL(href, nil)
		if again == nil {
			t.Fatalf("%q parsed to %q, which does not parse", input, href)
		}
		if h := again.href(false); h != href {
			t.Fatalf("%q parsed to %q, which parses to %q", input, href, h)
		}
		_ = u.origin()
		for _, name := range []string{"protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"} {
			c := parseURL(href, nil) // a copy to set
			setURL(c, name, value)
			_ = urlParts(c)
		}
	})
}

// Hosts serialize as the URL Standard says.
func TestParseHost(t *testing.T) {
	for in, want := range map[string]string{
		"EXAMPLE.com": "example.com", "0x7f.1": "127.0.0.1", "4294967295": "255.255.255.255", "[::1]": "[::1]",
		"[0:0:0:0:0:0:0:1]": "[::1]", "[1:0:0:2:0:0:0:3]": "[1:0:0:2::3]", "[::ffff:1.2.3.4]": "[::ffff:102:304]", "münchen.de": "xn--mnchen-3ya.de",
		"%41.com": "a.com", "1.2.3.4.": "1.2.3.4",
	} {
		if got, ok := parseHost(in, false); !ok || got != want {
			t.Errorf("parseHost(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{"4294967296", "[::1", "[g::1]", "a b", "1.2.3.4.5", "xn--", "%zz%", ""} {
		if got, ok := parseHost(in, false); ok {
			t.Errorf("parseHost(%q) = %q; want a failure", in, got)
		}
	}
}
