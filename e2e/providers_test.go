package e2e

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/provider/wiretest"
)

// The real binary with only Anthropic's key (and its endpoint moved to a
// server on loopback that speaks Anthropic's API and refuses what it
// refuses): podcode run says which model it picked and why, runs a tool
// call through Anthropic's API, sends the result back as the API takes it,
// and ends with the turn's tokens and cost; podcode models lists the
// provider as ready, its default marked.
func TestRunWithOnlyAnAnthropicKey(t *testing.T) {
	dir := apptest.Dir(t, apptest.Project{Files: map[string]string{"notes.txt": "meeting at noon\n"}})
	home := t.TempDir()
	srv := wiretest.NewAnthropic(t, wiretest.Answers{
		{Thinking: "Read the notes.", Calls: []wiretest.Call{{ID: "toolu_1", Name: "read", Args: `{"path": "notes.txt"}`}}},
		{Text: "The meeting is at noon."},
	})
	keys := []string{"ANTHROPIC_API_KEY=" + srv.Key, "ANTHROPIC_BASE_URL=" + srv.URL}

	cmd := exec.Command(binary, "run", "when is the meeting?")
	var stdout, stderr bytes.Buffer
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, append(env(home), keys...), &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("podcode run: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	if stdout.String() != "The meeting is at noon.\n" {
		t.Errorf("stdout %q", stdout.String())
	}
	for _, want := range []string{"model anthropic/claude-sonnet-4-6 (ANTHROPIC_API_KEY is set;", "-> read", "<- read", "tokens: ", " · $"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || len(srv.Refusals()) > 0 || reqs[1].Usage.CacheRead == 0 || reqs[1].Body["model"] != "claude-sonnet-4-6" {
		t.Errorf("%d requests, refused %q", len(reqs), srv.Refusals())
	}

	cmd = exec.Command(binary, "models")
	cmd.Dir, cmd.Env = dir, append(env(home), keys...)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "anthropic (Anthropic): anthropic, ready") || !strings.Contains(string(out), "claude-sonnet-4-6 *") {
		t.Errorf("podcode models: %v\n%s", err, out)
	}
}
