package app

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/podcode/podcode/internal/claudecode"
	"github.com/podcode/podcode/internal/claudehooks"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/manifest"
	"github.com/podcode/podcode/internal/mcpclient"
	"github.com/podcode/podcode/internal/tool"
	"github.com/podcode/podcode/internal/trust"
)

// claudeFiles is what Boot reads of Claude Code before anything runs: the
// user's settings, the project's, and the Claude Code plugins that run.
// Their hooks are registered by registerClaudeHooks, their commands,
// agents and skills loaded by loadClaudeContent, their MCP servers started
// with the others (startMCP).
type claudeFiles struct {
	dir     string                // Claude Code's user folder; "" for none
	user    *claudehooks.Settings // nil for none
	project []namedSettings       // .claude/settings.json, then settings.local.json
	plugins []claudeFound
}

type namedSettings struct {
	name     string
	settings *claudehooks.Settings
}

// claudeFound is a Claude Code plugin that runs.
type claudeFound struct {
	dir, key, by string
	project      bool // came with the project: runs once trusted
	// manifest is its plugin.json, read once; nil when it cannot be read
	// (said when its hooks load).
	manifest *claudehooks.Plugin
}

// readClaude reads the user's Claude Code settings (in dir, "" for none)
// and the project's, and finds the Claude Code plugins that run: those
// installed for the user (claudehooks.InstalledPlugins) that the user's
// settings enable, as the user's own; those the project's settings enable
// (and the user's do not), and the Claude Code plugin folders the
// config's plugin array names (named), a project's when the project's
// file names it. An enabled plugin that is not installed, and a settings
// file that does not parse, are warnings.
func (a *App) readClaude(dir string, named []manifest.Found) *claudeFiles {
	cf := &claudeFiles{dir: dir}
	if dir != "" {
		var err error
		if cf.user, err = claudehooks.LoadUser(dir); err != nil {
			a.Log.Warn("claude hooks: not loaded", "file", claudehooks.UserSettingsFile, "error", err.Error())
			cf.user = nil
		}
	}
	var projectEnabled []*claudehooks.Settings
	for _, name := range []string{claudehooks.SettingsFile, claudehooks.LocalSettingsFile} {
		if dir != "" && sameDir(filepath.Join(a.Cwd, ".claude"), dir) && name == claudehooks.SettingsFile {
			continue // the project is the home folder: read as the user's
		}
		s, err := claudehooks.LoadFile(a.Cwd, name)
		if err != nil {
			a.Log.Warn("claude hooks: not loaded", "file", name, "error", err.Error())
			continue
		}
		projectEnabled = append(projectEnabled, s)
		cf.project = append(cf.project, namedSettings{name, s})
	}
	userOn := map[string]bool{}
	if cf.user != nil {
		userOn = cf.user.EnabledPlugins
	}
	projectOn := claudehooks.Merge(projectEnabled...).EnabledPlugins
	if len(userOn)+len(projectOn) > 0 {
		installed, err := claudehooks.InstalledPlugins(dir)
		if err != nil {
			a.Log.Warn("claude hooks: the installed Claude Code plugins are not read", "error", err.Error())
		}
		enabled := func(on map[string]bool, by string, isProject bool) {
			for _, key := range claudehooks.EnabledKeys(on) {
				if isProject && userOn[key] {
					continue // the user's own already
				}
				d, ok := installed[key]
				if !ok {
					a.Log.Warn("claude hooks: a Claude Code plugin is enabled but not installed; it does not run (install it with `claude plugin install`)",
						"plugin", key, "file", by)
					continue
				}
				cf.plugins = append(cf.plugins, claudeFound{dir: d, key: key, by: by, project: isProject})
			}
		}
		enabled(userOn, claudehooks.UserSettingsFile, false)
		enabled(projectOn, ".claude/settings", true)
	}
	for _, f := range named {
		cf.plugins = append(cf.plugins, claudeFound{dir: f.Dir, by: config.FileName, project: f.Project})
	}
	for i := range cf.plugins {
		cf.plugins[i].manifest, _, _ = claudehooks.ReadPlugin(cf.plugins[i].dir, cf.plugins[i].key)
	}
	return cf
}

// mcpSpecs are the MCP servers of the Claude Code plugins that run
// (mcpclient.PluginSpecs); a plugin whose manifest cannot be read has none.
func (cf *claudeFiles) mcpSpecs() (specs []mcpclient.Spec, warnings []string) {
	for _, f := range cf.plugins {
		p := f.manifest
		if p == nil {
			continue
		}
		s, w := mcpclient.PluginSpecs(p.Dir, p.Name, f.project)
		specs, warnings = append(specs, s...), append(warnings, w...)
	}
	return specs, warnings
}

// contentDirs are the folders of a source whose files make its commands,
// agents and skills.
var contentDirs = []string{"commands", "agents", "skills"}

// loadClaudeContent loads the commands, agents and skills of Claude Code's
// layout (package claudecode), in Claude Code's order: the user's
// ~/.claude, the project's .claude, then each plugin that runs. The
// project's .claude is a trust item of kind claude-content (every file of
// its commands/, agents/ and skills/); a project's plugin is its one item
// (its hooks', of its whole folder). Nothing of one is offered before the
// gate allows it, and each use checks it again (an edit since it was
// trusted stops it). With skills, the skill tool is registered.
func loadClaudeContent(a *App, cf *claudeFiles) {
	c := claudecode.NewCatalog()
	has := func(root string) bool {
		for _, d := range contentDirs {
			if fi, err := os.Stat(filepath.Join(root, d)); err == nil && fi.IsDir() {
				return true
			}
		}
		return false
	}
	if cf.dir != "" && has(cf.dir) {
		c.Load(&claudecode.Source{Root: cf.dir, Label: "user"})
	}
	if project := filepath.Join(a.Cwd, ".claude"); has(project) && (cf.dir == "" || !sameDir(project, cf.dir)) {
		if check, ok := a.watchContent(func() (trust.Item, error) { return contentItem(project, a.Cwd) }); ok {
			c.Load(&claudecode.Source{Root: project, Label: "project", Check: check})
		}
	}
	for _, f := range cf.plugins {
		p := f.manifest
		if p == nil || !has(p.Dir) {
			continue
		}
		src := &claudecode.Source{Root: p.Dir, Plugin: p.Name, Label: "plugin " + p.Key}
		if f.project {
			// The plugin's one item, its hooks' (its whole folder): one
			// trust for all of it.
			check, ok := a.watchContent(func() (trust.Item, error) {
				s, err := claudehooks.LoadPlugin(f.dir, f.key)
				if err != nil {
					return trust.Item{Kind: trust.KindClaude, Name: p.ItemName()}, err
				}
				return s.TrustItem(a.Cwd)
			})
			if !ok {
				continue
			}
			src.Check = check
		}
		c.Load(src)
	}
	for _, w := range c.Warnings {
		a.Log.Warn("claude: a command, agent or skill is not loaded: " + w)
	}
	a.Claude = c
	if len(c.Skills()) > 0 {
		if err := a.Tools.Add(skillTool(c)); err != nil {
			a.Log.Warn("claude: the skill tool is not registered", "error", err.Error())
		}
	}
}

// contentItem is the project's .claude content (root) as trust knows it:
// every file of its commands/, agents/ and skills/, and what the commands'
// "!`…`" lines run (trust.Hasher.Command: the scripts, what they source; a
// folder they read in ways that cannot be known, whole).
func contentItem(root, project string) (trust.Item, error) {
	var h trust.Hasher
	for _, d := range contentDirs {
		h.Dir(filepath.Join(root, d), project)
	}
	var reads []string
	for _, d := range []string{"commands", "skills"} {
		filepath.WalkDir(filepath.Join(root, d), func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() || !strings.HasSuffix(p, ".md") {
				return nil
			}
			data, err := trust.ReadFile(p, 1<<20)
			if err != nil {
				return nil // the walk above counted it
			}
			for _, line := range claudecode.ShellLines(string(data)) {
				reads = append(reads, h.Command(line, project, project, nil)...)
			}
			return nil
		})
	}
	for _, d := range reads {
		h.Dir(d, project)
	}
	return h.Item(trust.KindClaudeContent, ".claude")
}

// watchContent asks the gate about the item make returns, and returns the
// check each use of its commands, agents and skills makes.
func (a *App) watchContent(make func() (trust.Item, error)) (check func() error, ok bool) {
	w, ok, _ := a.Trust.Watch(make)
	if !ok {
		return nil, false
	}
	if a.Trust.All && !a.Trust.Disabled {
		return nil, true
	}
	return w.Check, true
}

// SkillToolID is the id of the tool that reads a skill (Claude Code's
// Skill tool).
const SkillToolID = "skill"

// skillTool is the tool through which the model reads a skill: its
// description lists every skill offered to the model by name and
// description; a call returns the skill's SKILL.md (after its frontmatter)
// with the folder its paths are relative to.
func skillTool(c *claudecode.Catalog) *tool.Def {
	var b strings.Builder
	b.WriteString("Read a skill: instructions for a kind of task, with the folder of its files. When a task matches a skill's description, read the skill first and follow it. Skills:")
	for _, s := range c.Skills() {
		fmt.Fprintf(&b, "\n- %s: %s", s.Name, s.Value.Description)
	}
	params, _ := json.Marshal(map[string]any{
		"type": "object", "required": []string{"name"}, "additionalProperties": false,
		"properties": map[string]any{"name": map[string]any{"type": "string", "description": "the skill's name, as listed"}},
	})
	return &tool.Def{ID: SkillToolID, Source: tool.Builtin, Description: b.String(), Parameters: params,
		Execute: func(ctx context.Context, _ tool.Call, args map[string]any) (tool.Result, error) {
			name, _ := args["name"].(string)
			s, err := c.Skill(name)
			if err != nil {
				return tool.Result{}, err
			}
			body, err := s.Body()
			if err != nil {
				return tool.Result{}, fmt.Errorf("skill %s: %w", name, err)
			}
			return tool.Result{Title: "skill " + name,
				Output: fmt.Sprintf("Base directory for this skill: %s\n\n%s", s.Dir, strings.TrimSpace(body))}, nil
		}}
}
