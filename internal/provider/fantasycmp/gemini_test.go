package fantasycmp

import (
	"net/http"
	"testing"

	"charm.land/fantasy"
	"charm.land/fantasy/providers/google"

	"github.com/podcode/podcode/internal/provider"
)

const geminiModel = "gemini-2.5-flash"

var geminiPodcode = podcodeSide(provider.APIGemini, "google", geminiModel,
	func(hc *http.Client) provider.Provider { return &provider.Gemini{HTTP: hc} })

var geminiFantasy = FantasySide(geminiModel, func(baseURL string, hc *http.Client) (fantasy.Provider, error) {
	opts := []google.Option{google.WithBaseURL(baseURL), google.WithGeminiAPIKey(Key)}
	if hc != nil {
		opts = append(opts, google.WithHTTPClient(hc))
	}
	return google.New(opts...)
}, func(tb testing.TB) func() fantasy.Call {
	tools, err := FunctionTools(Tools())
	if err != nil {
		tb.Fatal(err)
	}
	return PlainCall(System(), History(), tools, nil)
})

func BenchmarkGemini(b *testing.B) {
	Bench(b, GeminiStream, GeminiEmpty, GeminiAnswer, geminiPodcode, geminiFantasy)
}

func TestGemini(t *testing.T) {
	CheckSides(t, GeminiStream, GeminiAnswer, map[string]int{
		`"functionCall"`: Pairs, `"functionResponse"`: Pairs, `"functionDeclarations"`: 1,
		`"role":"user"`: Pairs + 2, // the prompt, the results, and genai gives the system instruction one too
	}, geminiPodcode, geminiFantasy)
}
