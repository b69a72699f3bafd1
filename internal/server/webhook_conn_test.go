package server

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/webhook"
	"github.com/podcode/podcode/plugin"
)

// A webhook delivery carries no token: its connection counts as
// unauthenticated until its signature checks out, and from then on as
// authenticated. A flood of connections without a token, which closes the
// oldest unauthenticated ones, does not close a signed delivery whose
// WebhookReceived hooks are running.
func TestSignedDeliveryIsNotEvicted(t *testing.T) {
	entered, release := make(chan struct{}), make(chan struct{})
	hooks := plugin.NewDispatcher(plugin.WithTimeout(time.Hour))
	hooks.Register(plugin.HookWebhookReceived, func(ctx context.Context, _ *plugin.HookPayload) (*plugin.HookResult, error) {
		close(entered)
		select {
		case <-release:
		case <-ctx.Done():
		}
		return nil, ctx.Err()
	})
	const maxAnon = 2
	rs := serveReal(t, Limits{MaxConns: 16, MaxUnauthenticatedConns: maxAnon, ReadHeaderTimeout: time.Hour, ReadTimeout: time.Hour, IdleTimeout: time.Hour},
		apptest.Project{}, func(s *Server) {
			if err := s.EnableWebhooks(map[string]config.Webhook{"ci": {Secret: "s3cret", Prompt: "p"}}, webhook.Options{Hooks: hooks}); err != nil {
				t.Fatal(err)
			}
		}, "tok")

	body := `{"ref": "main"}`
	ts, sig := webhook.Sign([]byte("s3cret"), time.Now(), []byte(body))
	delivery := rs.dial(t)
	io.WriteString(delivery, request("POST", "/webhooks/ci", "", fmt.Sprintf("%s: %s\r\n%s: %s\r\nContent-Length: %d\r\n",
		webhook.HeaderTimestamp, ts, webhook.HeaderSignature, sig, len(body)))+body)
	select {
	case <-entered:
	case <-time.After(bound):
		t.Fatal("the delivery's hook did not run")
	}
	// The flood: each connection, never finishing its request, closes the
	// oldest unauthenticated one.
	var flood []net.Conn
	for i := 0; i < 4*maxAnon; i++ {
		c := rs.dial(t)
		io.WriteString(c, "GET /sessions HTTP/1.1\r\nHost: podcode\r\n")
		flood = append(flood, c)
	}
	// The flood's first connection was closed for the later ones: by then
	// the delivery's fate was decided.
	rs.closedByServer(t, flood[0])
	close(release)
	delivery.SetReadDeadline(time.Now().Add(bound))
	res, err := http.ReadResponse(bufio.NewReader(delivery), nil)
	if err != nil {
		t.Fatalf("the signed delivery was closed during the flood: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != 202 {
		t.Errorf("the signed delivery, during the flood: %d", res.StatusCode)
	}
}
