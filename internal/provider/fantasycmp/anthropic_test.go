package fantasycmp

import (
	"net/http"
	"testing"

	"charm.land/fantasy"
	"charm.land/fantasy/providers/anthropic"

	"github.com/podcode/podcode/internal/provider"
)

const anthropicModel = "claude-sonnet-4-5"

var anthropicPodcode = podcodeSide(provider.APIAnthropic, "anthropic", anthropicModel,
	func(hc *http.Client) provider.Provider { return &provider.Anthropic{HTTP: hc} })

var anthropicFantasy = FantasySide(anthropicModel, func(baseURL string, hc *http.Client) (fantasy.Provider, error) {
	opts := []anthropic.Option{anthropic.WithBaseURL(baseURL), anthropic.WithAPIKey(Key)}
	if hc != nil {
		opts = append(opts, anthropic.WithHTTPClient(hc))
	}
	return anthropic.New(opts...)
}, anthropicCall)

// anthropicCall returns a builder of the fantasy call for a step, with the
// prompt cache breakpoints Podcode's provider sets: the last tool, the
// system prompt, the last message and the last user-side message before
// it.
func anthropicCall(tb testing.TB) func() fantasy.Call {
	tools, err := FunctionTools(Tools())
	if err != nil {
		tb.Fatal(err)
	}
	cache := fantasy.ProviderOptions{anthropic.Name: &anthropic.ProviderCacheControlOptions{CacheControl: anthropic.CacheControl{Type: "ephemeral"}}}
	last := tools[len(tools)-1].(fantasy.FunctionTool)
	last.ProviderOptions = cache
	tools[len(tools)-1] = last
	return PlainCall(System(), History(), tools, func(c *fantasy.Call) {
		p := c.Prompt
		p[0].ProviderOptions = cache // the system prompt
		p[len(p)-1].ProviderOptions = cache
		for i := len(p) - 2; i > 0; i-- {
			if r := p[i].Role; r == fantasy.MessageRoleUser || r == fantasy.MessageRoleTool {
				p[i].ProviderOptions = cache
				break
			}
		}
	})
}

func BenchmarkAnthropic(b *testing.B) {
	Bench(b, AnthropicStream, AnthropicEmpty, AnthropicAnswer, anthropicPodcode, anthropicFantasy)
}

func TestAnthropic(t *testing.T) {
	CheckSides(t, AnthropicStream, AnthropicAnswer, map[string]int{
		`"cache_control"`: 4, `"tool_use"`: Pairs, `"tool_result"`: Pairs, `"input_schema"`: 10, `"role":"user"`: Pairs + 1,
	}, anthropicPodcode, anthropicFantasy)
}
