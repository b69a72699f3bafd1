package server

import (
	"context"
	"net/http"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/tool"
)

// turnContext is the context of a turn the caller c posted: the request's
// values without its cancellation (the turn belongs to the server), and,
// for a tenant other than the default one, the tenant's own workspace
// (app.Workspace), so that its tools, and its sub-agents' that inherit
// the context, work there and nowhere else. The default tenant's turns,
// like cron's and webhooks', use the tools' own workspace: the project.
func (s *Server) turnContext(r *http.Request, c chat.Scope) (context.Context, error) {
	ctx := context.WithoutCancel(r.Context())
	if c.TenantID == 0 {
		return ctx, nil
	}
	ws, err := s.Agent.App.Workspace(c.TenantID)
	if err != nil {
		return nil, err
	}
	return tool.WithWorkspace(ctx, ws), nil
}
