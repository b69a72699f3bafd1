package server

import (
	"context"

	"github.com/podcode/podcode/internal/cluster"
)

// answer gives allow to the pending question id of tenant's, if this
// server holds it, and reports whether it did.
func (s *Server) answer(id, tenant string, allow bool) bool {
	s.mu.Lock()
	q, ok := s.questions[id]
	ok = ok && q.tenant == tenant
	if ok {
		delete(s.questions, id)
	}
	s.mu.Unlock()
	if ok {
		q.answer <- allow
	}
	return ok
}

// permissionAnswer is a permission answer one node passes to the others.
type permissionAnswer struct {
	ID     string `json:"id"`
	Tenant string `json:"tenant"`
	Allow  bool   `json:"allow"`
}

// answerElsewhere passes a permission answer to the node whose turn asked
// the question, when this server is a node of many; it reports whether a
// node took it.
func (s *Server) answerElsewhere(ctx context.Context, id, tenant string, allow bool) bool {
	n := s.Agent.Node
	if n == nil {
		return false
	}
	_, ok, err := cluster.Ask[permissionAnswer, struct{}](ctx, n, "permission", permissionAnswer{ID: id, Tenant: tenant, Allow: allow})
	if err != nil {
		s.Log.Warn("server: passing a permission answer to the other nodes failed", "question", id, "error", err.Error())
	}
	return ok
}

// joinCluster takes the permission answers other nodes pass on for the
// questions this server holds.
func (s *Server) joinCluster(n *cluster.Node) {
	cluster.Handle(n, "permission", func(_ context.Context, a permissionAnswer) (struct{}, bool) {
		return struct{}{}, s.answer(a.ID, a.Tenant, a.Allow)
	})
}
