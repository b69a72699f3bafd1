package fantasycmp

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/provider"
)

// podcodeRequest is the step's request to Podcode's provider of api at
// baseURL, with the connection settings Podcode's config gives by default
// (3 retries, a 10 minute timeout).
func podcodeRequest(api, providerID, model, baseURL string) provider.Request {
	m := provider.Model{ProviderID: providerID, ModelID: model,
		Connection: provider.Connection{API: api, BaseURL: baseURL, APIKey: Key, MaxRetries: 3, Timeout: 10 * time.Minute}}
	var specs []provider.ToolSpec
	for _, t := range Tools() {
		specs = append(specs, provider.ToolSpec{Name: t.Name, Description: t.Description, Parameters: t.Parameters})
	}
	return provider.Request{Model: m, Params: provider.Params{MaxOutputTokens: MaxTokens}, System: System(), Messages: History(), Tools: specs}
}

// podcodeSide is the step through Podcode's provider of api: the one
// provider.For makes (on Podcode's shared transport) when there is no hc,
// else onClient(hc).
func podcodeSide(api, providerID, model string, onClient func(hc *http.Client) provider.Provider) Side {
	return Side{Name: "podcode", New: func(tb testing.TB, baseURL string, hc *http.Client) func() (Answer, error) {
		req := podcodeRequest(api, providerID, model, baseURL)
		p := podcodeProvider(tb, req, hc, onClient)
		return func() (Answer, error) { return podcodeStep(context.Background(), p, req) }
	}}
}

func podcodeProvider(tb testing.TB, req provider.Request, hc *http.Client, onClient func(hc *http.Client) provider.Provider) provider.Provider {
	if hc != nil {
		return onClient(hc)
	}
	p, err := provider.For(req.Model, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// podcodeStep makes one model call through p, as Podcode's agent loop
// does (its events go to the loop's consumers; none here).
func podcodeStep(ctx context.Context, p provider.Provider, req provider.Request) (Answer, error) {
	res, err := p.Stream(ctx, req, func(provider.Event) {})
	if err != nil {
		return Answer{}, err
	}
	a := Answer{Text: res.Text}
	if len(res.ToolCalls) > 0 {
		c := res.ToolCalls[0]
		a.CallID, a.CallTool, a.CallArgs = c.ID, c.Tool, string(c.Args)
	}
	return a, nil
}

// BenchmarkConvert is what building fantasy's prompt from Podcode's
// history costs, a part of each fantasy step.
func BenchmarkConvert(b *testing.B) {
	hist, sys := History(), System()
	b.ReportAllocs()
	for b.Loop() {
		if p := Prompt(sys, hist); len(p) != len(hist)+1 {
			b.Fatal(len(p))
		}
	}
}
