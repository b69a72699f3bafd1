package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/cluster"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/logging"
	"github.com/podcode/podcode/internal/store"
)

// joinTimeout bounds joining the bus: a NATS server that does not answer
// fails the start instead of hanging it.
const joinTimeout = 30 * time.Second

// joinCluster makes the server a node of its deployment when the user's
// config names a PostgreSQL store (store.url): the agent claims its turns'
// leases, and the node renews them and reaps the turns a dead node (or a
// crash of this one) left, until stop. With bus.url too, the bus joins the
// other nodes over NATS and permission answers and cancels travel between
// them; without it the node is the only one. Without store.url it does
// nothing (SQLite: one process, and Open marks a crash's turns). stop
// leaves the deployment: call it after the server's turns have ended, so
// that their leases are renewed while they wind down.
//
// command is the command that joins: "serve" takes cluster.node as its
// name; any other (run, acp) a name of its own, made from it and the
// process id, since it may run beside the server of the same machine and
// two processes of one name would share their leases.
func joinCluster(ctx context.Context, a *app.App, st *store.Store, ag *agent.Agent, command string) (stop func(), err error) {
	cfg := a.Config
	if cfg.Store.URL == "" {
		return func() {}, nil
	}
	name := cfg.Cluster.Node
	switch {
	case name == "":
		name = cluster.DefaultName()
		if command != "serve" {
			name += "-" + command
		}
	case command != "serve":
		name = fmt.Sprintf("%s-%s-%d", name, command, os.Getpid())
	}
	var remote *bus.Remote
	var msg cluster.Messenger
	if cfg.Bus.URL != "" {
		// The journal's size first: Join fills it from the stream, and a
		// later SetReplay (the server's, the same size) keeps what it holds.
		if n := cfg.Server.EventsReplay; n > 0 {
			a.Bus.SetReplay(n)
		}
		jctx, cancel := context.WithTimeout(ctx, joinTimeout)
		defer cancel()
		// Events leave the node redacted, as everything stored: the stream
		// keeps them on the NATS server's disk.
		remote, err = bus.Join(jctx, a.Bus, config.ExpandEnv(cfg.Bus.URL), bus.JoinOptions{Node: name, Stream: cfg.Bus.Stream, Log: a.Log, Redact: a.Redact.String})
		if err != nil {
			return nil, fmt.Errorf("bus.url %s: %w", logging.RedactURL(cfg.Bus.URL), err)
		}
		msg = remote
	}
	node := cluster.New(st, msg, cluster.Options{Name: name, Lease: time.Duration(cfg.Cluster.LeaseMs) * time.Millisecond,
		Log: a.Log, Reaped: ag.Reaped})
	unhandle := ag.JoinCluster(node)
	// Not the signal's context: a stopping server's turns keep their
	// leases until they have ended.
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		node.Run(rctx)
	}()
	// Cron schedules are read in each node's time zone: nodes in different
	// zones would each fire their own ticks (docs/deploy.md).
	a.Log.Info("cluster: joined", "node", name, "lease_holder", node.Holder(), "lease", node.Lease().String(), "bus", remote != nil, "time_zone", time.Now().Format("MST -07:00"))
	return func() {
		cancel()
		<-done
		unhandle()
		if remote != nil {
			if err := remote.Close(); err != nil {
				a.Log.Warn("cluster: leaving the bus", "error", err.Error())
			}
		}
	}, nil
}
