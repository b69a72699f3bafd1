package plugin

import "context"

// Logger is what LogHook writes to. *slog.Logger satisfies it, as do most
// structured loggers (hclog, for one).
type Logger interface {
	Info(msg string, args ...any)
}

// DenyHook returns a handler that always denies with msg.
//
// Every call returns the same *HookResult; the Dispatcher never modifies a
// handler's result, and neither should a caller that invokes the handler
// directly.
func DenyHook(msg string) HookHandler {
	res := &HookResult{Decision: DecisionDeny, Message: msg}
	return func(context.Context, *HookPayload) (*HookResult, error) { return res, nil }
}

// AllowHook returns a handler that always allows. Like DenyHook, it returns
// the same *HookResult on every call.
func AllowHook() HookHandler {
	res := &HookResult{Decision: DecisionAllow}
	return func(context.Context, *HookPayload) (*HookResult, error) { return res, nil }
}

// LogHook returns a handler that logs msg with the event and its context
// (session, channel, tool) and allows.
func LogHook(logger Logger, msg string) HookHandler {
	res := &HookResult{Decision: DecisionAllow}
	return func(_ context.Context, p *HookPayload) (*HookResult, error) {
		args := make([]any, 0, 10)
		args = append(args, "event", string(p.Event))
		if p.SessionID != "" {
			args = append(args, "session_id", p.SessionID)
		}
		if p.Channel != "" {
			args = append(args, "channel", p.Channel)
		}
		if p.ToolName != "" {
			args = append(args, "tool_name", p.ToolName)
		}
		if p.Event.IsToolEvent() && p.ToolElapsedMs > 0 {
			args = append(args, "tool_elapsed_ms", p.ToolElapsedMs)
		}
		logger.Info(msg, args...)
		return res, nil
	}
}
