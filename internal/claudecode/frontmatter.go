package claudecode

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/podcode/podcode/internal/chat"
)

// meta is a Markdown file's frontmatter: its keys' values, and the line of
// each key, for warnings that point at it.
type meta struct {
	file string
	vals map[string]any
	line map[string]int
}

// splitFrontmatter splits data, the Markdown file file, into its
// frontmatter (YAML between a first line "---" and the next line "---")
// and its body, which begins on line bodyLine. A file without frontmatter
// is all body. Frontmatter that is not YAML is read as Claude Code reads
// it then, as "key: value" lines whose value is the rest of the line (a
// description with a colon in it is common); a line that is neither is an
// error naming the file and line.
func splitFrontmatter(file string, data []byte) (m meta, body string, bodyLine int, err error) {
	m = meta{file: file, vals: map[string]any{}, line: map[string]int{}}
	text := strings.TrimPrefix(string(data), "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if !strings.HasPrefix(text, "---\n") {
		return m, text, 1, nil
	}
	rest := text[len("---\n"):]
	end := -1
	for off := 0; off <= len(rest); {
		nl := strings.IndexByte(rest[off:], '\n')
		line := rest[off:]
		if nl >= 0 {
			line = rest[off : off+nl]
		}
		if strings.TrimRight(line, " \t") == "---" {
			end = off
			break
		}
		if nl < 0 {
			break
		}
		off += nl + 1
	}
	if end < 0 {
		return m, "", 0, fmt.Errorf("%s:1: the frontmatter begun by --- never ends (no closing --- line)", file)
	}
	front := rest[:end]
	after := rest[end:]
	if nl := strings.IndexByte(after, '\n'); nl >= 0 {
		after = after[nl+1:]
	} else {
		after = ""
	}
	bodyLine = 2 + strings.Count(front, "\n") + 1
	if err := m.decodeYAML(front); err != nil {
		if lerr := m.decodeLines(front); lerr != nil {
			return m, "", 0, lerr
		}
	}
	return m, after, bodyLine, nil
}

// decodeYAML reads front as a YAML mapping; lines are counted from the
// file's first line (the opening ---).
func (m *meta) decodeYAML(front string) error {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader([]byte(front)))
	if err := dec.Decode(&doc); err != nil {
		if strings.TrimSpace(front) == "" {
			return nil
		}
		return err
	}
	if len(doc.Content) == 0 {
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return fmt.Errorf("not a mapping")
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		var val any
		if err := v.Decode(&val); err != nil {
			return err
		}
		m.vals[k.Value] = val
		m.line[k.Value] = k.Line + 1
	}
	return nil
}

// decodeLines reads front as "key: value" lines.
func (m *meta) decodeLines(front string) error {
	clear(m.vals)
	clear(m.line)
	last := ""
	for i, line := range strings.Split(front, "\n") {
		n := i + 2
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		if (line[0] == ' ' || line[0] == '\t') && last != "" {
			// A continuation of the value above.
			if s, ok := m.vals[last].(string); ok {
				m.vals[last] = strings.TrimSpace(s + " " + strings.TrimSpace(line))
			}
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return fmt.Errorf("%s:%d: the frontmatter line %q is not \"key: value\"", m.file, n, chat.Shorten(line, 60))
		}
		v = strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		var val any = v
		switch v { // as YAML reads them: user-invocable: false
		case "true":
			val = true
		case "false":
			val = false
		}
		m.vals[k], m.line[k], last = val, n, k
	}
	return nil
}

// at is where key is written, "file:line".
func (m *meta) at(key string) string {
	if n := m.line[key]; n > 0 {
		return fmt.Sprintf("%s:%d", m.file, n)
	}
	return m.file
}

// str is key's value as text; a value of another kind is a warning and "".
func (m *meta) str(key string, warn func(string)) string {
	switch v := m.vals[key].(type) {
	case nil:
		return ""
	case string:
		return strings.TrimSpace(v)
	case bool, int, float64:
		return fmt.Sprint(v)
	case []any:
		// argument-hint: [message] is YAML for a list: Claude Code shows
		// it as written.
		parts := make([]string, 0, len(v))
		for _, e := range v {
			parts = append(parts, fmt.Sprint(e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	default:
		warn(fmt.Sprintf("%s: %s: not text; ignored", m.at(key), key))
		return ""
	}
}

// list is key's value as names: a YAML list, or text separated by commas
// (allowed-tools: Bash(git add:*), Read). A comma inside parentheses
// belongs to its name. nil when the key is absent.
func (m *meta) list(key string, warn func(string)) []string {
	switch v := m.vals[key].(type) {
	case nil:
		return nil
	case string:
		return splitNames(v)
	case []any:
		out := []string{}
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				warn(fmt.Sprintf("%s: %s: %v is not a name; ignored", m.at(key), key, e))
				continue
			}
			out = append(out, splitNames(s)...)
		}
		return out
	default:
		warn(fmt.Sprintf("%s: %s: not a list of names; ignored", m.at(key), key))
		return nil
	}
}

// splitNames splits s at commas outside parentheses, and at spaces
// between names when s has no comma.
func splitNames(s string) []string {
	out := []string{}
	depth, start := 0, 0
	hasComma := false
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			if depth > 0 {
				depth--
			}
		case ',':
			if depth == 0 {
				hasComma = true
				if p := strings.TrimSpace(s[start:i]); p != "" {
					out = append(out, p)
				}
				start = i + 1
			}
		}
	}
	if p := strings.TrimSpace(s[start:]); p != "" {
		if !hasComma && !strings.Contains(p, "(") {
			return append(out, strings.Fields(p)...)
		}
		out = append(out, p)
	}
	return out
}
