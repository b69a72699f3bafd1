package pipeline

import (
	"cmp"
	"context"
	"maps"

	"github.com/podcode/podcode/internal/jsplugin"
	"github.com/podcode/podcode/internal/jsrt"
	"github.com/podcode/podcode/internal/provider"
)

// Tunables are the five values of chat.params a caller may specify.
var Tunables = []string{"temperature", "topP", "topK", "maxOutputTokens", "options"}

// ChatInput is one model call as Podcode is about to make it.
type ChatInput struct {
	SessionID string
	Agent     string
	Model     provider.Model
	// Specified holds the tunables the caller (the session's request or the
	// agent's config) specified; every other tunable reaches plugins as
	// undefined (SPEC H13).
	Specified map[string]any
}

// ReasoningEffortKey is the option Podcode computes for reasoning models.
const (
	ReasoningEffortKey     = "reasoningEffort"
	DefaultReasoningEffort = "medium"
)

// ChatPayload is the chat.params input for in: the tunables as specified,
// each one not specified present as undefined (SPEC H13).
func ChatPayload(in ChatInput) map[string]any {
	p := map[string]any{
		"sessionID": in.SessionID,
		"agent":     in.Agent,
		"model": map[string]any{
			"providerID": in.Model.ProviderID,
			"modelID":    in.Model.ModelID,
			"limit":      map[string]any{"context": float64(in.Model.Limit.Context), "output": float64(in.Model.Limit.Output)},
		},
	}
	for _, k := range Tunables {
		if v, ok := in.Specified[k]; ok {
			p[k] = v
		} else {
			p[k] = jsrt.Undefined{}
		}
	}
	return p
}

// ChatParams runs chat.params before a model call (SPEC H12) and applies
// Podcode's own defaults after it:
//
//   - temperature, topP and topK left undefined are left out of the request
//     (the provider's default);
//   - maxOutputTokens left undefined becomes the model's output limit, and
//     any value is clamped to that limit (SPEC H14): raising it has no
//     effect, lowering it works;
//   - options are merged over the provider's and the model's configured
//     options and the reasoning-effort option Podcode computes for reasoning
//     models (the catalog's default effort for the model, else "medium");
//     the keys the pipeline returns win (SPEC H15). Each provider reads
//     the merged options into its own API's (internal/provider: thinking
//     budgets or levels, reasoning effort and summaries, prompt caching),
//     so a plugin's options reach every provider the same way.
func (r *Runner) ChatParams(ctx context.Context, in ChatInput) (provider.Params, []Step) {
	out, steps := r.Run(ctx, jsplugin.HookChatParams, ChatPayload(in))
	return Finalize(in.Model, out), steps
}

// Finalize applies Podcode's defaults to the pipeline's final value.
func Finalize(m provider.Model, v map[string]any) provider.Params {
	req := provider.Params{Model: m.Name(), Temperature: number(v["temperature"]), TopP: number(v["topP"]), TopK: number(v["topK"])}
	limit := m.Limit.Output
	req.MaxOutputTokens = limit
	if n := number(v["maxOutputTokens"]); n != nil && *n >= 1 {
		// Clamp as a float: converting 1e300 to int first would overflow.
		if limit > 0 && *n > float64(limit) {
			req.MaxOutputTokens = limit
		} else if *n <= float64(1<<31) {
			req.MaxOutputTokens = int(*n)
		}
	}
	opts := maps.Clone(m.Options)
	if opts == nil {
		opts = map[string]any{}
	}
	if m.Reasoning {
		if _, set := opts[ReasoningEffortKey]; !set {
			opts[ReasoningEffortKey] = cmp.Or(m.DefaultEffort, DefaultReasoningEffort)
		}
	}
	if pluginOpts, ok := v["options"].(map[string]any); ok {
		for k, x := range pluginOpts {
			if !jsrt.IsUndefined(x) {
				opts[k] = x
			}
		}
	}
	req.Options = opts
	return req
}

func number(v any) *float64 {
	if f, ok := v.(float64); ok {
		return &f
	}
	return nil
}
