package jsrt

import (
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// The Go half of node:url: the WHATWG URL parser (whatwgurl.go) behind
// the URL class, and IDNA for domainToASCII and domainToUnicode. A URL
// is a *webURL that JavaScript holds and passes back.

// setURL changes u as the URL setter name does with value.
func setURL(u *webURL, name, value string) {
	switch name {
	case "protocol":
		parseWebURL(value+":", nil, u, stSchemeStart)
	case "username", "password":
		if u.cannotHaveCredentialsOrPort() {
			return
		}
		v := percentEncode(value, inUserinfoSet)
		if name == "username" {
			u.username = v
		} else {
			u.password = v
		}
	case "host", "hostname":
		if u.opaque {
			return
		}
		st := stHost
		if name == "hostname" {
			st = stHostname
		}
		parseWebURL(value, nil, u, st)
	case "port":
		if u.cannotHaveCredentialsOrPort() {
			return
		}
		if value == "" {
			u.port = -1
			return
		}
		parseWebURL(value, nil, u, stPort)
	case "pathname":
		if u.opaque {
			return
		}
		u.path = nil
		parseWebURL(value, nil, u, stPathStart)
	case "search":
		if value == "" {
			u.query = nil
			u.stripOpaqueSpaces()
			return
		}
		u.query = strPtr("")
		parseWebURL(strings.TrimPrefix(value, "?"), nil, u, stQuery)
	case "hash":
		if value == "" {
			u.fragment = nil
			u.stripOpaqueSpaces()
			return
		}
		u.fragment = strPtr("")
		parseWebURL(strings.TrimPrefix(value, "#"), nil, u, stFragment)
	}
}

// stripOpaqueSpaces drops the spaces an opaque path ends with once
// nothing follows it (they would be stripped when parsed again).
func (u *webURL) stripOpaqueSpaces() {
	if u.opaque && u.fragment == nil && u.query == nil {
		u.opaquePath = strings.TrimRight(u.opaquePath, " ")
	}
}

// urlParts are the URL's components as the URL class's getters give them.
func urlParts(u *webURL) []any {
	host, hostname, port := "", "", ""
	if u.host != nil {
		host, hostname = *u.host, *u.host
		if u.port >= 0 {
			port = strconv.Itoa(u.port)
			host += ":" + port
		}
	}
	search, hash := "", ""
	var query any
	if u.query != nil {
		query = *u.query
		if *u.query != "" {
			search = "?" + *u.query
		}
	}
	if u.fragment != nil && *u.fragment != "" {
		hash = "#" + *u.fragment
	}
	return []any{u.href(false), u.origin(), u.scheme + ":", u.username, u.password, host, hostname, port, u.pathname(), search, hash, query}
}

func init() {
	nodeHosts["url"] = func(r *Runtime) (*goja.Object, error) {
		vm := r.vm
		h := vm.NewObject()
		// parse returns the URL input names against base (a string, or
		// undefined), or null when either does not parse.
		h.Set("parse", func(input string, base goja.Value) goja.Value {
			var b *webURL
			if base != nil && !goja.IsUndefined(base) {
				if b = parseURL(base.String(), nil); b == nil {
					return goja.Null()
				}
			}
			u := parseURL(input, b)
			if u == nil {
				return goja.Null()
			}
			return vm.ToValue(u)
		})
		h.Set("parts", func(v goja.Value) goja.Value {
			u, ok := v.Export().(*webURL)
			if !ok {
				panic(vm.NewTypeError("not a URL"))
			}
			return vm.ToValue(urlParts(u))
		})
		h.Set("set", func(v goja.Value, name, value string) {
			if u, ok := v.Export().(*webURL); ok {
				setURL(u, name, value)
			}
		})
		// setQuery sets the query as URLSearchParams serializes it.
		h.Set("setQuery", func(v goja.Value, q goja.Value) {
			if u, ok := v.Export().(*webURL); ok {
				if goja.IsNull(q) {
					u.query = nil
				} else {
					u.query = strPtr(q.String())
				}
			}
		})
		h.Set("domainToASCII", func(s string) string {
			out, ok := domainToASCII(s, false)
			if !ok {
				return ""
			}
			return out
		})
		h.Set("domainToUnicode", func(s string) string {
			out, ok := domainToUnicode(s)
			if !ok {
				return ""
			}
			return out
		})
		return h, nil
	}
}
