package server

import (
	"context"
	"net/http"
	"time"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/cron"
	"github.com/podcode/podcode/internal/httpjson"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/webhook"
	"github.com/podcode/podcode/plugin"
)

// Background runs prompt as a turn on the server's behalf (a cron job, a
// webhook), for the default tenant: in session id, or in a new session
// titled title when id is empty. It returns the session id once the turn
// has started; done receives the turn's error when it ends. The turn ends
// with ctx, or when the server stops.
func (s *Server) Background(ctx context.Context, channel, title, id, prompt string) (string, <-chan error, error) {
	if !s.turns.add() {
		return "", nil, agent.ErrShuttingDown
	}
	if id == "" {
		sess, err := s.Agent.NewSession(ctx, agent.SessionRequest{Tenant: store.DefaultTenant, Title: title, Channel: channel})
		if err != nil {
			s.turns.done()
			return "", nil, err
		}
		id = sess.ID
	} else if _, err := s.Agent.Store.Session(ctx, store.DefaultTenant, id); err != nil {
		s.turns.done()
		return "", nil, err
	}
	done := make(chan error, 1)
	go func() {
		defer s.turns.done()
		_, err := s.Agent.Run(ctx, agent.TurnRequest{Tenant: store.DefaultTenant, SessionID: id, Prompt: prompt, Channel: channel})
		if err != nil {
			s.Log.Warn("server: background turn failed", "channel", channel, "session", id, "error", err.Error())
		}
		done <- err
	}()
	return id, done, nil
}

// EnableWebhooks serves POST /webhooks/{name} for the config's webhooks,
// outside the token check (a webhook proves itself by its signature). Each
// accepted delivery runs its prompt as a turn in a new session, channel
// webhook. An error names the webhook that is misconfigured.
func (s *Server) EnableWebhooks(hooks map[string]config.Webhook, o webhook.Options) error {
	if len(hooks) == 0 {
		return nil
	}
	if o.Hooks == nil {
		o.Hooks = s.Agent.App.Hooks
	}
	if o.Log == nil {
		o.Log = s.Log
	}
	if o.Ledger == nil {
		o.Ledger = s.Agent.Store
	}
	if o.Redact == nil {
		o.Redact = s.Agent.App.Redact.String
	}
	if o.Verified == nil {
		// A delivery that proved itself holds its connection as a token
		// holder does (Limits.MaxUnauthenticatedConns).
		o.Verified = authenticated
	}
	o.Start = func(ctx context.Context, name, prompt string, _ *plugin.HookPayload) (string, error) {
		id, _, err := s.Background(ctx, webhook.Channel, "webhook "+name, "", prompt)
		return id, err
	}
	r, err := webhook.New(hooks, o)
	if err != nil {
		return err
	}
	s.webhooks = r
	return nil
}

// StartCron starts the config's cron jobs; each tick that CronFired allows
// runs the job's prompt as a turn (channel cron) in the job's session, or
// a new one. Stop the returned scheduler before the server stops.
func (s *Server) StartCron(ctx context.Context, jobs []config.CronJob, clock cron.Clock) (*cron.Scheduler, error) {
	o := cron.Options{Hooks: s.Agent.App.Hooks, Clock: clock, Log: s.Log}
	if n := s.Agent.Node; n != nil {
		// One of many nodes: each tick is the node's that claims it in the
		// shared store.
		o.Claim = func(ctx context.Context, job string, at time.Time) (bool, error) {
			return s.Agent.Store.ClaimTick(ctx, job, at, n.Name())
		}
	}
	o.Run = func(ctx context.Context, job config.CronJob, p *plugin.HookPayload) error {
		_, done, err := s.Background(ctx, cron.Channel, "cron "+job.Name, p.SessionID, job.Prompt)
		if err != nil {
			return err
		}
		return <-done
	}
	sched, err := cron.New(jobs, o)
	if err != nil {
		return nil, err
	}
	sched.Start(ctx)
	return sched, nil
}

// route sends webhook deliveries to the receiver and everything else,
// through the token check, to the API.
func (s *Server) route(api http.Handler) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/", s.auth(api))
	mux.HandleFunc("/webhooks/{name}", func(w http.ResponseWriter, r *http.Request) {
		if s.webhooks == nil {
			httpjson.Error(w, http.StatusNotFound, errNoWebhooks)
			return
		}
		s.webhooks.ServeHTTP(w, r)
	})
	return mux
}
