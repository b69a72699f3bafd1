package acp

import (
	"context"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/apptest"
)

const benchPrompt = `/tool read {"path": "a.txt"}`

// A prompt of one read call over ACP: two model calls (offline), the tool,
// four updates, the answer; BenchmarkTurnWithoutACP is the same turn
// without the protocol, for the difference.
func BenchmarkPromptOverACP(b *testing.B) {
	e := serve(b, apptest.Project{Files: map[string]string{"a.txt": "alpha\n"}}, sdk.ClientCapabilities{})
	id := e.newSession(b)
	b.ReportAllocs()
	for b.Loop() {
		res, err := e.cl.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: sdk.SessionId(id), Prompt: []sdk.ContentBlock{sdk.TextBlock(benchPrompt)}})
		if err != nil || res.StopReason != sdk.StopReasonEndTurn {
			b.Fatal(res.StopReason, err)
		}
		e.cl.take()
	}
}

func BenchmarkTurnWithoutACP(b *testing.B) {
	a, _ := apptest.Boot(b, apptest.Project{Files: map[string]string{"a.txt": "alpha\n"}})
	st := openStore(b)
	ag := agent.New(a, st)
	sess, err := ag.NewSession(context.Background(), agent.SessionRequest{Channel: Channel})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ag.Run(context.Background(), agent.TurnRequest{SessionID: sess.ID, Prompt: benchPrompt, Channel: Channel}); err != nil {
			b.Fatal(err)
		}
	}
}
