package server

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/cron"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/webhook"
	"github.com/podcode/podcode/plugin"
)

// backgroundServer boots a server whose Go hooks record every payload of
// the events given, and tells when a turn finished.
func backgroundServer(t *testing.T, hooks func(d *plugin.Dispatcher) error) (*Server, *payloads, chan string) {
	t.Helper()
	rec := &payloads{}
	ag := newAgent(t, apptest.Project{Hooks: func(d *plugin.Dispatcher) error {
		for _, ev := range []plugin.HookEvent{plugin.HookWebhookReceived, plugin.HookCronFired, plugin.HookUserPromptSubmit} {
			if err := d.Register(ev, rec.handler); err != nil {
				return err
			}
		}
		if hooks != nil {
			return hooks(d)
		}
		return nil
	}})
	finished := make(chan string, 100)
	ag.App.Bus.Subscribe(agent.EventTurnFinished, "test", func(ev bus.Event) { finished <- ev.Properties["sessionID"].(string) })
	s := New(ag, "api-token")
	t.Cleanup(s.Wait)
	return s, rec, finished
}

type payloads struct {
	mu   sync.Mutex
	list []plugin.HookPayload
}

func (p *payloads) handler(_ context.Context, pl *plugin.HookPayload) (*plugin.HookResult, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	c := *pl
	c.Extra = maps.Clone(pl.Extra) // the payload is only the handler's until it returns
	p.list = append(p.list, c)
	return nil, nil
}

func (p *payloads) of(ev plugin.HookEvent) []plugin.HookPayload {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []plugin.HookPayload
	for _, x := range p.list {
		if x.Event == ev {
			out = append(out, x)
		}
	}
	return out
}

func waitTurn(t *testing.T, finished chan string) string {
	t.Helper()
	select {
	case id := <-finished:
		return id
	case <-time.After(30 * time.Second):
		t.Fatal("no turn finished")
		return ""
	}
}

// A signed delivery runs its prompt as a turn (channel webhook), without
// the API token and without waiting for the turn; an unsigned one runs
// nothing.
//
// covers L1
func TestWebhookThroughTheServer(t *testing.T) {
	s, rec, finished := backgroundServer(t, nil)
	if err := s.EnableWebhooks(map[string]config.Webhook{"deploy": {Secret: "whsec", Prompt: `deploy {{.JSON.ref}} for {{index .Headers "X-Github-Event"}}`}}, webhook.Options{}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	post := func(body string, sign bool) *http.Response {
		req, _ := http.NewRequest("POST", srv.URL+"/webhooks/deploy", strings.NewReader(body))
		req.Header.Set("X-GitHub-Event", "push")
		if sign {
			ts, sig := webhook.Sign([]byte("whsec"), time.Now(), []byte(body))
			req.Header.Set(webhook.HeaderTimestamp, ts)
			req.Header.Set(webhook.HeaderSignature, sig)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := post(`{"ref": "main"}`, false); res.StatusCode != 401 {
		t.Errorf("unsigned: %d", res.StatusCode)
	}
	res := post(`{"ref": "main"}`, true)
	var out struct{ SessionID string }
	json.NewDecoder(res.Body).Decode(&out)
	res.Body.Close()
	if res.StatusCode != 202 || out.SessionID == "" {
		t.Fatalf("signed: %d %+v", res.StatusCode, out)
	}
	if id := waitTurn(t, finished); id != out.SessionID {
		t.Errorf("the turn ran in %s, not %s", id, out.SessionID)
	}
	msgs, err := s.Agent.Store.Messages(context.Background(), out.SessionID)
	if err != nil || len(msgs) == 0 || msgs[0].Text != "deploy main for push" {
		t.Errorf("messages %+v %v", msgs, err)
	}
	if p := rec.of(plugin.HookUserPromptSubmit); len(p) != 1 || p[0].Channel != "webhook" {
		t.Errorf("UserPromptSubmit %+v", p)
	}
	if p := rec.of(plugin.HookWebhookReceived); len(p) != 1 || p[0].Channel != "webhook" || p[0].Extra["webhook"] != "deploy" {
		t.Errorf("WebhookReceived %+v", p)
	}
	// The API still wants its token.
	if code, _ := call(t, srv, "GET", "/sessions", "", ""); code != 401 {
		t.Errorf("API without a token: %d", code)
	}
}

// stepClock runs time forward by itself: every timer fires at once, as if
// its time had come, so a scheduler on it ticks as fast as it can.
type stepClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *stepClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *stepClock) NewTimer(d time.Duration) cron.Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(max(d, 0))
	t := stepTimer{make(chan time.Time, 1)}
	t.c <- c.now
	return t
}

type stepTimer struct{ c chan time.Time }

func (t stepTimer) C() <-chan time.Time { return t.c }
func (t stepTimer) Stop() bool          { return false }

// A cron tick fires CronFired and runs the prompt as a turn on channel
// cron; a deny skips the run.
//
// covers L1
func TestCronThroughTheServer(t *testing.T) {
	s, rec, finished := backgroundServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sched, err := s.StartCron(ctx, []config.CronJob{{Name: "digest", Schedule: "*/5 * * * *", Prompt: "summarise the day"}},
		&stepClock{now: time.Date(2026, 12, 2, 9, 0, 30, 0, time.Local)})
	if err != nil {
		t.Fatal(err)
	}
	id := waitTurn(t, finished)
	// Ticks run on goroutines of their own: they are recorded in any order,
	// and one that has not dispatched when the scheduler stops is skipped.
	// So wait for the first tick's CronFired before stopping.
	firstTick := func() bool {
		for _, f := range rec.of(plugin.HookCronFired) {
			if strings.Contains(f.Extra["scheduled_at"].(string), "T09:05:00") {
				return true
			}
		}
		return false
	}
	for deadline := time.Now().Add(10 * time.Second); !firstTick() && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	sched.Stop()
	sess, err := s.Agent.Store.Session(ctx, store.DefaultTenant, id)
	if err != nil || sess.Channel != "cron" || sess.Title != "cron digest" {
		t.Errorf("session %+v %v", sess, err)
	}
	fired := rec.of(plugin.HookCronFired)
	for _, f := range fired {
		at, err := time.Parse(time.RFC3339, f.Extra["scheduled_at"].(string))
		if err != nil || at.Minute()%5 != 0 || f.Channel != "cron" || f.Extra["job"] != "digest" {
			t.Errorf("CronFired %+v", f)
		}
	}
	if !firstTick() {
		t.Errorf("no CronFired at the first tick, 09:05: %+v", fired)
	}
	if p := rec.of(plugin.HookUserPromptSubmit); len(p) == 0 || p[0].Channel != "cron" {
		t.Errorf("UserPromptSubmit %+v", p)
	}

	// Denied: CronFired fires, no session is made.
	s2, rec2, finished2 := backgroundServer(t, func(d *plugin.Dispatcher) error {
		return d.Register(plugin.HookCronFired, plugin.DenyHook("not on weekends"))
	})
	sched2, err := s2.StartCron(ctx, []config.CronJob{{Name: "digest", Schedule: "* * * * *", Prompt: "p"}}, &stepClock{now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(rec2.of(plugin.HookCronFired)) < 3 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	sched2.Stop()
	if n := len(rec2.of(plugin.HookCronFired)); n < 3 {
		t.Fatalf("CronFired fired %d times", n)
	}
	if list, _ := s2.Agent.Store.Sessions(ctx, store.DefaultTenant); len(list) != 0 || len(finished2) != 0 {
		t.Errorf("a denied tick ran: %d sessions", len(list))
	}
}

// Shutdown cancels the running turns, waits for them, and refuses new
// ones: none can start between the cancelling and the end.
func TestShutdownRefusesNewTurns(t *testing.T) {
	s, _, finished := backgroundServer(t, nil)
	srv := httptest.NewServer(s.Handler())
	t.Cleanup(srv.Close)
	_, sess := call(t, srv, "POST", "/sessions", "api-token", `{}`)
	id := sess["id"].(string)
	if code, out := call(t, srv, "POST", "/sessions/"+id+"/messages", "api-token", `{"async": true, "text": "/tool bash {\"command\": \"sleep 30\"}"}`); code != 202 {
		t.Fatalf("%d %v", code, out)
	}
	deadline := time.Now().Add(10 * time.Second)
	for { // until the turn runs
		if got, _ := s.Agent.Store.Session(context.Background(), store.DefaultTenant, id); got.Status == store.SessionRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the turn never ran")
		}
		time.Sleep(5 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	if err := s.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("shutdown waited %s for a cancelled turn", el)
	}
	waitTurn(t, finished)
	if code, _ := call(t, srv, "POST", "/sessions/"+id+"/messages", "api-token", `{"text": "more"}`); code != 503 {
		t.Errorf("a turn after shutdown: %d", code)
	}
	if _, _, err := s.Background(context.Background(), "cron", "t", "", "p"); !errors.Is(err, agent.ErrShuttingDown) {
		t.Errorf("a background turn after shutdown: %v", err)
	}
}
