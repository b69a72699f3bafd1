package app

import (
	"testing"

	"github.com/podcode/podcode/internal/chat"
)

// A session that ended is forgotten whole: a long-running server ends
// sessions all day (deleted ones, sub-agents' at the end of their task),
// and the record of live sessions must not grow with them.
func TestEndedSessionsAreForgotten(t *testing.T) {
	l := &liveSessions{m: map[string]chat.Scope{}, children: map[string]bool{"child": true}}
	for _, id := range []string{"a", "b", "c"} {
		l.add(chat.Scope{SessionID: id})
	}
	for _, id := range []string{"a", "c", "child"} {
		l.take(id)
	}
	if len(l.list) != 1 || l.list[0] != "b" || len(l.m) != 1 || len(l.children) != 0 {
		t.Errorf("after three ended: list %v, %d live, children %v; want only b", l.list, len(l.m), l.children)
	}
}
