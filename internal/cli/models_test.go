package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/provider/wiretest"
)

// With no model in any podcode.json, a provider's key in the environment
// picks that provider's default model, and podcode run says which and
// why; the turn's tokens and cost follow it. Anthropic's key wins over
// OpenAI's and Gemini's; each alone picks its own provider.
func TestRunPicksTheModelOfTheKeyInTheEnvironment(t *testing.T) {
	for _, c := range []struct {
		key, base, model string
		serve            func(t *testing.T) (url, key string)
	}{
		{"ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "anthropic/claude-sonnet-4-6", func(t *testing.T) (string, string) {
			s := wiretest.NewAnthropic(t, wiretest.Answers{{Text: "Hello from Claude."}})
			return s.URL, s.Key
		}},
		{"OPENAI_API_KEY", "OPENAI_BASE_URL", "openai/gpt-5.6-sol", func(t *testing.T) (string, string) {
			s := wiretest.NewResponses(t, wiretest.Answers{{Text: "Hello from GPT."}})
			return s.URL, s.Key
		}},
		{"GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL", "gemini/gemini-3.1-pro-preview-customtools", func(t *testing.T) (string, string) {
			s := wiretest.NewGemini(t, wiretest.Answers{{Text: "Hello from Gemini."}})
			return s.URL, s.Key
		}},
	} {
		t.Run(c.key, func(t *testing.T) {
			project(t, nil)
			url, key := c.serve(t)
			t.Setenv(c.key, key)
			t.Setenv(c.base, url)
			out, errOut, err := runIn(t, strings.NewReader(""), "run", "hello")
			if err != nil || !strings.HasPrefix(out, "Hello from") {
				t.Fatalf("%v %q %q", err, out, errOut)
			}
			if !strings.Contains(errOut, "model "+c.model+" ("+c.key+" is set; another: --model provider/model") ||
				!strings.Contains(errOut, "tokens: ") || !strings.Contains(errOut, " · $") {
				t.Errorf("stderr %q", errOut)
			}
		})
	}
}

// podcode models lists the catalog's providers that are ready (a key in
// the environment) or configured, with their models' limits, reasoning and
// prices, the default marked; --json gives the same; a provider argument
// lists one provider, and an unknown one is an error naming the known.
func TestModelsListsTheCatalog(t *testing.T) {
	project(t, nil)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
	out, err := run(t, "models")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "anthropic (Anthropic): anthropic, ready") || !strings.Contains(out, "claude-sonnet-4-6 *") ||
		!strings.Contains(out, "offline: offline, ready") || strings.Contains(out, "xai") ||
		!strings.Contains(out, "The default model is anthropic/claude-sonnet-4-6: ANTHROPIC_API_KEY is set") {
		t.Errorf("models:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "claude-haiku-4-5-20251001" {
			if strings.Join(f[1:], " ") != "200k 64k budget 1 5 0.1 1.25" {
				t.Errorf("haiku: %q", line)
			}
		}
	}
	out, err = run(t, "models", "xai")
	if err != nil || !strings.Contains(out, "xai (xAI): openai-chat, set XAI_API_KEY to use it") {
		t.Errorf("one provider: %v\n%s", err, out)
	}
	if _, err := run(t, "models", "nope"); err == nil || !strings.Contains(err.Error(), "known: ") {
		t.Errorf("unknown provider: %v", err)
	}
	out, err = run(t, "models", "--json")
	var list struct {
		Default   string
		Providers []modelProvider
	}
	if err != nil || json.Unmarshal([]byte(out), &list) != nil || list.Default != "anthropic/claude-sonnet-4-6" || len(list.Providers) < 2 {
		t.Errorf("--json: %v %+v", err, list)
	}
}
