package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/enginetest"
	"github.com/podcode/podcode/internal/webhook"
)

const clusterSecret = "whsec-two-nodes"

// clusterHome is a user's folder whose config makes podcode serve a node
// named node of the deployment on pg and nats (its stream: stream).
func clusterHome(t *testing.T, node, pg, nats, stream string, more ...map[string]any) string {
	t.Helper()
	settings := map[string]any{
		"store":      map[string]any{"url": pg},
		"bus":        map[string]any{"url": nats, "stream": stream},
		"cluster":    map[string]any{"node": node, "lease_ms": 5000},
		"permission": map[string]any{"bash": "ask"},
		"webhooks":   map[string]any{"ci": map[string]any{"secret": clusterSecret, "prompt": "CI says: {{.Body}}"}},
	}
	for _, m := range more {
		maps.Copy(settings, m)
	}
	cfg, _ := json.Marshal(settings)
	return userHome(t, string(cfg))
}

// sse is an /events stream, read with the ids of its events until the
// test ends.
type sse struct {
	mu    sync.Mutex
	items []sseEvent
}

type sseEvent struct {
	id   string
	data map[string]any
}

func (s *server) follow(lastID string) *sse {
	s.t.Helper()
	ev := &sse{}
	req, _ := http.NewRequestWithContext(s.t.Context(), "GET", s.base+"/events", nil)
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		id := ""
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "id: "); ok {
				id = v
			}
			if data, ok := strings.CutPrefix(line, "data: "); ok {
				var m map[string]any
				json.Unmarshal([]byte(data), &m)
				ev.mu.Lock()
				ev.items = append(ev.items, sseEvent{id: id, data: m})
				ev.mu.Unlock()
			}
		}
	}()
	return ev
}

// wait waits for an event for which match is true and returns it.
func (e *sse) wait(t *testing.T, what string, match func(sseEvent) bool) sseEvent {
	t.Helper()
	return e.waitN(t, what, 1, match)
}

// waitN waits until n events for which match is true have arrived, and
// returns the nth.
func (e *sse) waitN(t *testing.T, what string, n int, match func(sseEvent) bool) sseEvent {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		e.mu.Lock()
		got := 0
		for _, it := range e.items {
			if match(it) {
				if got++; got == n {
					e.mu.Unlock()
					return it
				}
			}
		}
		e.mu.Unlock()
	}
	t.Fatalf("fewer than %d events: %s", n, what)
	return sseEvent{}
}

// awaitStatus waits until s shows session id with status, and returns the
// status it shows last.
func (s *server) awaitStatus(id, status string) string {
	s.t.Helper()
	var got struct{ Status string }
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		s.do("GET", "/sessions/"+id, nil, &got)
		if got.Status == status || time.Now().After(deadline) {
			return got.Status
		}
	}
}

func ofType(typ, sessionID string) func(sseEvent) bool {
	return func(e sseEvent) bool {
		if e.data["type"] != typ {
			return false
		}
		p, _ := e.data["properties"].(map[string]any)
		if sessionID == "" {
			return true
		}
		if p["sessionID"] == sessionID {
			return true
		}
		q, _ := p["question"].(map[string]any)
		return q != nil && q["sessionID"] == sessionID
	}
}

// Two podcode serve nodes on one PostgreSQL database and one NATS server:
// a session made on A and used from B, A's events seen on B and resumed
// there, a permission asked by A's turn answered on B, a cancel sent to B
// ending A's turn, A killed mid-turn and the session going on on B, and a
// webhook delivery replayed to the other node refused.
func TestTwoNodes(t *testing.T) {
	pg, nats, stream := enginetest.Postgres(t), enginetest.NATS(t), enginetest.Prefix()
	dir := apptest.Dir(t, apptest.Project{Files: map[string]string{"notes.txt": "meeting at noon\n"}})
	a := start(t, dir, clusterHome(t, "node-a", pg, nats, stream))
	b := start(t, dir, clusterHome(t, "node-b", pg, nats, stream))
	evA, evB := a.follow(""), b.follow("")

	// A session made on A, a message posted on B, its events read on A.
	var sess struct{ ID string }
	if code := a.do("POST", "/sessions", nil, &sess); code != 201 && code != 200 {
		t.Fatalf("POST /sessions on A: %d", code)
	}
	var turn struct {
		Text string `json:"text"`
	}
	if code := b.do("POST", "/sessions/"+sess.ID+"/messages", map[string]any{"text": "hello from B"}, &turn); code != 200 {
		t.Fatalf("POST messages on B: %d", code)
	}
	fin := evA.wait(t, "turn.finished on A for B's turn", ofType("turn.finished", sess.ID))
	onB := evB.wait(t, "the same event on B", ofType("turn.finished", sess.ID))
	if fin.id == "" || fin.id != onB.id {
		t.Errorf("the same event has id %q on A and %q on B", fin.id, onB.id)
	}
	var msgs []message
	a.do("GET", "/sessions/"+sess.ID+"/messages", nil, &msgs)
	if len(msgs) < 2 || msgs[0].Text != "hello from B" {
		t.Fatalf("A does not see the turn B ran: %+v", msgs)
	}

	// A permission asked by a turn on A, answered on B.
	if code := a.do("POST", "/sessions/"+sess.ID+"/messages", map[string]any{"text": `/tool bash {"command": "echo allowed-on-b"}`, "async": true}, nil); code != 202 {
		t.Fatalf("async turn on A: %d", code)
	}
	asked := evB.wait(t, "permission.asked seen on B", ofType("permission.asked", sess.ID))
	q := asked.data["properties"].(map[string]any)["question"].(map[string]any)
	// While A's turn runs, B refuses another turn in the session.
	if code := b.do("POST", "/sessions/"+sess.ID+"/messages", map[string]any{"text": "me too"}, nil); code != http.StatusConflict {
		t.Errorf("a second turn posted on B while A's runs: %d, want 409", code)
	}
	if code := b.do("POST", "/permissions/"+q["id"].(string), map[string]any{"allow": true}, nil); code != 200 {
		t.Fatalf("answering A's question on B: %d", code)
	}
	evA.wait(t, "the allowed call finishes on A", func(e sseEvent) bool {
		p, _ := e.data["properties"].(map[string]any)
		return e.data["type"] == "tool.call.finished" && p["sessionID"] == sess.ID && p["error"] == nil
	})
	evA.wait(t, "A's turn ends", func(e sseEvent) bool {
		p, _ := e.data["properties"].(map[string]any)
		return ofType("turn.finished", sess.ID)(e) && e.id != fin.id && p["status"] == "complete"
	})
	a.do("GET", "/sessions/"+sess.ID+"/messages", nil, &msgs)
	if out := lastResult(msgs); !strings.Contains(out, "allowed-on-b") {
		t.Errorf("the call B allowed did not run on A: %q", out)
	}

	// Resume on B from an id A gave: what followed is replayed.
	resumed := b.follow(fin.id)
	resumed.wait(t, "B replays the events after A's id", ofType("permission.asked", sess.ID))

	// A cancel posted to B ends the turn running on A.
	if code := a.do("POST", "/sessions/"+sess.ID+"/messages", map[string]any{"text": `/tool bash {"command": "sleep 30"}`, "async": true}, nil); code != 202 {
		t.Fatalf("async turn on A: %d", code)
	}
	asked = evB.wait(t, "the second question", func(e sseEvent) bool {
		if !ofType("permission.asked", sess.ID)(e) {
			return false
		}
		return e.data["properties"].(map[string]any)["question"].(map[string]any)["id"] != q["id"]
	})
	q2 := asked.data["properties"].(map[string]any)["question"].(map[string]any)["id"].(string)
	b.do("POST", "/permissions/"+q2, map[string]any{"allow": true}, nil)
	evA.waitN(t, "sleep started on A", 2, ofType("tool.call.started", sess.ID))
	var cancelled struct{ Cancelled bool }
	if code := b.do("POST", "/sessions/"+sess.ID+"/cancel", nil, &cancelled); code != 200 || !cancelled.Cancelled {
		t.Fatalf("cancel on B: %d %+v", code, cancelled)
	}
	evB.wait(t, "A's cancelled turn ends as interrupted", func(e sseEvent) bool {
		p, _ := e.data["properties"].(map[string]any)
		return ofType("turn.finished", sess.ID)(e) && p["status"] == "interrupted"
	})

	// A killed mid-turn: B marks the turn interrupted, and the session goes on on B.
	if code := a.do("POST", "/sessions/"+sess.ID+"/messages", map[string]any{"text": `/tool bash {"command": "sleep 30"}`, "async": true}, nil); code != 202 {
		t.Fatalf("async turn on A: %d", code)
	}
	q3 := evB.wait(t, "the third question", func(e sseEvent) bool {
		if !ofType("permission.asked", sess.ID)(e) {
			return false
		}
		id := e.data["properties"].(map[string]any)["question"].(map[string]any)["id"]
		return id != q["id"] && id != q2
	}).data["properties"].(map[string]any)["question"].(map[string]any)["id"].(string)
	b.do("POST", "/permissions/"+q3, map[string]any{"allow": true}, nil)
	evB.waitN(t, "the third call started", 3, ofType("tool.call.started", sess.ID))
	a.kill()
	if got := b.awaitStatus(sess.ID, "interrupted"); got != "interrupted" {
		t.Fatalf("after A was killed the session is %q on B, want interrupted", got)
	}
	if code := b.do("POST", "/sessions/"+sess.ID+"/messages", map[string]any{"text": "carry on"}, &turn); code != 200 {
		t.Fatalf("the session did not go on on B: %d", code)
	}
	b.do("GET", "/sessions/"+sess.ID+"/messages", nil, &msgs)
	if last := msgs[len(msgs)-1]; last.Role != "assistant" || !strings.Contains(last.Text, "carry on") {
		t.Errorf("the turn on B: last message %+v", last)
	}

	// A webhook delivery accepted by one node and replayed to the other.
	c := start(t, dir, clusterHome(t, "node-c", pg, nats, stream))
	body := []byte(`{"build": "green"}`)
	ts, sig := webhook.Sign([]byte(clusterSecret), time.Now(), body)
	post := func(s *server) int {
		req, _ := http.NewRequest("POST", s.base+"/webhooks/ci", bytes.NewReader(body))
		req.Header.Set(webhook.HeaderTimestamp, ts)
		req.Header.Set(webhook.HeaderSignature, sig)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	if code := post(b); code/100 != 2 {
		t.Fatalf("the delivery on B: %d", code)
	}
	if code := post(c); code != http.StatusUnauthorized {
		t.Errorf("the same delivery replayed to C: %d, want 401", code)
	}
}

// lastResult is the output of the last tool result in msgs.
func lastResult(msgs []message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Result != nil {
			return msgs[i].Result.Output
		}
	}
	return ""
}

// Three ticks of a cron job on two podcode serve nodes run three turns,
// not six. Cron ticks at minutes, so this test takes three of them; it
// runs beside the others.
func TestTwoNodesCronOnce(t *testing.T) {
	t.Parallel()
	pg, nats, stream := enginetest.Postgres(t), enginetest.NATS(t), enginetest.Prefix()
	dir := apptest.Dir(t, apptest.Project{Files: map[string]string{"notes.txt": "x\n"}})
	job := map[string]any{"cron": []any{map[string]any{"name": "tick", "schedule": "* * * * *", "prompt": "tick"}}}
	a := start(t, dir, clusterHome(t, "cron-a", pg, nats, stream, job))
	b := start(t, dir, clusterHome(t, "cron-b", pg, nats, stream, job))
	// Both nodes are up from here. The three ticks counted are the first
	// three minutes after now (a tick while b was starting ran on a alone,
	// before now); the fourth is 50 s after the end.
	up := time.Now()
	first := up.Truncate(time.Minute).Add(time.Minute)
	time.Sleep(time.Until(first.Add(2*time.Minute + 10*time.Second)))
	a.kill()
	b.kill()
	c := start(t, dir, clusterHome(t, "cron-c", pg, nats, stream))
	var sessions []struct {
		Title     string
		Channel   string
		CreatedAt time.Time
	}
	c.do("GET", "/sessions", nil, &sessions)
	runs := 0
	for _, s := range sessions {
		if s.Channel == "cron" && s.Title == "cron tick" && !s.CreatedAt.Before(first) {
			runs++
		}
	}
	if runs != 3 {
		t.Errorf("three ticks on two nodes ran %d turns, want 3 (sessions: %+v)", runs, sessions)
	}
}

// One node on PostgreSQL without a bus (store.url alone) holds its turns'
// leases too: killed mid-turn and started again, it finds the turn
// interrupted once the lease ran out, and the session goes on.
func TestOneNodeOnPostgresKilledMidTurn(t *testing.T) {
	pg := enginetest.Postgres(t)
	dir := apptest.Dir(t, apptest.Project{Files: map[string]string{"notes.txt": "x\n"}})
	home := clusterHome(t, "solo", pg, "", "", map[string]any{"bus": map[string]any{}, "permission": map[string]any{}})
	a := start(t, dir, home)
	ev := a.follow("")
	var sess struct{ ID string }
	a.do("POST", "/sessions", nil, &sess)
	if code := a.do("POST", "/sessions/"+sess.ID+"/messages", map[string]any{"text": `/tool bash {"command": "sleep 30"}`, "async": true}, nil); code != 202 {
		t.Fatalf("async turn: %d", code)
	}
	ev.wait(t, "the call started", ofType("tool.call.started", sess.ID))
	a.kill()
	a = start(t, dir, home)
	ev = a.follow("")
	if got := a.awaitStatus(sess.ID, "interrupted"); got != "interrupted" {
		t.Fatalf("after the kill the session is %q, want interrupted", got)
	}
	var msgs []message
	if code := a.do("POST", "/sessions/"+sess.ID+"/messages", map[string]any{"text": "carry on"}, nil); code != 200 {
		t.Fatalf("the session did not go on: %d", code)
	}
	a.do("GET", "/sessions/"+sess.ID+"/messages", nil, &msgs)
	if last := msgs[len(msgs)-1]; last.Role != "assistant" || !strings.Contains(last.Text, "carry on") {
		t.Errorf("the turn after the kill: last message %+v", last)
	}
	// podcode run on the same store is a node too, of a name of its own
	// (the config names the server): while the server's turn runs, the
	// session is busy for it; then its turn is stored where the server
	// reads it.
	if code := a.do("POST", "/sessions/"+sess.ID+"/messages", map[string]any{"text": `/tool bash {"command": "sleep 30"}`, "async": true}, nil); code != 202 {
		t.Fatalf("async turn: %d", code)
	}
	ev.waitN(t, "the sleep started", 1, ofType("tool.call.started", sess.ID))
	if out, err := podcode(dir, home, "run", "--session", sess.ID, "beside the server"); err == nil || !strings.Contains(out, "already running") {
		t.Errorf("podcode run beside the server's turn: err %v\n%s", err, out)
	}
	var cancelled struct{ Cancelled bool }
	if a.do("POST", "/sessions/"+sess.ID+"/cancel", nil, &cancelled); !cancelled.Cancelled {
		t.Fatal("the server's turn was not cancelled")
	}
	ev.waitN(t, "the cancelled turn ended", 2, ofType("turn.finished", sess.ID))
	if out, err := podcode(dir, home, "run", "--session", sess.ID, "from the command line"); err != nil {
		t.Fatalf("podcode run on the shared store: %v\n%s", err, out)
	}
	a.do("GET", "/sessions/"+sess.ID+"/messages", nil, &msgs)
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Text, "from the command line") {
		t.Errorf("the server does not see podcode run's turn: last message %+v", last)
	}
}
