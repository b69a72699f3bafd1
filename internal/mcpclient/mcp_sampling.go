//lint:file-ignore SA1019 MCP's sampling is deprecated from protocol 2026-07-28 (SEP-2577), not removed: servers of 2025-11-25 and before ask for it.
package mcpclient

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/guard"
)

// Sampling policies of a server (podcode.json's mcp.<name>.sampling, the
// user's file only): whether its sampling/createMessage requests are
// answered by the model without asking the user.
const (
	SamplingAsk   = "ask" // the default: the user is asked each time
	SamplingAllow = "allow"
	SamplingDeny  = "deny"
)

// Bounds of a sampling request: a server is untrusted, and the model's
// tokens are the user's money.
const (
	// MaxSamplingTokens bounds the tokens a server's request may have the
	// model write, whatever its maxTokens says.
	MaxSamplingTokens = 8192
	maxSamplingMsgs   = 100
	maxSamplingText   = 256 << 10 // bytes of text in a request, its system prompt included
	samplingPreview   = 600       // bytes of the request the question shows
)

// SampleRequest is a server's sampling/createMessage as Podcode's model
// call takes it: text only (images and audio described).
type SampleRequest struct {
	Server      string
	System      string         // the server's system prompt, "" for none
	Messages    []chat.Message // user and assistant messages, text
	MaxTokens   int            // at most MaxSamplingTokens
	Temperature *float64
}

// SampleResult is the model's answer.
type SampleResult struct {
	Text       string
	Model      string // provider/model
	StopReason string // MCP's: endTurn, maxTokens, stopSequence
}

// sample answers sampling/createMessage with the model of the session
// whose call to this server is in flight (or the default model), through
// Options.Sample: the model call a turn makes, chat.params included. The
// user consents first (a yes/no question through Options.Ask, as
// elicitation's) unless the server's policy (Spec.Sampling) is allow; deny,
// no consent, nobody to ask or no model is an error the server reads
// (code -1, the protocol's "user rejected").
func (s *Server) sample(ctx context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
	p := req.Params
	if p == nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "sampling/createMessage without params"}
	}
	refuse := func(why string) error {
		s.log.Info("mcp: the server's request for the model refused", "why", why)
		return &jsonrpc.Error{Code: -1, Message: "Podcode refused the sampling request: " + why}
	}
	policy := s.spec.Sampling
	if policy == "" {
		policy = SamplingAsk
	}
	if policy == SamplingDeny {
		return nil, refuse(fmt.Sprintf("the user's config denies it (mcp.%s.sampling)", s.spec.Name))
	}
	if s.set.opts.Sample == nil {
		return nil, refuse("no model answers MCP servers here")
	}
	r, err := samplingRequest(s.spec.Name, p)
	if err != nil {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
	}
	// One request of a server's at a time, its question and its model call:
	// a server allowed to sample cannot run the user's models in parallel,
	// and requests wait their turn (or give up with their request). The
	// call in flight a request is for is looked up once it is its turn.
	select {
	case s.sampling <- struct{}{}:
		defer func() { <-s.sampling }()
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	actx, call, done := s.onBehalf(ctx)
	defer done()
	if policy != SamplingAllow {
		if call == nil || s.set.opts.Ask == nil {
			return nil, refuse("it came with no call of the server's in flight, so there is nobody to ask")
		}
		q := guard.Question{ID: chat.NewID("perm"), SessionID: chat.ScopeFrom(actx).SessionID, Tool: call.tool,
			Args: map[string]any{"server": s.spec.Name, "request": preview(r), "maxTokens": r.MaxTokens},
			Reason: fmt.Sprintf("the MCP server %s wants the model to answer its request (yes runs one model call, without tools; "+
				"mcp.%s.sampling in your podcode.json can allow or deny this server's requests)", s.spec.Name, s.spec.Name)}
		ans, err := s.set.opts.Ask(actx, q)
		switch {
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case err != nil:
			return nil, refuse("nobody answered: " + err.Error())
		case ans.Action != guard.Accept:
			return nil, refuse("the user said no")
		}
	}
	res, err := s.set.opts.Sample(actx, r)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		// The server is told no more than that: a provider's error may
		// name the user's account or endpoint.
		s.log.Warn("mcp: the model call for the server's request failed", "error", err.Error())
		return nil, errors.New("the model call failed")
	}
	s.log.Info("mcp: the model answered the server's request", "model", res.Model, "stop", res.StopReason)
	return &sdk.CreateMessageResult{Role: "assistant", Content: &sdk.TextContent{Text: res.Text}, Model: res.Model, StopReason: res.StopReason}, nil
}

// samplingRequest is p as a SampleRequest, bounded: at most
// maxSamplingMsgs messages and maxSamplingText bytes of text; maxTokens
// cut to MaxSamplingTokens.
func samplingRequest(server string, p *sdk.CreateMessageParams) (SampleRequest, error) {
	r := SampleRequest{Server: server, System: p.SystemPrompt, MaxTokens: int(min(max(p.MaxTokens, 1), MaxSamplingTokens))}
	if p.Temperature != 0 {
		t := p.Temperature
		r.Temperature = &t
	}
	if len(p.Messages) == 0 {
		return r, fmt.Errorf("sampling/createMessage without messages")
	}
	if len(p.Messages) > maxSamplingMsgs {
		return r, fmt.Errorf("sampling/createMessage with %d messages, more than %d", len(p.Messages), maxSamplingMsgs)
	}
	size := len(r.System)
	for i, m := range p.Messages {
		if m == nil {
			return r, fmt.Errorf("message %d is null", i+1)
		}
		role := chat.RoleUser
		switch m.Role {
		case "user":
		case "assistant":
			role = chat.RoleAssistant
		default:
			return r, fmt.Errorf("message %d has role %q, not user or assistant", i+1, chat.Shorten(string(m.Role), 40))
		}
		text := describeContent(m.Content)
		if size += len(text); size > maxSamplingText {
			return r, fmt.Errorf("sampling/createMessage with more than %d bytes of text", maxSamplingText)
		}
		r.Messages = append(r.Messages, chat.Message{Role: role, Text: text})
	}
	return r, nil
}

// describeContent is a message's content as text: text as it is, an image
// or audio described (Podcode sends the model text only here).
func describeContent(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[image: %s, %d bytes, not shown]", c.MIMEType, len(c.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio: %s, %d bytes, not heard]", c.MIMEType, len(c.Data))
	case nil:
		return ""
	}
	return fmt.Sprintf("[content of type %T, not shown]", c)
}

// preview is the start of what the server asks the model, for the
// question: its system prompt and messages, in order, cut at
// samplingPreview bytes.
func preview(r SampleRequest) string {
	var b strings.Builder
	if r.System != "" {
		b.WriteString("system: " + r.System + "\n")
	}
	for _, m := range r.Messages {
		if b.Len() > samplingPreview {
			break
		}
		b.WriteString(m.Role + ": " + m.Text + "\n")
	}
	out := strings.TrimSuffix(b.String(), "\n")
	if len(out) > samplingPreview {
		cut := samplingPreview
		for cut > 0 && !utf8Start(out[cut]) {
			cut--
		}
		out = out[:cut] + "…"
	}
	return out
}
