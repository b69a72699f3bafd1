package manifest

import (
	"strconv"
	"strings"

	"github.com/tailscale/hujson"
)

// offsetOf is the offset of what an error is about: the value at where (a
// path such as contributes.hooks[2].event), as deep as it exists, or, when
// field is set, the first member named field under that value.
func offsetOf(root *hujson.Value, where, field string) int {
	v := root
	for _, seg := range splitPath(where) {
		next := child(v, seg)
		if next == nil {
			break
		}
		v = next
	}
	if field != "" {
		if off, ok := findMember(v, field); ok {
			return off
		}
	}
	return v.StartOffset
}

// splitPath splits "a.b[2].c" into "a", "b", "[2]", "c".
func splitPath(where string) []string {
	var out []string
	for part := range strings.SplitSeq(where, ".") {
		for part != "" {
			i := strings.IndexByte(part, '[')
			switch {
			case i < 0:
				out, part = append(out, part), ""
			case i > 0:
				out, part = append(out, part[:i]), part[i:]
			default:
				j := strings.IndexByte(part, ']')
				if j < 0 {
					return out
				}
				out, part = append(out, part[:j+1]), part[j+1:]
			}
		}
	}
	return out
}

// child is the member or element seg names in v, or nil.
func child(v *hujson.Value, seg string) *hujson.Value {
	switch c := v.Value.(type) {
	case *hujson.Object:
		for i := range c.Members {
			if memberName(&c.Members[i]) == seg {
				return &c.Members[i].Value
			}
		}
	case *hujson.Array:
		n, err := strconv.Atoi(strings.Trim(seg, "[]"))
		if err == nil && n >= 0 && n < len(c.Elements) {
			return &c.Elements[n]
		}
	}
	return nil
}

// findMember is the offset of the first member named name under v, depth
// first.
func findMember(v *hujson.Value, name string) (int, bool) {
	switch c := v.Value.(type) {
	case *hujson.Object:
		for i := range c.Members {
			if memberName(&c.Members[i]) == name {
				return c.Members[i].Name.StartOffset, true
			}
		}
		for i := range c.Members {
			if off, ok := findMember(&c.Members[i].Value, name); ok {
				return off, true
			}
		}
	case *hujson.Array:
		for i := range c.Elements {
			if off, ok := findMember(&c.Elements[i], name); ok {
				return off, true
			}
		}
	}
	return 0, false
}

func memberName(m *hujson.ObjectMember) string {
	if lit, ok := m.Name.Value.(hujson.Literal); ok {
		return lit.String()
	}
	return ""
}

// maxNesting bounds how deep a manifest's objects and arrays nest, checked
// before parsing: the parser recurses once per level, and a file of
// millions of '[' must be an error, not an exhausted stack. podcode.json
// has the same rule (config.MaxNesting); a manifest nests five deep, so
// its bound is lower.
const maxNesting = 64
