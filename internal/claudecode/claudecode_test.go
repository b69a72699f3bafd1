package claudecode

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/tool"
)

func plugin(t *testing.T, name string) *Source {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("testdata", "plugins", name))
	if err != nil {
		t.Fatal(err)
	}
	return &Source{Root: root, Plugin: name, Label: "plugin " + name}
}

func listedNames[T sourced](list []Named[T]) []string {
	var out []string
	for _, n := range list {
		out = append(out, n.Name)
	}
	return out
}

// The published plugins load whole: each command with its frontmatter,
// each agent with its tools and prompt, each skill (a skill is a command
// too).
func TestLoadPublishedPlugins(t *testing.T) {
	c := NewCatalog()
	for _, p := range []string{"commit-commands", "feature-dev", "code-review", "frontend-design", "example-plugin"} {
		c.Load(plugin(t, p))
	}
	if len(c.Warnings) > 0 {
		t.Errorf("warnings: %q", c.Warnings)
	}
	want := []string{"clean_gone", "code-review", "commit", "commit-push-pr", "example-command", "example-skill", "feature-dev", "frontend-design"}
	if got := listedNames(c.Commands()); !slices.Equal(got, want) {
		t.Errorf("commands %q, want %q", got, want)
	}
	commit, err := c.Command("commit-commands:commit")
	if err != nil {
		t.Fatal(err)
	}
	if short, _ := c.Command("commit"); short != commit {
		t.Error("commit and commit-commands:commit are not the same command")
	}
	if commit.Description != "Create a git commit" || !slices.Equal(commit.AllowedTools, []string{"Bash(git add:*)", "Bash(git status:*)", "Bash(git commit:*)"}) {
		t.Errorf("commit: %q %q", commit.Description, commit.AllowedTools)
	}
	if commit.Line != 5 || !strings.HasPrefix(commit.Body, "\n## Context") {
		t.Errorf("commit's body begins on line %d: %q", commit.Line, chat.Shorten(commit.Body, 40))
	}
	ex, _ := c.Command("example-command")
	if ex.ArgumentHint != "<required-arg> [optional-arg]" || !slices.Equal(ex.AllowedTools, []string{"Read", "Glob", "Grep", "Bash"}) {
		t.Errorf("example-command: hint %q, tools %q", ex.ArgumentHint, ex.AllowedTools)
	}
	if !strings.HasSuffix(ex.File, filepath.Join("commands", "example-command.md")) {
		t.Errorf("example-command is %s: the command, not the skill of that name, keeps it", ex.File)
	}
	if got := listedNames(c.Agents()); !slices.Equal(got, []string{"code-architect", "code-explorer", "code-reviewer"}) {
		t.Errorf("agents %q", got)
	}
	explorer, _ := c.Agent("feature-dev:code-explorer")
	if explorer.Model != "sonnet" || !slices.Contains(explorer.Tools, "Grep") || slices.Contains(explorer.Tools, "Bash") ||
		!strings.HasPrefix(explorer.Prompt, "You are an expert code analyst") {
		t.Errorf("code-explorer: model %q tools %q prompt %q", explorer.Model, explorer.Tools, chat.Shorten(explorer.Prompt, 40))
	}
	if got := listedNames(c.Skills()); !slices.Equal(got, []string{"example-command", "example-skill", "frontend-design"}) {
		t.Errorf("skills %q", got)
	}
	fd, _ := c.Skill("frontend-design")
	body, err := fd.Body()
	if err != nil || !strings.HasPrefix(strings.TrimSpace(body), "# Frontend Design") {
		t.Errorf("frontend-design's body: %v %q", err, chat.Shorten(body, 40))
	}
	if _, err := c.Command("nope"); !errors.Is(err, ErrUnknown) {
		t.Errorf("an unknown command: %v", err)
	}
}

// A file that is not a component is a warning naming the file and line;
// the others load.
func TestLoadWarnings(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("commands/ok.md", "---\ndescription: fine: with a colon\n---\nbody\n")
	write("commands/open.md", "---\ndescription: never closed\n")
	write("commands/bad.md", "---\ndescription: [unclosed\nnot a key line\n---\nbody\n")
	write("commands/sub/deep.md", "Deep command\n")
	write("agents/nodesc.md", "---\nname: nodesc\n---\nprompt\n")
	write("agents/badname.md", "---\nname: bad name\ndescription: x\n---\nprompt\n")
	write("skills/s/SKILL.md", "---\nname: s\n---\nbody\n")
	c := NewCatalog()
	c.Load(&Source{Root: root, Label: "project"})
	if got := listedNames(c.Commands()); !slices.Equal(got, []string{"deep", "ok"}) {
		t.Errorf("commands %q", got)
	}
	ok, _ := c.Command("ok")
	if ok.Description != "fine: with a colon" {
		t.Errorf("a description with a colon: %q", ok.Description)
	}
	deep, _ := c.Command("deep")
	if deep.Namespace != "sub" || deep.Description != "Deep command" {
		t.Errorf("deep: namespace %q description %q", deep.Namespace, deep.Description)
	}
	want := []string{
		filepath.Join(root, "commands/bad.md") + ":3: the frontmatter line \"not a key line\" is not \"key: value\"",
		filepath.Join(root, "commands/open.md") + ":1: the frontmatter begun by --- never ends (no closing --- line)",
		filepath.Join(root, "agents/badname.md") + ":2: name \"bad name\" is not an agent's name",
		filepath.Join(root, "agents/nodesc.md") + ": an agent needs a description",
		filepath.Join(root, "skills/s/SKILL.md") + ": a skill needs a description",
	}
	for _, w := range want {
		if !slices.ContainsFunc(c.Warnings, func(s string) bool { return strings.HasPrefix(s, w) }) {
			t.Errorf("no warning %q in %q", w, c.Warnings)
		}
	}
}

// A source's check runs at each use: a refusal refuses the use.
func TestCheckAtEachUse(t *testing.T) {
	src := plugin(t, "commit-commands")
	var refuse error
	src.Check = func() error { return refuse }
	c := NewCatalog()
	c.Load(src)
	if _, err := c.Command("commit"); err != nil {
		t.Fatal(err)
	}
	refuse = errors.New("changed since it was trusted")
	if _, err := c.Command("commit"); err == nil || !strings.Contains(err.Error(), "changed since it was trusted") {
		t.Errorf("a use after the check refuses: %v", err)
	}
}

func TestInvocation(t *testing.T) {
	for _, c := range []struct{ in, name, args string }{
		{"/commit", "commit", ""},
		{"  /commit-commands:commit fix the bug \n", "commit-commands:commit", "fix the bug"},
		{"/tool read {\"path\":\"x\"}", "tool", `read {"path":"x"}`},
		{"hello /commit", "", ""},
		{"/", "", ""},
		{"/a/b", "", ""},
		{"/:x", "", ""},
	} {
		name, args, ok := Invocation(c.in)
		if name != c.name || args != c.args || ok != (c.name != "") {
			t.Errorf("Invocation(%q) = %q %q %v", c.in, name, args, ok)
		}
	}
}

// bash runs a shell line as the bash tool would, in dir.
func bash(dir string) Runner {
	return Runner{Shell: func(ctx context.Context, cmd string) (string, error) {
		c := exec.CommandContext(ctx, "bash", "-c", cmd)
		c.Dir = dir
		out, err := c.CombinedOutput()
		return string(out), err
	}}
}

// Arguments fill $ARGUMENTS and $1…; a body naming neither gets them
// appended. In a "!`command`" they are the shell's own variables, so the
// shell quotes them where the command does.
func TestExpandArguments(t *testing.T) {
	cmd := &Command{Body: "Review $1 then $2 ($ARGUMENTS).\n!`printf '<%s>' $1 \"$2\"`\n!`printf '[%s]' \"$ARGUMENTS\"`\n!`echo '$1 stays'`"}
	got, err := cmd.Expand(context.Background(), `42 "two words" more`, bash(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	want := "Review 42 then two words (42 \"two words\" more).\n<42><two words>\n[42 \"two words\" more]\n$1 stays"
	if got != want {
		t.Errorf("expanded\n%s\nwant\n%s", got, want)
	}
	plain := &Command{Body: "Do it.\n"}
	if got, _ := plain.Expand(context.Background(), "now please", Runner{}); got != "Do it.\n\nARGUMENTS: now please" {
		t.Errorf("appended: %q", got)
	}
	if got, _ := plain.Expand(context.Background(), "", Runner{}); got != "Do it.\n" {
		t.Errorf("no arguments: %q", got)
	}
}

// Arguments never run as code: not as a shell line of their own, not
// through the quotes of the command they land in, not by a backtick that
// would cut a shell line in two.
func TestExpandArgumentsNeverRun(t *testing.T) {
	dir := t.TempDir()
	bodies := []string{
		"Review $ARGUMENTS",                       // the arguments in the text
		"Review this.",                            // the arguments appended
		"!`echo \"$ARGUMENTS\"`",                  // in double quotes
		"!`echo '$1'`",                            // in single quotes
		"!`echo $1 $2 $3`",                        // bare
		"!`awk 'BEGIN {print \"$1\"}' /dev/null`", // in a program's text
	}
	args := []string{
		"!`touch pwned1`",
		"$(touch pwned2)",
		"a;touch pwned3",
		"x`!`touch pwned4``",
		"'; touch pwned5; '",
		"\"; touch pwned6; \"",
		"`touch pwned7`",
	}
	for _, body := range bodies {
		for _, a := range args {
			cmd := &Command{Body: body}
			if _, err := cmd.Expand(context.Background(), a, bash(dir)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "pwned*")); len(left) > 0 {
		t.Errorf("arguments ran as code: %v", left)
	}
}

// An expansion reads at most MaxFileRefs files, each once however it is
// spelled: arguments full of references (a client of /mcp writes them)
// cannot make one prompt thousands of read calls.
func TestExpandReadsBoundedFileRefs(t *testing.T) {
	var reads []string
	r := Runner{ArgFiles: true, File: func(_ context.Context, path string) (string, bool, error) {
		reads = append(reads, path)
		return "x", true, nil
	}}
	var args []string
	for i := range 3 * MaxFileRefs {
		args = append(args, "@./big", "@.//big", fmt.Sprintf("@f%d", i))
	}
	got, err := (&Command{Body: "Look at $ARGUMENTS"}).Expand(context.Background(), strings.Join(args, " "), r)
	if err != nil {
		t.Fatal(err)
	}
	if len(reads) != MaxFileRefs || reads[0] != "./big" || reads[1] != "f0" {
		t.Errorf("%d reads: %q", len(reads), reads)
	}
	if !strings.Contains(got, "and the references after it were not read: at most 20 files a command") {
		t.Errorf("the expansion does not say it stopped: %q", got[len(got)-200:])
	}
}

// A command that fails is said in its place; the others run.
func TestExpandShellFailure(t *testing.T) {
	fail := Runner{Shell: func(context.Context, string) (string, error) { return "", errors.New("exit status 1") }}
	if got, _ := (&Command{Body: "!`false`"}).Expand(context.Background(), "", fail); got != "(false failed: exit status 1)" {
		t.Errorf("a failed command: %q", got)
	}
}

// "@path" references of files get the file appended, once; others stay.
func TestExpandFiles(t *testing.T) {
	var asked []string
	r := Runner{File: func(_ context.Context, p string) (string, bool, error) {
		asked = append(asked, p)
		if p == "src/a.go" {
			return "package a", true, nil
		}
		return "", false, nil
	}}
	cmd := &Command{Body: "Look at @src/a.go and @src/a.go, mail me@example.com or @nobody.\n"}
	got, err := cmd.Expand(context.Background(), "see @docs/b.md", r)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"src/a.go", "nobody"}; !slices.Equal(asked, want) {
		t.Errorf("asked %q, want %q: the arguments' files only with ArgFiles", asked, want)
	}
	if strings.Count(got, "Contents of @src/a.go:\npackage a") != 1 {
		t.Errorf("expanded: %q", got)
	}
	asked = nil
	r.ArgFiles = true
	if _, err := (&Command{Body: "Review @$1 and this"}).Expand(context.Background(), "docs/b.md @src/a.go", r); err != nil {
		t.Fatal(err)
	}
	if _, err := (&Command{Body: "Review this"}).Expand(context.Background(), "@src/a.go", r); err != nil {
		t.Fatal(err)
	}
	if want := []string{"docs/b.md", "src/a.go"}; !slices.Equal(asked, want) {
		t.Errorf("with ArgFiles, asked %q, want %q", asked, want)
	}
}

// An agent's tools, as Claude Code writes them, name Podcode's tools.
func TestAllowsTool(t *testing.T) {
	bash, read := &tool.Def{ID: "bash"}, &tool.Def{ID: "read"}
	mcp := &tool.Def{ID: "github_create_issue", Alias: "mcp__github__create_issue"}
	list := []string{"Read", "Bash(git:*)", "mcp__github__create_issue"}
	for _, c := range []struct {
		d    *tool.Def
		want bool
	}{{bash, true}, {read, true}, {mcp, true}, {&tool.Def{ID: "write"}, false}} {
		if got := AllowsTool(list, c.d); got != c.want {
			t.Errorf("%s: %v", c.d.ID, got)
		}
	}
	if AllowsTool([]string{"Glob"}, bash) || !AllowsTool(nil, bash) {
		t.Error("Glob names bash, or nil does not name every tool")
	}
	if !AllowsTool([]string{"mcp__github"}, mcp) || AllowsTool([]string{"mcp__git"}, mcp) {
		t.Error("mcp__<server> does not name exactly that server's tools")
	}
}

func FuzzFrontmatter(f *testing.F) {
	for _, s := range []string{"---\ndescription: x\n---\nbody", "---\na: [1, 2\n---\n", "---\n---\n", "no front", "---\nx: y: z\n  more\n---\n$1 !`a`"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, body, line, err := splitFrontmatter("f.md", []byte(s))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.md:") {
				t.Errorf("an error that does not name the file: %v", err)
			}
			return
		}
		if line < 1 || len(body) > len(s) {
			t.Errorf("line %d, body of %d bytes from %d", line, len(body), len(s))
		}
		m.str("description", func(string) {})
		m.list("allowed-tools", func(string) {})
		c := &Command{Body: body, AllowedTools: m.list("allowed-tools", func(string) {})}
		c.Expand(context.Background(), s, Runner{
			Shell: func(context.Context, string) (string, error) { return "", nil },
			File:  func(context.Context, string) (string, bool, error) { return "", false, nil }})
	})
}

// What the published plugins cost at boot: reading and parsing every
// command, agent and skill of five plugins.
func BenchmarkLoadPublishedPlugins(b *testing.B) {
	var srcs []*Source
	for _, p := range []string{"commit-commands", "feature-dev", "code-review", "frontend-design", "example-plugin"} {
		root, _ := filepath.Abs(filepath.Join("testdata", "plugins", p))
		srcs = append(srcs, &Source{Root: root, Plugin: p})
	}
	b.ReportAllocs()
	for b.Loop() {
		c := NewCatalog()
		for _, s := range srcs {
			c.Load(s)
		}
	}
}

// A command's expansion without its shell lines' own cost: /commit's body
// with its four "!`git …`" lines answered at once.
func BenchmarkExpandCommit(b *testing.B) {
	src, _ := filepath.Abs(filepath.Join("testdata", "plugins", "commit-commands"))
	c := NewCatalog()
	c.Load(&Source{Root: src, Plugin: "commit-commands"})
	cmd, err := c.Command("commit")
	if err != nil {
		b.Fatal(err)
	}
	r := Runner{Shell: func(context.Context, string) (string, error) { return "out", nil }}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cmd.Expand(context.Background(), "fix the bug", r); err != nil {
			b.Fatal(err)
		}
	}
}
