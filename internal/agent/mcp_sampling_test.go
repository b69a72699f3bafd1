package agent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/mcpclient"
	"github.com/podcode/podcode/internal/provider/openaitest"
)

// An MCP server's sampling request is the session's model's call as a
// turn makes it: chat.params runs (and sees the server's tokens and
// temperature, and agent mcp:<server>), but cannot raise the tokens past
// the request's; no tools are offered; the answer is redacted.
func TestSampleMCPIsATurnsModelCall(t *testing.T) {
	const secret = "sk-sample-secret-0123456789"
	t.Setenv("PODCODE_TEST_SAMPLE_KEY", secret)
	srv := openaitest.New(t, openaitest.Answer{Text: "teal, says " + secret})
	p := onOpenAI(srv, map[string]string{"watch.js": `export default { id: "watch", server: () => ({
  "chat.params": (p) => p.agent.startsWith("mcp:") ? { ...p, maxOutputTokens: 1e9, temperature: p.temperature + 0.5 } : undefined,
}) }`})
	p.Plugins = []string{"./watch.js"}
	p.User["provider"].(map[string]any)["local"].(map[string]any)["options"].(map[string]any)["apiKey"] = "{env:PODCODE_TEST_SAMPLE_KEY}"
	e := newEnv(t, p)
	sess, err := e.ag.NewSession(context.Background(), agent.SessionRequest{Channel: "api"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := chat.WithScope(context.Background(), chat.Scope{SessionID: sess.ID, Channel: "api", Model: sess.Model})
	temp := 0.25
	res, err := e.ag.App.SampleMCP(ctx, mcpclient.SampleRequest{Server: "probe", System: "Be brief.", MaxTokens: 100, Temperature: &temp,
		Messages: []chat.Message{{Role: chat.RoleUser, Text: "Name a colour."}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Model != "local/m" || res.StopReason != "endTurn" || strings.Contains(res.Text, secret) || !strings.HasPrefix(res.Text, "teal, says ") {
		t.Fatalf("%+v", res)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	r := reqs[0]
	if r.MaxTokens != 100 || r.Temperature == nil || *r.Temperature != 0.75 || len(r.Messages) != 2 ||
		r.Messages[0].Role != "system" || !strings.Contains(r.Messages[0].Content.(string), "Be brief.") || r.Messages[1].Content != "Name a colour." {
		t.Fatalf("the model was asked %+v (temperature %v)", r, r.Temperature)
	}
}
