package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/cluster"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/cron"
	"github.com/podcode/podcode/internal/enginetest"
	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/plugin"
)

// clusterNode is a server that is node name of the deployment on the
// PostgreSQL database pg and the NATS server nats, with stream as its
// event stream; its Go hooks count the CronFired dispatches in fired.
func clusterNode(t *testing.T, name, pg, nats, stream string, fired *atomic.Int32, tokens ...config.TenantToken) (*Server, *apptest.Logs) {
	t.Helper()
	return clusterNodeWith(t, name, pg, nats, stream, func(d *plugin.Dispatcher) error {
		return d.Register(plugin.HookCronFired, func(context.Context, *plugin.HookPayload) (*plugin.HookResult, error) {
			fired.Add(1)
			return nil, nil
		})
	}, tokens...)
}

// clusterNodeWith is clusterNode with the Go hooks that hooks registers.
func clusterNodeWith(t *testing.T, name, pg, nats, stream string, hooks func(*plugin.Dispatcher) error, tokens ...config.TenantToken) (*Server, *apptest.Logs) {
	t.Helper()
	a, logs := apptest.Boot(t, apptest.Project{Hooks: hooks})
	st, err := store.OpenPostgres(t.Context(), pg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	remote, err := bus.Join(t.Context(), a.Bus, nats, bus.JoinOptions{Node: name, Stream: stream})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { remote.Close() })
	ag := agent.New(a, st)
	ag.JoinCluster(cluster.New(st, remote, cluster.Options{Name: name}))
	s := New(ag, "api-token", tokens...)
	t.Cleanup(s.Wait)
	return s, logs
}

// covers L1: on two nodes, three ticks of a job fire CronFired three times
// and run three turns, not six.
func TestCronTicksOnceAcrossNodes(t *testing.T) {
	pg, nats, stream := enginetest.Postgres(t), enginetest.NATS(t), enginetest.Prefix()
	var fired atomic.Int32
	a, logsA := clusterNode(t, "a", pg, nats, stream, &fired)
	b, logsB := clusterNode(t, "b", pg, nats, stream, &fired)
	var turns atomic.Int32
	for _, s := range []*Server{a, b} {
		s.Agent.App.Bus.Subscribe(agent.EventTurnFinished, "test", func(bus.Event) { turns.Add(1) })
	}
	// Both schedulers start at the same instant and tick every minute:
	// each stepClock runs three ticks, 09:01, 09:02 and 09:03, then waits.
	start := time.Date(2026, 12, 2, 9, 0, 30, 0, time.UTC)
	jobs := []config.CronJob{{Name: "digest", Schedule: "* * * * *", Prompt: "summarise"}}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var scheds []*cron.Scheduler
	for _, s := range []*Server{a, b} {
		sched, err := s.StartCron(ctx, jobs, &limitClock{stepClock: stepClock{now: start}, until: start.Add(3 * time.Minute)})
		if err != nil {
			t.Fatal(err)
		}
		scheds = append(scheds, sched)
	}
	// Each tick is taken by the node that claimed it (which runs it, or
	// skips it while its previous run goes on: the overlap rule) and passed
	// over by the other: once both counts reach three, every tick of both
	// nodes has been decided.
	const passed, started, overlapped = "cron: another node fires this tick", "cron: run started", "cron: the previous run is still going; tick skipped"
	count := func(msg string) int { return logsA.Count(msg) + logsB.Count(msg) }
	deadline := time.Now().Add(30 * time.Second)
	for (count(passed) < 3 || count(started)+count(overlapped) < 3) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	for turns.Load() < int32(count(started)) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	for _, sched := range scheds {
		sched.Stop()
	}
	if n := count(passed); n != 3 {
		t.Errorf("the nodes passed over %d ticks, want 3 (one of each pair)", n)
	}
	if n := count(started) + count(overlapped); n != 3 {
		t.Errorf("the nodes took %d ticks, want 3", n)
	}
	if n, want := turns.Load(), int32(count(started)); n != want || n == 0 {
		t.Errorf("%d turns ran for %d runs started", n, want)
	}
	if n := fired.Load(); n != 3 {
		t.Errorf("CronFired fired %d times across the nodes, want 3", n)
	}
}

// limitClock is a stepClock that stops at until: its timers past it never
// fire.
type limitClock struct {
	stepClock
	until time.Time
}

func (c *limitClock) NewTimer(d time.Duration) cron.Timer {
	c.mu.Lock()
	past := c.now.Add(max(d, 0)).After(c.until)
	c.mu.Unlock()
	if past {
		return stepTimer{make(chan time.Time)}
	}
	return c.stepClock.NewTimer(d)
}

// A permission answer posted to another node reaches the question only
// with the tenant that owns it: another tenant's answer is a 404 there
// too, and the question still waits.
func TestPermissionAnswerCrossesNodesOnlyForItsTenant(t *testing.T) {
	pg, nats, stream := enginetest.Postgres(t), enginetest.NATS(t), enginetest.Prefix()
	var fired atomic.Int32
	tokens := []config.TenantToken{{Token: "tok-one", TenantID: 1, UserID: "ann"}, {Token: "tok-two", TenantID: 2, UserID: "bob"}}
	a, _ := clusterNode(t, "a", pg, nats, stream, &fired, tokens...)
	b, _ := clusterNode(t, "b", pg, nats, stream, &fired, tokens...)
	answer := make(chan guard.Answer, 1)
	a.mu.Lock()
	a.questions["perm_1"] = question{tenant: store.TenantKey(1), answer: answer}
	a.mu.Unlock()
	srv := httptest.NewServer(b.Handler())
	defer srv.Close()
	if code, body := call(t, srv, "POST", "/permissions/perm_1", "tok-two", `{"allow": true}`); code != 404 {
		t.Fatalf("tenant 2 answered tenant 1's question on another node: %d %v", code, body)
	}
	select {
	case v := <-answer:
		t.Fatalf("the question got %v from another tenant", v)
	default:
	}
	if code, body := call(t, srv, "POST", "/permissions/perm_1", "tok-one", `{"allow": true}`); code != 200 {
		t.Fatalf("tenant 1's answer on node b: %d %v", code, body)
	}
	if v := <-answer; v.Action != guard.Accept {
		t.Fatalf("the answer arrived as %+v", v)
	}

	// A form's values cross too, checked by the node that holds the form:
	// values that do not fit it are a 400 on the node posted to, and the
	// question still waits.
	form := &guard.Form{Server: "probe", Fields: []guard.Field{{Name: "age", Type: guard.FieldInteger, Default: 30.0}}}
	a.mu.Lock()
	a.questions["perm_2"] = question{tenant: store.TenantKey(1), form: form, answer: answer}
	a.mu.Unlock()
	if code, body := call(t, srv, "POST", "/permissions/perm_2", "tok-one", `{"action": "accept", "content": {"age": 1.5}}`); code != 400 {
		t.Fatalf("values that do not fit, on node b: %d %v", code, body)
	}
	if code, body := call(t, srv, "POST", "/permissions/perm_2", "tok-one", `{"action": "accept", "content": {}}`); code != 200 {
		t.Fatalf("tenant 1's form answer on node b: %d %v", code, body)
	}
	if v := <-answer; v.Action != guard.Accept || v.Content["age"] != 30.0 {
		t.Fatalf("the form's answer arrived as %+v", v)
	}
}

// Nodes are upgraded one at a time: a permission answer passed on by a
// node of the version before forms ({id, tenant, allow}) is understood,
// and one passed on now says allow as that version reads it.
func TestPermissionAnswerCrossesNodesOfTheVersionBefore(t *testing.T) {
	var older permissionAnswer
	if err := json.Unmarshal([]byte(`{"id":"perm_1","tenant":"t1","allow":true}`), &older); err != nil {
		t.Fatal(err)
	}
	if ans, err := older.answer(nil); older.ID != "perm_1" || older.Tenant != "t1" || err != nil || ans.Action != guard.Accept {
		t.Errorf("the older node's answer: %+v -> %+v %v", older, ans, err)
	}
	form := &guard.Form{Server: "probe", Fields: []guard.Field{{Name: "age", Type: guard.FieldInteger, Default: 30.0}}}
	for _, c := range []struct {
		reply PermissionReply
		allow bool
	}{
		{PermissionReply{Allow: true}, true},
		{PermissionReply{}, false},
		{PermissionReply{Action: guard.Accept, Content: map[string]any{"age": 41.0}}, true},
		{PermissionReply{Action: guard.Decline, Allow: true}, false},
		{PermissionReply{Action: guard.Cancel}, false},
	} {
		data, err := json.Marshal(newPermissionAnswer("perm_2", "t1", c.reply))
		if err != nil {
			t.Fatal(err)
		}
		var asRead struct { // what the version before forms decodes
			ID, Tenant string
			Allow      bool
		}
		if err := json.Unmarshal(data, &asRead); err != nil || asRead.ID != "perm_2" || asRead.Tenant != "t1" || asRead.Allow != c.allow {
			t.Errorf("%+v passed on as %s: the older node reads %+v %v", c.reply, data, asRead, err)
		}
		var now permissionAnswer
		if err := json.Unmarshal(data, &now); err != nil {
			t.Fatal(err)
		}
		want, _ := c.reply.answer(form)
		if got, err := now.answer(form); err != nil || got.Action != want.Action || fmt.Sprint(got.Content) != fmt.Sprint(want.Content) {
			t.Errorf("%+v passed on as %s: answers %+v %v, want %+v", c.reply, data, got, err, want)
		}
	}
}

// A cancel posted to another node reaches a turn that has not yet marked
// its session running (its UserPromptSubmit hook still runs): the lease,
// taken before the hooks, says which node runs it.
func TestCancelReachesATurnInUserPromptSubmit(t *testing.T) {
	pg, nats, stream := enginetest.Postgres(t), enginetest.NATS(t), enginetest.Prefix()
	inHook := make(chan struct{}, 1)
	a, _ := clusterNodeWith(t, "a", pg, nats, stream, func(d *plugin.Dispatcher) error {
		return d.Register(plugin.HookUserPromptSubmit, func(ctx context.Context, _ *plugin.HookPayload) (*plugin.HookResult, error) {
			inHook <- struct{}{}
			<-ctx.Done() // a slow hook: it ends with the turn
			return nil, ctx.Err()
		})
	})
	var fired atomic.Int32
	b, _ := clusterNode(t, "b", pg, nats, stream, &fired)
	sess, err := a.Agent.NewSession(t.Context(), agent.SessionRequest{Tenant: store.DefaultTenant})
	if err != nil {
		t.Fatal(err)
	}
	ended := make(chan error, 1)
	go func() {
		_, err := a.Agent.Run(t.Context(), agent.TurnRequest{SessionID: sess.ID, Prompt: "hello"})
		ended <- err
	}()
	<-inHook
	srv := httptest.NewServer(b.Handler())
	defer srv.Close()
	code, body := call(t, srv, "POST", "/sessions/"+sess.ID+"/cancel", "api-token", "")
	if code != 200 || body["cancelled"] != true {
		t.Fatalf("cancel on b: %d %v", code, body)
	}
	select {
	case err := <-ended:
		if err == nil {
			t.Error("the cancelled turn ended without an error")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the turn on a goes on after the cancel on b")
	}
}
