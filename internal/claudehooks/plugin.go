package claudehooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/podcode/podcode/internal/trust"
)

// A Claude Code plugin is a directory with .claude-plugin/plugin.json; its
// hooks are in hooks/hooks.json (the same "hooks" block as a settings
// file) and in what plugin.json's "hooks" names. Its commands run with
// CLAUDE_PLUGIN_ROOT set to the directory.
const (
	PluginManifest = ".claude-plugin/plugin.json"
	PluginHooks    = "hooks/hooks.json"
	PluginRootEnv  = "CLAUDE_PLUGIN_ROOT"
)

// Plugin is a Claude Code plugin whose hooks Podcode runs.
type Plugin struct {
	Name string // plugin.json's name
	// Key is how settings name it, "name@marketplace" for an installed
	// plugin, else Name.
	Key string
	Dir string // absolute
}

// ItemName is the plugin as trust, logs and its hooks' File name it:
// "claude plugin <key>".
func (p *Plugin) ItemName() string { return "claude plugin " + p.Key }

// IsPluginDir reports whether dir holds a Claude Code plugin.
func IsPluginDir(dir string) bool {
	_, err := trust.ReadFile(filepath.Join(dir, filepath.FromSlash(PluginManifest)), MaxSettingsSize)
	return err == nil
}

// pluginNames are the names Claude Code accepts (kebab-case), which also
// keep a name from being a path.
var pluginNames = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// ReadPlugin reads the manifest of the Claude Code plugin in dir, which
// settings name key ("" for its name); m is its hooks entry, as written.
func ReadPlugin(dir, key string) (p *Plugin, hooks json.RawMessage, err error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, nil, err
	}
	data, err := trust.ReadFile(filepath.Join(abs, filepath.FromSlash(PluginManifest)), MaxSettingsSize)
	if err != nil {
		return nil, nil, fmt.Errorf("claude plugin %s: %s: %w", abs, PluginManifest, err)
	}
	var m struct {
		Name  string          `json:"name"`
		Hooks json.RawMessage `json:"hooks"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, nil, jsonError("claude plugin "+abs+": "+PluginManifest, data, err)
	}
	if !pluginNames.MatchString(m.Name) {
		return nil, nil, fmt.Errorf("claude plugin %s: %s: name %q: must be a plugin name such as \"my-plugin\"", abs, PluginManifest, m.Name)
	}
	if key == "" {
		key = m.Name
	}
	return &Plugin{Name: m.Name, Key: key, Dir: abs}, m.Hooks, nil
}

// LoadPlugin reads the Claude Code plugin in dir, which settings name key
// ("" for its name): its manifest, then hooks/hooks.json, then the hook
// files or the inline hooks its manifest's "hooks" names, each as Parse
// reads a settings file. Every hook's PluginRoot is the directory. A
// missing hooks file gives no hooks; a plugin without a manifest, or with
// a mistake in a file, is an error naming the plugin and the file.
func LoadPlugin(dir, key string) (*Settings, error) {
	p, hooks, err := ReadPlugin(dir, key)
	if err != nil {
		return nil, err
	}
	abs := p.Dir
	m := struct{ Hooks json.RawMessage }{hooks}
	var parts []*Settings
	add := func(rel string) error {
		path := filepath.Join(abs, filepath.FromSlash(rel))
		if r, err := filepath.Rel(abs, path); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return fmt.Errorf("%s: %s: hooks %q is outside the plugin", p.ItemName(), PluginManifest, rel)
		}
		s, err := readSettings(path, p.ItemName()+": "+filepath.ToSlash(filepath.Clean(rel)))
		if err != nil {
			return err
		}
		parts = append(parts, s)
		return nil
	}
	if err := add(PluginHooks); err != nil {
		return nil, err
	}
	switch kind(m.Hooks) {
	case "nothing", "null":
	case "a string", "an array":
		var files []string
		if err := json.Unmarshal(m.Hooks, &files); err != nil {
			var one string
			if json.Unmarshal(m.Hooks, &one) != nil {
				return nil, fmt.Errorf("%s: %s: hooks must be a path, an array of paths or an object", p.ItemName(), PluginManifest)
			}
			files = []string{one}
		}
		for _, f := range files {
			if filepath.Clean(f) == filepath.Clean(PluginHooks) {
				continue // read already
			}
			if err := add(f); err != nil {
				return nil, err
			}
		}
	case "an object":
		inline := m.Hooks
		var top map[string]json.RawMessage
		if json.Unmarshal(inline, &top) == nil {
			if _, ok := top["hooks"]; !ok {
				inline, _ = json.Marshal(map[string]json.RawMessage{"hooks": m.Hooks})
			}
		}
		s, err := Parse(p.ItemName()+": "+PluginManifest, inline)
		if err != nil {
			return nil, err
		}
		parts = append(parts, s)
	default:
		return nil, fmt.Errorf("%s: %s: hooks must be a path, an array of paths or an object, not %s", p.ItemName(), PluginManifest, kind(m.Hooks))
	}
	s := Merge(parts...)
	for i := range s.Hooks {
		s.Hooks[i].PluginRoot = abs
	}
	// A plugin's hooks cannot switch off the others, nor enable plugins.
	s.IgnoreDisableAllHooks()
	s.EnabledPlugins = nil
	s.Plugin = p
	return s, nil
}

// InstalledPlugins are the plugins Claude Code installed for the user
// (<claudeDir>/plugins/installed_plugins.json): their directories by
// "name@marketplace". A missing file is none. Of a plugin installed more
// than once (scopes, projects), the last entry is kept.
func InstalledPlugins(claudeDir string) (map[string]string, error) {
	path := filepath.Join(claudeDir, "plugins", "installed_plugins.json")
	data, err := trust.ReadFile(path, MaxSettingsSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var f struct {
		Plugins map[string]json.RawMessage `json:"plugins"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, jsonError(path, data, err)
	}
	type entry struct {
		InstallPath string `json:"installPath"`
	}
	out := map[string]string{}
	for key, raw := range f.Plugins {
		var list []entry
		if json.Unmarshal(raw, &list) != nil { // version 1: one object
			var one entry
			if err := json.Unmarshal(raw, &one); err != nil {
				return nil, fmt.Errorf("%s: plugins.%s: not an installed plugin: %v", path, key, err)
			}
			list = []entry{one}
		}
		for _, e := range list {
			if e.InstallPath != "" {
				out[key] = e.InstallPath
			}
		}
	}
	return out, nil
}

// EnabledKeys are the keys of enabled, in order, that are true.
func EnabledKeys(enabled map[string]bool) []string {
	var out []string
	for k, on := range enabled {
		if on {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}
