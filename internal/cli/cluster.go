package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/app"
	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/cluster"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/store"
)

// joinCluster makes the server one node of many when the user's config
// names a bus (bus.url; store.url is then set too, the config checks it):
// the bus joins the other nodes over NATS, the agent claims its turns'
// leases, and the node renews them and reaps dead nodes' turns until ctx
// ends. Without bus.url it does nothing. stop leaves the deployment.
func joinCluster(ctx context.Context, a *app.App, st *store.Store, ag *agent.Agent) (stop func(), err error) {
	cfg := a.Config
	if cfg.Bus.URL == "" {
		return func() {}, nil
	}
	name := cfg.Cluster.Node
	if name == "" {
		name = cluster.DefaultName()
	}
	// The journal's size first: Join fills it from the stream, and a later
	// SetReplay (the server's, the same size) keeps what it holds.
	if n := cfg.Server.EventsReplay; n > 0 {
		a.Bus.SetReplay(n)
	}
	// Events leave the node redacted, as everything stored: the stream
	// keeps them on the NATS server's disk.
	remote, err := bus.Join(ctx, a.Bus, config.ExpandEnv(cfg.Bus.URL), bus.JoinOptions{Node: name, Stream: cfg.Bus.Stream, Log: a.Log, Redact: a.Redact.String})
	if err != nil {
		return nil, fmt.Errorf("bus.url %s: %w", config.RedactURL(cfg.Bus.URL), err)
	}
	node := cluster.New(st, remote, cluster.Options{Name: name, Lease: time.Duration(cfg.Cluster.LeaseMs) * time.Millisecond,
		Log: a.Log, Reaped: ag.Reaped})
	unhandle := ag.JoinCluster(node)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		node.Run(ctx)
	}()
	a.Log.Info("cluster: joined", "node", name, "lease", node.Lease().String())
	return func() {
		cancel()
		<-done
		unhandle()
		if err := remote.Close(); err != nil {
			a.Log.Warn("cluster: leaving the bus", "error", err.Error())
		}
	}, nil
}
