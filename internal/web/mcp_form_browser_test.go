package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/apptest"
)

// A person answers an MCP server's form in the page: its fields filled
// with their defaults, one changed, Send; the server gets the values with
// the defaults of what was left. A long call's progress is shown under it
// while it runs, and goes when it ends.
func TestPageAnswersAnMCPFormAndShowsProgress(t *testing.T) {
	release := make(chan struct{})
	srv := mcp.NewServer(&mcp.Implementation{Name: "asking", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "Who are you?", RequestedSchema: json.RawMessage(`{"type":"object","properties":{
			"name":{"type":"string","title":"Your name","default":"John Doe"},
			"age":{"type":"integer","minimum":0,"default":30},
			"colour":{"type":"string","oneOf":[{"const":"r","title":"Red"},{"const":"g","title":"Green"}],"default":"g"},
			"verified":{"type":"boolean","default":true},
			"tags":{"type":"array","items":{"type":"string","enum":["a","b"]}}},"required":["name"]}`)})
		if err != nil {
			return nil, err
		}
		b, _ := json.Marshal(res)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "got " + string(b)}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "slow", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: req.Params.GetProgressToken(), Progress: 1, Total: 3, Message: "step one"})
		select {
		case <-release:
		case <-ctx.Done():
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "slow done"}}}, nil
	})
	ts := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(ts.Close)
	page := serveProject(t, &events{}, apptest.Project{User: map[string]any{"mcp": map[string]any{"probe": map[string]any{"type": "remote", "url": ts.URL + "/mcp"}}}})
	ctx := browser(t)
	console := watchConsole(ctx)
	stage(t, ctx, "the page opens", signIn(page.URL)...)
	stage(t, ctx, "a session opens",
		chromedp.Click(chromedp.CSS("#new-session button")),
		chromedp.WaitVisible(chromedp.ID("view-session")))
	stage(t, ctx, "the prompt is sent",
		chromedp.SendKeys(chromedp.ID("prompt"), `/tool probe_ask {}`),
		chromedp.Click(chromedp.ID("send")),
		chromedp.WaitVisible(chromedp.CSS("form.question input[name=name]")))
	shown := strings.Join(texts(t, ctx, "form.question"), "")
	for _, want := range []string{"The MCP server probe asks (during probe_ask)", "Who are you?", "Your name *", "Red", "Green"} {
		if !strings.Contains(shown, want) {
			t.Errorf("the form shows %q, without %q", shown, want)
		}
	}
	values, err := chromedp.Run(ctx, chromedp.Evaluate[[]any](`[document.querySelector("form.question input[name=name]").value,
		document.querySelector("form.question input[name=age]").value, document.querySelector("form.question select").value,
		document.querySelector("form.question input[name=verified]").checked, document.activeElement.name]`))
	if err != nil || len(values) != 5 || values[0] != "John Doe" || values[1] != "30" || values[2] != "g" || values[3] != true || values[4] != "name" {
		t.Errorf("the form's inputs hold %v (%v), not the defaults with the focus on the first", values, err)
	}
	stage(t, ctx, "the form is answered",
		chromedp.SetValue(chromedp.CSS("form.question input[name=name]"), "Ann"),
		chromedp.Click(chromedp.CSS("form.question input[value=b]")),
		chromedp.Click(chromedp.CSS("form.question button[type=submit]")),
		chromedp.WaitNotPresent(chromedp.CSS("form.question")),
		chromedp.WaitVisible(chromedp.Search(`//li[@data-role="tool"]/pre[contains(., "got {")]`)))
	got := strings.Join(texts(t, ctx, `li[data-role="tool"] pre`), "\n")
	if !strings.Contains(got, `got {"action":"accept","content":{"age":30,"colour":"g","name":"Ann","tags":["b"],"verified":true}}`) {
		t.Errorf("the server got %s", got)
	}

	stage(t, ctx, "a long call runs",
		chromedp.SendKeys(chromedp.ID("prompt"), `/tool probe_slow {}`),
		chromedp.Click(chromedp.ID("send")),
		chromedp.WaitVisible(chromedp.Search(`//div[@class="toolcall"]/p[contains(@class, "progress") and contains(., "1 of 3") and contains(., "step one")]`)))
	close(release)
	stage(t, ctx, "the call ends",
		chromedp.WaitVisible(chromedp.Search(`//li[@data-role="tool"]/pre[contains(., "slow done")]`)),
		chromedp.WaitNotPresent(chromedp.CSS(".toolcall .progress")))
	time.Sleep(100 * time.Millisecond)
	if p := console.problems(); len(p) > 0 {
		t.Errorf("the console: %v", p)
	}
}
