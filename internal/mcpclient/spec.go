package mcpclient

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tailscale/hujson"

	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/trust"
)

// Transports of a Spec.
const (
	Stdio = "stdio" // a command Podcode starts, JSON-RPC lines on its stdin and stdout
	HTTP  = "http"  // streamable HTTP
	SSE   = "sse"   // the older HTTP+SSE transport
	// Remote is a URL whose transport is found out: streamable HTTP, then
	// SSE when the server does not take it (opencode's "remote").
	Remote = "remote"
)

// ProjectFile is the project's MCP configuration in Claude Code's shape.
const ProjectFile = ".mcp.json"

// maxProjectFile bounds what is read of ProjectFile, as other project
// configuration is bounded.
const maxProjectFile = 4 << 20

// Spec is one MCP server as Podcode starts it, from podcode.json's mcp or
// from the project's .mcp.json.
type Spec struct {
	Name      string
	Transport string            // Stdio, HTTP, SSE or Remote
	Command   string            // Stdio: the program
	Args      []string          // Stdio: its arguments
	Env       map[string]string // Stdio: added to Podcode's environment
	URL       string            // HTTP, SSE, Remote
	Headers   map[string]string // HTTP, SSE, Remote
	// Timeout bounds start-up (connecting, listing the tools) and each
	// call; zero for the defaults (Options.StartTimeout, CallTimeout).
	Timeout time.Duration
	// Project: declared by the project (its podcode.json or .mcp.json):
	// project code, started only once trusted.
	Project bool
	// Origin is where it was declared: "file:line".
	Origin string
	// Sampling is the user's policy for the server's sampling requests
	// (SamplingAllow, SamplingAsk, SamplingDeny; "" asks): podcode.json's
	// mcp.<name>.sampling, from the user's file only.
	Sampling string
	// OAuth is the user's oauth entry for a remote server ({env:NAME}
	// expanded), nil for none: podcode.json's mcp.<name>.oauth, from the
	// user's file only (see oauth.go).
	OAuth *config.MCPOAuth
	// entry is the declaration as written, canonical JSON: what the trust
	// fingerprint covers besides the files the command runs.
	entry []byte
	file  string // the declaring file, for trust's shown names
	// claude: declared in Claude Code's shape (.mcp.json, a Claude Code
	// plugin), whose ${NAME} Expand fills in.
	claude bool
}

// Specs returns the servers podcode.json's mcp declares (the user's, then
// the project's; config.Config.MCP merged them), then those of the
// project's .mcp.json that neither file names; disabled entries are left
// out. {env:NAME} in the user's file is expanded here (config.Keys lets no
// project's value that holds one through); ${NAME} and ${NAME:-default} in
// .mcp.json are expanded as Claude Code expands them, once the entry is
// trusted (Expand). The Claude Code plugins' servers (PluginSpecs) come
// last. Problems that leave a server out are warnings.
func Specs(cfg *config.Config, cwd string, plugins ...Spec) (specs []Spec, warnings []string, err error) {
	for _, name := range slices.Sorted(maps.Keys(cfg.MCP)) {
		m := cfg.MCP[name]
		if m.Enabled != nil && !*m.Enabled {
			continue
		}
		s := Spec{Name: name, Project: m.Project, Origin: fmt.Sprintf("%s:%d", m.File, m.Line), file: m.File,
			Timeout: time.Duration(m.Timeout) * time.Millisecond}
		s.entry, _ = json.Marshal(m)
		if !m.Project { // config.Keys drops a project's value; not trusted here either
			s.Sampling = m.Sampling
		}
		expand := func(v string) string { return v }
		if !m.Project {
			expand = config.ExpandEnv
		}
		switch m.Type {
		case "local":
			s.Transport, s.Command, s.Args = Stdio, expand(m.Command[0]), mapSlice(m.Command[1:], expand)
			s.Env = mapValues(m.Environment, expand)
		case "remote":
			s.Transport, s.URL, s.Headers = Remote, expand(m.URL), mapValues(m.Headers, expand)
			if m.OAuth != nil && !m.Project { // config.Keys drops a project's
				o := *m.OAuth
				o.ClientID, o.ClientSecret, o.Issuer = expand(o.ClientID), expand(o.ClientSecret), expand(o.Issuer)
				s.OAuth = &o
			}
		}
		specs = append(specs, s)
	}
	fromFile, warnings, err := ReadProjectFile(cwd)
	if err != nil {
		return nil, warnings, err
	}
	for _, s := range fromFile {
		if _, ok := cfg.MCP[s.Name]; ok {
			warnings = append(warnings, fmt.Sprintf("%s: MCP server %q ignored: podcode.json has a server of that name", s.Origin, s.Name))
			continue
		}
		specs = append(specs, s)
	}
	specs = append(specs, plugins...)
	specs, refused := refuseOverlapping(specs)
	return specs, append(warnings, refused...), nil
}

// NamesOverlap reports whether two servers' names overlap: one, with
// "_", begins the other ("github" and "github_evil"), so that their tools'
// ids, and the permission rules written for one server's tools, can be the
// other's too (see refuseOverlapping).
func NamesOverlap(a, b string) bool {
	a, b = sanitize(a), sanitize(b)
	return strings.HasPrefix(b, a+"_") || strings.HasPrefix(a, b+"_")
}

// refuseOverlapping leaves out a project's server whose name, with "_",
// begins another's, or the other's begins its ("github" and "github_evil"):
// the ids of the two servers' tools can then be the same ("github_evil_x"
// is github's tool evil_x and github_evil's x), and a permission rule
// written for one server's tools ("github_*", "mcp__github__*") matches
// the other's too, so that a project could name its server to be allowed
// what the user allowed theirs. Of two project servers the later is left
// out; two of the user's both stay (whose id the user's rules cover is the
// user's choice, and a tool id both servers give goes to the first to
// register it). Each refusal is a warning that names both servers.
func refuseOverlapping(specs []Spec) (kept []Spec, warnings []string) {
	refuse := func(s, other Spec) {
		whose := "the user's"
		if other.Project {
			whose = "the project's"
		}
		warnings = append(warnings, fmt.Sprintf("%s: MCP server %q ignored: its tools' ids and those of %s server %q (%s) can be the same, and a permission rule for one server's tools would match the other's; rename it",
			s.Origin, s.Name, whose, other.Name, other.Origin))
	}
	for _, s := range specs {
		ok := true
		for i := 0; i < len(kept); i++ {
			k := kept[i]
			if !NamesOverlap(s.Name, k.Name) || !s.Project && !k.Project {
				continue
			}
			if s.Project {
				refuse(s, k)
				ok = false
				break
			}
			refuse(k, s) // a project's server that came first
			kept = slices.Delete(kept, i, i+1)
			i--
		}
		if ok {
			kept = append(kept, s)
		}
	}
	return kept, warnings
}

func mapSlice(in []string, f func(string) string) []string {
	out := make([]string, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

func mapValues(in map[string]string, f func(string) string) map[string]string {
	if in == nil {
		return nil
	}
	out := make(map[string]string, len(in))
	for k, v := range in {
		out[k] = f(v)
	}
	return out
}

// claudeEntry is one server of .mcp.json's mcpServers.
type claudeEntry struct {
	Type    string            `json:"type"` // "stdio" (or empty, with a command), "http", "sse"
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// ReadProjectFile reads the project's .mcp.json (Claude Code's shape:
// {"mcpServers": {"<name>": {"command", "args", "env"} or {"type": "http" |
// "sse", "url", "headers"}}}), comments allowed. No file is no servers. A
// file that is not JSON, or not of that shape, is an error that names the
// file, line and column; an entry that cannot be used is a warning that
// names it, and the others load.
func ReadProjectFile(cwd string) ([]Spec, []string, error) {
	path := filepath.Join(cwd, ProjectFile)
	data, err := trust.ReadFile(path, maxProjectFile)
	if os.IsNotExist(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return ParseProjectFile(path, data)
}

// ParseProjectFile is ReadProjectFile's decoding of data, read from path.
func ParseProjectFile(path string, data []byte) ([]Spec, []string, error) {
	return parseServers(path, data, false)
}

// parseServers reads the mcpServers of the JSON object data (path's);
// within another file (a Claude Code plugin's plugin.json), its other keys
// are the file's own and not warned of.
func parseServers(path string, data []byte, within bool) ([]Spec, []string, error) {
	v, perr := config.ParseJSONC(path, data, config.MaxNesting)
	if perr != nil {
		return nil, nil, perr
	}
	root, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, nil, &config.Error{File: path, Line: 1, Col: 1, Msg: "not a JSON object: Claude Code's shape is {\"mcpServers\": {...}}"}
	}
	var specs []Spec
	var warnings []string
	for _, m := range root.Members {
		name := config.LiteralString(m.Name)
		if name != "mcpServers" && within {
			continue
		}
		if name != "mcpServers" {
			line, col := config.Position(data, m.Name.StartOffset)
			warnings = append(warnings, fmt.Sprintf("%s:%d:%d: key %q ignored: Podcode reads mcpServers", path, line, col, name))
			continue
		}
		servers, ok := m.Value.Value.(*hujson.Object)
		if !ok {
			line, col := config.Position(data, m.Value.StartOffset)
			return nil, nil, &config.Error{File: path, Line: line, Col: col, Key: "mcpServers", Msg: "not an object of servers by name"}
		}
		for _, sm := range servers.Members {
			name := config.LiteralString(sm.Name)
			line, col := config.Position(data, sm.Name.StartOffset)
			at := fmt.Sprintf("%s:%d:%d: mcpServers.%s", path, line, col, name)
			raw := sm.Value.Clone()
			raw.Standardize()
			packed := raw.Pack()
			var e claudeEntry
			dec := json.NewDecoder(bytes.NewReader(packed))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&e); err != nil {
				// Unknown keys are Claude Code's own (or newer): decode
				// again without them, and say which.
				var loose claudeEntry
				if err2 := json.Unmarshal(packed, &loose); err2 != nil {
					warnings = append(warnings, fmt.Sprintf("%s: ignored: %v", at, err2))
					continue
				}
				warnings = append(warnings, fmt.Sprintf("%s: %v; the rest of the entry is used", at, err))
				e = loose
			}
			s := Spec{Name: name, Project: true, Origin: fmt.Sprintf("%s:%d", path, line), file: path, claude: true,
				Command: e.Command, Args: e.Args, Env: e.Env, URL: e.URL, Headers: e.Headers}
			s.entry, _ = config.Canonical(raw) // it decoded above, so it is JSON
			switch e.Type {
			case "", "stdio":
				s.Transport = Stdio
				if e.Type == "" && e.Command == "" && e.URL != "" {
					s.Transport = HTTP // Claude Code takes a url without a type as http
				}
			case "http", "streamable-http":
				s.Transport = HTTP
			case "sse":
				s.Transport = SSE
			default:
				warnings = append(warnings, fmt.Sprintf("%s: ignored: type %q is not stdio, http or sse", at, e.Type))
				continue
			}
			if err := s.check(); err != nil {
				warnings = append(warnings, fmt.Sprintf("%s: ignored: %v", at, err))
				continue
			}
			specs = append(specs, s)
		}
	}
	return specs, warnings, nil
}

// PluginSpecs are the MCP servers of the Claude Code plugin named plugin
// in dir: its .mcp.json (Claude Code's shape, or the servers by name
// without "mcpServers" around them, which plugins also ship), then the
// mcpServers of its .claude-plugin/plugin.json (an object, or the path of
// a file in the plugin). Each is named plugin_<plugin>_<server>, as Claude
// Code names it (its tools are mcp__plugin_<plugin>_<server>__<tool>), and
// ${CLAUDE_PLUGIN_ROOT} in its values is dir. project says the plugin came
// with the project: its servers start only once trusted.
func PluginSpecs(dir, plugin string, project bool) ([]Spec, []string) {
	var specs []Spec
	var warnings []string
	add := func(path string, data []byte, within bool) {
		var top map[string]json.RawMessage
		if v, err := config.ParseJSONC(path, data, config.MaxNesting); err == nil {
			v.Standardize()
			json.Unmarshal(v.Pack(), &top)
		}
		if _, ok := top["mcpServers"]; !ok && len(top) > 0 && !within {
			// The servers by name: wrapped on the first line, so that
			// lines stay the file's.
			data = append(append([]byte(`{"mcpServers":`), data...), '}')
		}
		got, w, err := parseServers(path, data, within)
		warnings = append(warnings, w...)
		if err != nil {
			warnings = append(warnings, err.Error())
			return
		}
		specs = append(specs, got...)
	}
	path := filepath.Join(dir, ProjectFile)
	if data, err := trust.ReadFile(path, maxProjectFile); err == nil {
		add(path, data, false)
	} else if !os.IsNotExist(err) {
		warnings = append(warnings, fmt.Sprintf("%s: %v", path, err))
	}
	manifest := filepath.Join(dir, ".claude-plugin", "plugin.json")
	if data, err := trust.ReadFile(manifest, maxProjectFile); err == nil {
		var m struct {
			MCPServers json.RawMessage `json:"mcpServers"`
		}
		if json.Unmarshal(data, &m) == nil && len(m.MCPServers) > 0 {
			var file string
			if json.Unmarshal(m.MCPServers, &file) == nil {
				p := filepath.Join(dir, filepath.FromSlash(strings.ReplaceAll(file, "${CLAUDE_PLUGIN_ROOT}", ".")))
				if rel, err := filepath.Rel(dir, p); err != nil || strings.HasPrefix(rel, "..") {
					warnings = append(warnings, fmt.Sprintf("%s: mcpServers %q is outside the plugin; ignored", manifest, file))
				} else if data, err := trust.ReadFile(p, maxProjectFile); err != nil {
					warnings = append(warnings, fmt.Sprintf("%s: mcpServers %q: %v", manifest, file, err))
				} else if filepath.Clean(p) != filepath.Clean(path) {
					add(p, data, false)
				}
			} else {
				add(manifest, data, true) // its lines are plugin.json's
			}
		}
	}
	root := func(v string) string { return strings.ReplaceAll(v, "${CLAUDE_PLUGIN_ROOT}", dir) }
	for i := range specs {
		s := &specs[i]
		s.Name = "plugin_" + sanitize(plugin) + "_" + s.Name
		s.Project, s.claude = project, true
		s.Command, s.Args, s.URL = root(s.Command), mapSlice(s.Args, root), root(s.URL)
		s.Env, s.Headers = mapValues(s.Env, root), mapValues(s.Headers, root)
	}
	return specs, warnings
}

// check says what a usable server lacks.
func (s *Spec) check() error {
	if err := config.ValidMCPServer(s.Name, config.MCPServer{Type: "remote", URL: "x"}); err != nil {
		return err
	}
	switch s.Transport {
	case Stdio:
		if strings.TrimSpace(s.Command) == "" {
			return fmt.Errorf("a stdio server needs a command")
		}
		if s.URL != "" {
			return fmt.Errorf("a stdio server takes no url")
		}
	default:
		if s.URL == "" {
			return fmt.Errorf("an %s server needs a url", s.Transport)
		}
		if s.Command != "" {
			return fmt.Errorf("an %s server takes no command", s.Transport)
		}
	}
	return nil
}

// Expand replaces ${NAME} and ${NAME:-default} in the values of a
// server declared in .mcp.json by the environment, as Claude Code does
// (its command, arguments, env, url and headers). Podcode calls it only for
// an entry the user trusted: before that the entry does not run, and the
// environment goes nowhere.
func (s Spec) Expand(getenv func(string) (string, bool)) Spec {
	if !s.claude {
		return s
	}
	x := func(v string) string { return expandClaude(v, getenv) }
	s.Command, s.Args, s.URL = x(s.Command), mapSlice(s.Args, x), x(s.URL)
	s.Env, s.Headers = mapValues(s.Env, x), mapValues(s.Headers, x)
	return s
}

func expandClaude(v string, getenv func(string) (string, bool)) string {
	var b strings.Builder
	for {
		i := strings.Index(v, "${")
		if i < 0 {
			b.WriteString(v)
			return b.String()
		}
		j := strings.IndexByte(v[i:], '}')
		if j < 0 {
			b.WriteString(v)
			return b.String()
		}
		b.WriteString(v[:i])
		name, def, hasDef := strings.Cut(v[i+2:i+j], ":-")
		if val, ok := getenv(name); ok && (val != "" || !hasDef) {
			b.WriteString(val)
		} else {
			b.WriteString(def)
		}
		v = v[i+j+1:]
	}
}

// TrustItem is the server as trust knows it (kind mcp): the entry as
// written, and, for a command, the files it runs that lie in the project
// (trust.Hasher.Exec). reads are the directories in which the command
// reads files that cannot be known, each an item of its own
// (trust.ReadsItem) the server depends on.
func (s Spec) TrustItem(project string) (it trust.Item, reads []string, err error) {
	var h trust.Hasher
	h.Text(s.TrustName(project), s.entry)
	if s.Transport == Stdio {
		// What the server is given counts too: an env of PYTHONPATH or
		// LD_PRELOAD loads files its command does not name. A .mcp.json
		// entry's ${NAME} is filled in only when it starts (Expand).
		exec := h.Exec
		if s.claude {
			exec = h.ExecTemplate
		}
		reads = exec(s.Command, s.Args, project, project, s.Env)
	} else {
		h.Hash("url "+s.URL, "")
	}
	it, err = h.Item(trust.KindMCP, s.TrustName(project))
	return it, reads, err
}

// TrustName is the item's name: the declaring file, shown relative to the
// project, and the server's name ("podcode.json#memory").
func (s Spec) TrustName(project string) string {
	return trust.Shown(s.file, project) + "#" + s.Name
}
