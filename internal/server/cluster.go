package server

import (
	"context"
	"errors"

	"github.com/podcode/podcode/internal/cluster"
	"github.com/podcode/podcode/internal/guard"
)

// answer gives reply to the pending question id of tenant's, if this
// server holds it (found). A reply that does not fit the question (a
// form's values that do not fit it) is err, and leaves it pending.
func (s *Server) answer(id, tenant string, reply PermissionReply) (found bool, err error) {
	s.mu.Lock()
	q, ok := s.questions[id]
	ok = ok && q.tenant == tenant
	var ans guard.Answer
	if ok {
		if ans, err = reply.answer(q.form); err == nil {
			delete(s.questions, id)
		}
	}
	s.mu.Unlock()
	if ok && err == nil {
		q.answer <- ans
	}
	return ok, err
}

// permissionAnswer is a permission answer one node passes to the others.
// The reply's fields sit beside id and tenant, and allow always says
// whether it accepts: a node of a version before forms (which read id,
// tenant and allow alone) understands a newer node's answer, and a newer
// node an older one's, so nodes can be upgraded one at a time.
type permissionAnswer struct {
	ID     string `json:"id"`
	Tenant string `json:"tenant"`
	PermissionReply
}

// newPermissionAnswer is reply to the question id of tenant's, as passed
// to the other nodes.
func newPermissionAnswer(id, tenant string, reply PermissionReply) permissionAnswer {
	if reply.Action != "" {
		reply.Allow = reply.Action == guard.Accept
	}
	return permissionAnswer{ID: id, Tenant: tenant, PermissionReply: reply}
}

// permissionAnswered is what the node holding the question says: why the
// reply does not fit it, if it does not.
type permissionAnswered struct {
	Error string `json:"error,omitempty"`
}

// answerElsewhere passes a permission answer to the node whose turn asked
// the question, when this server is a node of many; it reports whether a
// node took it, and that node's objection to the reply.
func (s *Server) answerElsewhere(ctx context.Context, id, tenant string, reply PermissionReply) (found bool, err error) {
	n := s.Agent.Node
	if n == nil {
		return false, nil
	}
	res, ok, err := cluster.Ask[permissionAnswer, permissionAnswered](ctx, n, "permission", newPermissionAnswer(id, tenant, reply))
	if err != nil {
		s.Log.Warn("server: passing a permission answer to the other nodes failed", "question", id, "error", err.Error())
		return false, nil
	}
	if ok && res.Error != "" {
		return true, errors.New(res.Error)
	}
	return ok, nil
}

// joinCluster takes the permission answers other nodes pass on for the
// questions this server holds.
func (s *Server) joinCluster(n *cluster.Node) {
	cluster.Handle(n, "permission", func(_ context.Context, a permissionAnswer) (permissionAnswered, bool) {
		found, err := s.answer(a.ID, a.Tenant, a.PermissionReply)
		if err != nil {
			return permissionAnswered{Error: err.Error()}, found
		}
		return permissionAnswered{}, found
	})
}
