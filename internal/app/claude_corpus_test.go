package app_test

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/proctest"
	"github.com/podcode/podcode/internal/store"
)

// The end-to-end half of the Claude Code hook corpus (testdata/claude-corpus,
// its README.md names where each setup comes from): setups whose intent
// only a real turn shows (a Stop hook that keeps the turn going, one that
// reads the transcript, SessionStart context), each run on the offline
// model as its author meant it to run.

// corpusFiles reads the setup name as apptest.Project files.
func corpusFiles(t *testing.T, name string) map[string]string {
	t.Helper()
	root := filepath.Join("testdata", "claude-corpus", name)
	files := map[string]string{}
	err := filepath.WalkDir(root, func(path string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		files[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil || len(files) == 0 {
		t.Fatalf("the %s setup: %d files, %v", name, len(files), err)
	}
	return files
}

// corpusEnv writes the setup name into a new project, lets prepare work on
// it (a git history, say), makes its scripts executable as their authors
// ship them, and boots it trusted, with an agent over a real store.
func corpusEnv(t *testing.T, name string, p apptest.Project, prepare func(dir string)) *turnEnv {
	t.Helper()
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir()) // not the real user's hooks
	p.Files = corpusFiles(t, name)
	dir := apptest.Dir(t, p)
	for rel := range p.Files {
		if ext := filepath.Ext(rel); ext == ".sh" || ext == ".py" {
			if err := os.Chmod(filepath.Join(dir, rel), 0o755); err != nil {
				t.Fatal(err)
			}
		}
	}
	if prepare != nil {
		prepare(dir)
	}
	a, _ := apptest.BootDir(t, dir, p)
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "podcode.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return &turnEnv{a: a, ag: agent.New(a, st)}
}

// texts lists a turn's messages as "role: text".
func texts(ms []chat.Message) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Role+": "+m.Text)
	}
	return out
}

func TestClaudeCorpus(t *testing.T) {
	cases := []struct {
		name  string
		tools []string
		run   func(t *testing.T)
	}{
		{"session-context", []string{"jq", "git"}, func(t *testing.T) {
			git := func(dir string, args ...string) {
				cmd := exec.Command("git", append([]string{"-c", "user.name=corpus", "-c", "user.email=corpus@example.com"}, args...)...)
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("git %s: %v\n%s", args, err, out)
				}
			}
			e := corpusEnv(t, "session-context", apptest.Project{}, func(dir string) {
				git(dir, "init", "-q")
				git(dir, "checkout", "-q", "-b", "feature/parser")
				git(dir, "add", ".")
				git(dir, "commit", "-q", "-m", "parse nested lists")
				if err := os.WriteFile(filepath.Join(dir, "todo.txt"), []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			})
			res := e.turn(t, "what is left to do?")
			// Both hooks' texts open the session, before the prompt: context
			// the model reads first.
			stored, err := e.ag.Store.Messages(context.Background(), res.Session.ID)
			if err != nil {
				t.Fatal(err)
			}
			if len(stored) == 0 || stored[0].Role != chat.RoleContext {
				t.Fatalf("the session does not open with the hooks' context: %q", texts(stored))
			}
			var ctx []string
			for _, m := range stored {
				if m.Role == chat.RoleContext {
					ctx = append(ctx, m.Text)
				}
			}
			all := strings.Join(ctx, "\n")
			for _, want := range []string{
				`House rules: tabs for indentation; every change comes with a test; "quotes" and \backslashes\ survive.`,
				"Branch: feature/parser", "?? todo.txt", "parse nested lists",
			} {
				if !strings.Contains(all, want) {
					t.Errorf("the context lacks %q:\n%s", want, all)
				}
			}
		}},
		{"stop-until-tests-pass", []string{"jq"}, func(t *testing.T) {
			e := corpusEnv(t, "stop-until-tests-pass", apptest.Project{}, nil)
			// The tests fail: the turn goes on once with their output, then
			// stops (stop_hook_active), as the author's loop guard says.
			res := e.turn(t, "add the numbers")
			got := texts(res.Messages)
			if len(res.Messages) != 4 || res.Messages[2].Role != chat.RoleUser ||
				!strings.Contains(res.Messages[2].Text, "FAIL calc: calc.txt says '2+2=5', want '2+2=4'") ||
				!strings.Contains(res.Messages[2].Text, "[Stop hook] The tests fail.") {
				t.Fatalf("messages %q", got)
			}
			// The model fixes the file: the tests pass, the turn ends at once.
			res = e.turn(t, `/tool write {"path": "calc.txt", "content": "2+2=4\n"}`)
			for _, m := range res.Messages {
				if m.Role == chat.RoleUser && strings.Contains(m.Text, "[Stop hook]") {
					t.Errorf("the Stop hook blocked with the tests green: %q", texts(res.Messages))
				}
			}
			if got := readFile(t, filepath.Join(e.a.Cwd, "calc.txt")); got != "2+2=4\n" {
				t.Errorf("calc.txt %q", got)
			}
		}},
		{"ralph-loop", []string{"python3"}, func(t *testing.T) {
			// The loop feeds the same prompt back by design, and the offline
			// model answers it with the same call each time: each
			// continuation starts the loop guard afresh, as a new prompt does.
			e := corpusEnv(t, "ralph-loop", apptest.Project{Plugins: []string{"./tools/loop"}}, nil)
			state := filepath.Join(e.a.Cwd, ".claude", "loop.local.md")
			body := readFile(t, state)
			prompt := body[strings.LastIndex(body, "---\n")+4:]
			// The prompt runs, is fed back twice, and the third run's answer
			// holds the promise the hook reads in the transcript: done.
			res := e.turn(t, prompt)
			if got := readFile(t, filepath.Join(e.a.Cwd, "progress.txt")); got != "step\nstep\nstep\n" {
				t.Errorf("progress.txt %q; messages %q", got, texts(res.Messages))
			}
			if _, err := os.Stat(state); !os.IsNotExist(err) {
				t.Errorf("the loop's state file is still there: %v", err)
			}
			if last := res.Messages[len(res.Messages)-1]; !strings.Contains(last.Text, "<promise>DONE</promise>") {
				t.Errorf("the last answer %q", last.Text)
			}
			// A loop with no promise and no limit: where Claude Code runs it
			// until stopped, Podcode continues a turn at most 3 times. The
			// hook runs a fourth time (its count says 5) but the turn ends.
			if err := os.WriteFile(state, []byte("---\niteration: 1\nmax_iterations: 0\ncompletion_promise: null\n---\n"+
				`/tool bash {"command": "echo again >> forever.txt"}`+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			res = e.turn(t, `/tool bash {"command": "echo again >> forever.txt"}`)
			if got := readFile(t, filepath.Join(e.a.Cwd, "forever.txt")); got != strings.Repeat("again\n", 4) {
				t.Errorf("forever.txt %q; messages %q", got, texts(res.Messages))
			}
			if got := readFile(t, state); !strings.Contains(got, "iteration: 5\n") {
				t.Errorf("the state file %q", got)
			}
		}},
		{"chat-log", []string{"python3"}, func(t *testing.T) {
			e := corpusEnv(t, "chat-log", apptest.Project{}, nil)
			e.turn(t, `/tool read {"path": "notes.txt"}`)
			var stops []map[string]any
			if err := json.Unmarshal([]byte(readFile(t, filepath.Join(e.a.Cwd, "logs", "stop.json"))), &stops); err != nil {
				t.Fatal(err)
			}
			if len(stops) != 1 || stops[0]["hook_event_name"] != "Stop" || stops[0]["stop_hook_active"] != false {
				t.Errorf("stop.json %v", stops)
			}
			var lines []struct {
				Type    string `json:"type"`
				Message struct {
					Content any `json:"content"`
				} `json:"message"`
			}
			if err := json.Unmarshal([]byte(readFile(t, filepath.Join(e.a.Cwd, "logs", "chat.json"))), &lines); err != nil {
				t.Fatal(err)
			}
			var kinds []string
			for _, l := range lines {
				k := l.Type
				if blocks, ok := l.Message.Content.([]any); ok {
					for _, b := range blocks {
						if m, _ := b.(map[string]any); m != nil {
							k += "/" + m["type"].(string)
							if m["type"] == "tool_use" {
								k += ":" + m["name"].(string)
							}
						}
					}
				}
				kinds = append(kinds, k)
			}
			if got := strings.Join(kinds, " "); got != "user assistant/tool_use:Read user/tool_result assistant/text" {
				t.Errorf("chat.json holds %s", got)
			}
		}},
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "claude-corpus"))
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, c := range cases {
		covered[c.name] = true
		t.Run(c.name, func(t *testing.T) {
			proctest.RequirePrograms(t, "the "+c.name+" hook setup", append([]string{"bash"}, c.tools...)...)
			c.run(t)
		})
	}
	for _, e := range entries {
		if e.IsDir() && !covered[e.Name()] {
			t.Errorf("testdata/claude-corpus/%s has no case", e.Name())
		}
	}
}
