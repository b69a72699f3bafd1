package chat

import (
	"context"

	"github.com/podcode/podcode/plugin"
)

// Scope is who and what a piece of work belongs to: the session, the
// channel it came through, the tenant and user, and the session's model and
// usage. Every lifecycle payload is built from it (SPEC L5).
type Scope struct {
	Tenant     string // the owner of the session in the store
	SessionID  string
	Channel    string // api, cli, cron, webhook, acp, mcp
	ChatID     string
	UserID     string
	TenantID   int64
	Model      string
	MaxContext int
	Usage      Usage
}

type scopeKey struct{}

// WithScope returns ctx carrying s.
func WithScope(ctx context.Context, s Scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

// ScopeFrom returns the scope ctx carries (the zero Scope if none).
func ScopeFrom(ctx context.Context) Scope {
	s, _ := ctx.Value(scopeKey{}).(Scope)
	return s
}

// Payload returns a lifecycle payload for event with the scope's fields and
// Extra holding the model, its context limit and the usage so far.
func (s Scope) Payload(event plugin.HookEvent) *plugin.HookPayload {
	extra := map[string]any{
		plugin.ExtraUsage: map[string]any{"input": s.Usage.Input, "output": s.Usage.Output},
	}
	if s.Model != "" {
		extra[plugin.ExtraModel] = s.Model
	}
	if s.MaxContext > 0 {
		extra[plugin.ExtraMaxContext] = s.MaxContext
	}
	return &plugin.HookPayload{Event: event, SessionID: s.SessionID, Channel: s.Channel, ChatID: s.ChatID,
		UserID: s.UserID, TenantID: s.TenantID, Extra: extra}
}
