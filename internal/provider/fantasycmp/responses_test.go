package fantasycmp

import (
	"net/http"
	"testing"

	"github.com/podcode/podcode/internal/provider"
)

// OpenAI's Responses API, Podcode's side only: fantasy v0.41.2's openai
// provider does not build with the openai-go that Podcode requires, so
// its side is measured in a module of its own (responses/, README.md).

const responsesModel = "gpt-4.1" // a model both libraries call without reasoning

var responsesPodcode = podcodeSide(provider.APIResponses, "openai", responsesModel,
	func(hc *http.Client) provider.Provider { return &provider.Responses{HTTP: hc} })

func BenchmarkResponses(b *testing.B) {
	Bench(b, ResponsesStream, ResponsesEmpty, ResponsesAnswer, responsesPodcode)
}

func TestResponses(t *testing.T) {
	CheckSides(t, ResponsesStream, ResponsesAnswer, ResponsesCounts, responsesPodcode)
}
