// Package responses measures a step on OpenAI's Responses API through
// fantasy, in a module of its own: fantasy v0.41.2's openai provider does
// not build with the openai-go that Podcode requires (see go.mod and
// ../README.md). Podcode's side is ../responses_test.go.
package responses

import (
	"net/http"
	"testing"

	"charm.land/fantasy"
	"charm.land/fantasy/providers/openai"

	fc "github.com/podcode/podcode/internal/provider/fantasycmp"
)

const model = "gpt-4.1" // a model both libraries call without reasoning

var responsesFantasy = fc.FantasySide(model, func(baseURL string, hc *http.Client) (fantasy.Provider, error) {
	opts := []openai.Option{openai.WithBaseURL(baseURL), openai.WithAPIKey(fc.Key), openai.WithUseResponsesAPI()}
	if hc != nil {
		opts = append(opts, openai.WithHTTPClient(hc))
	}
	return openai.New(opts...)
}, func(tb testing.TB) func() fantasy.Call {
	tools, err := fc.FunctionTools(fc.Tools())
	if err != nil {
		tb.Fatal(err)
	}
	return fc.PlainCall(fc.System(), fc.History(), tools, nil)
})

func BenchmarkResponses(b *testing.B) {
	fc.Bench(b, fc.ResponsesStream, fc.ResponsesEmpty, fc.ResponsesAnswer, responsesFantasy)
}

func TestResponses(t *testing.T) {
	fc.CheckSides(t, fc.ResponsesStream, fc.ResponsesAnswer, fc.ResponsesCounts, responsesFantasy)
}
