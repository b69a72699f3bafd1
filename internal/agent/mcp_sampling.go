package agent

import (
	"context"
	"fmt"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/mcpclient"
	"github.com/podcode/podcode/internal/pipeline"
	"github.com/podcode/podcode/internal/provider"
)

// sampleMCP answers an MCP server's sampling/createMessage (the App's
// MCPSampler, set by New): one model call as a turn makes it (modelCall:
// chat.params, then the provider), without tools, with the model of the
// session whose call is in flight (ctx's scope) or else the default model.
// chat.params sees agent "mcp:<server>", the session, and the server's
// maxTokens and temperature as specified tunables; the tokens stay capped
// at the request's (itself at most mcpclient.MaxSamplingTokens) whatever
// the hooks return. What the call used counts in the turn's usage (as a
// sub-agent's does), and the answer is redacted as everything streamed is.
// Consent was asked before (mcpclient).
func (a *Agent) sampleMCP(ctx context.Context, r mcpclient.SampleRequest) (mcpclient.SampleResult, error) {
	scope := chat.ScopeFrom(ctx)
	model, err := a.model(scope.Model)
	if err != nil {
		return mcpclient.SampleResult{}, err
	}
	prov, err := a.provider(model)
	if err != nil {
		return mcpclient.SampleResult{}, err
	}
	specified := map[string]any{"maxOutputTokens": float64(r.MaxTokens)}
	if r.Temperature != nil {
		specified["temperature"] = *r.Temperature
	}
	in := pipeline.ChatInput{SessionID: scope.SessionID, Agent: "mcp:" + r.Server, Model: model, Specified: specified}
	req := provider.Request{System: r.System, Messages: r.Messages, Channel: scope.Channel, SessionID: scope.SessionID,
		Params: provider.Params{MaxOutputTokens: r.MaxTokens}}
	res, _, err := a.modelCall(ctx, prov, in, req, func(provider.Event) {})
	if sink, _ := ctx.Value(usageSinkKey{}).(*usageSink); sink != nil {
		sink.add(res.Usage) // paid for, answered or not
	}
	if err != nil {
		return mcpclient.SampleResult{}, fmt.Errorf("model %s: %w", model.Name(), err)
	}
	stop := "endTurn"
	switch res.StopReason {
	case "length":
		stop = "maxTokens"
	case "tool_calls":
		stop = "toolUse"
	}
	return mcpclient.SampleResult{Text: a.App.Redact.String(res.Text), Model: model.Name(), StopReason: stop}, nil
}
