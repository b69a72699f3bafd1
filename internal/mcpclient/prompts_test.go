package mcpclient

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/logtest"
	"github.com/podcode/podcode/internal/tool"
)

// The example server's prompts are slash commands mcp__everything__<name>,
// with their arguments as declared; getting one with its arguments gives
// the text its messages make, an embedded resource by its text.
func TestEverythingServerPrompts(t *testing.T) {
	set, _, _ := start(t, everything(t))
	hub := set.opts.Hub
	st := set.Servers()[0].Status()
	for _, cmd := range []string{"mcp__everything__simple-prompt", "mcp__everything__args-prompt", "mcp__everything__resource-prompt"} {
		if !slices.Contains(st.Prompts, cmd) {
			t.Fatalf("prompt %s missing from %v", cmd, st.Prompts)
		}
	}
	srv, p, err := hub.Prompt("mcp__everything__args-prompt")
	if err != nil {
		t.Fatal(err)
	}
	if p.Name != "args-prompt" || p.ArgumentHint() != "<city> [state]" || p.Description == "" {
		t.Fatalf("args-prompt: %+v (hint %q)", p, p.ArgumentHint())
	}
	values, _, err := p.Bind(`Lyon "Auvergne Rhône-Alpes"`)
	if err != nil {
		t.Fatal(err)
	}
	text, err := srv.GetPrompt(context.Background(), p, values)
	if err != nil || text != "What's weather in Lyon, Auvergne Rhône-Alpes?" {
		t.Fatalf("args-prompt: %q %v", text, err)
	}
	if _, _, err := p.Bind(""); err == nil || !strings.Contains(err.Error(), `"city"`) {
		t.Fatalf("a missing required argument: %v", err)
	}
	srv, p, err = hub.Prompt("mcp__everything__resource-prompt")
	if err != nil {
		t.Fatal(err)
	}
	values, _, _ = p.Bind("Text 3")
	text, err = srv.GetPrompt(context.Background(), p, values)
	if err != nil || !strings.Contains(text, "Please analyze the following resource:") || !strings.Contains(text, "Resource 3: This is a plaintext resource") {
		t.Fatalf("resource-prompt: %q %v", text, err)
	}
	values, _, _ = p.Bind("Blob 2")
	if text, err = srv.GetPrompt(context.Background(), p, values); err != nil || !strings.Contains(text, "[resource <demo://resource/dynamic/blob/2>: ") {
		t.Fatalf("resource-prompt with a blob: %q %v", text, err)
	}
	// The server's error is the error.
	values, _, _ = p.Bind("Nothing 1")
	if _, err = srv.GetPrompt(context.Background(), p, values); err == nil || !strings.Contains(err.Error(), "Invalid resourceType") {
		t.Fatalf("a refused prompt: %v", err)
	}
	if _, _, err := hub.Prompt("mcp__everything__no-such-prompt"); err == nil || !strings.Contains(err.Error(), ErrNoPrompt.Error()) {
		t.Fatalf("an unknown prompt: %v", err)
	}
}

// The words typed after a prompt's command are its arguments, in order,
// the last taking the rest of the line; quotes group words.
func TestPromptBind(t *testing.T) {
	p := Prompt{Command: "mcp__s__p", Arguments: []PromptArgument{{Name: "a", Required: true}, {Name: "b"}, {Name: "c"}}}
	for _, c := range []struct {
		in   string
		want map[string]string
	}{
		{"x", map[string]string{"a": "x"}},
		{"x y", map[string]string{"a": "x", "b": "y"}},
		{`"x y" z`, map[string]string{"a": "x y", "b": "z"}},
		{"x y z", map[string]string{"a": "x", "b": "y", "c": "z"}},
		{`x y "z w"`, map[string]string{"a": "x", "b": "y", "c": "z w"}},
		{"x y z  and   the rest", map[string]string{"a": "x", "b": "y", "c": "z  and   the rest"}},
		{"  x\ty\nz more ", map[string]string{"a": "x", "b": "y", "c": "z more"}},
		{`'' y`, map[string]string{"a": "", "b": "y"}},
	} {
		got, extra, err := p.Bind(c.in)
		if err != nil || extra != "" || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Bind(%q) = %v %q %v, want %v", c.in, got, extra, err, c.want)
		}
	}
	if _, _, err := p.Bind("  "); err == nil || !strings.Contains(err.Error(), `/mcp__s__p needs its argument "a" (<a> [b] [c])`) {
		t.Errorf("missing: %v", err)
	}
	none := Prompt{Command: "mcp__s__q"}
	if got, extra, err := none.Bind(" some words "); got != nil || extra != "some words" || err != nil {
		t.Errorf("a prompt of no arguments: %v %q %v", got, extra, err)
	}
}

// sdkServer serves srv over streamable HTTP on loopback, and returns a
// Spec of it.
func sdkServer(t *testing.T, name string, srv *sdk.Server) Spec {
	spec, _ := sdkServerHTTP(t, name, srv)
	return spec
}

func sdkServerHTTP(t *testing.T, name string, srv *sdk.Server) (Spec, *httptest.Server) {
	t.Helper()
	h := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil))
	t.Cleanup(h.Close)
	return Spec{Name: name, Transport: HTTP, URL: h.URL}, h
}

func textPrompt(text string) sdk.PromptHandler {
	return func(context.Context, *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: text}}}}, nil
	}
}

// A server's prompts and resources are listed page by page, at most
// maxPrompts and maxResources of them; notifications/prompts/list_changed
// and notifications/resources/list_changed list them again.
func TestPromptsAndResourcesListedAgain(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "lists", Version: "1"}, &sdk.ServerOptions{PageSize: 100})
	for i := range maxPrompts + 20 {
		srv.AddPrompt(&sdk.Prompt{Name: fmt.Sprintf("p%03d", i)}, textPrompt("x"))
	}
	for i := range maxResources + 5 {
		uri := fmt.Sprintf("mem://r/%04d", i)
		srv.AddResource(&sdk.Resource{URI: uri, Name: "r"}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, Text: "content of " + uri}}}, nil
		})
	}
	set, _, logs := start(t, sdkServer(t, "lists", srv))
	st := set.Servers()[0].Status()
	if st.State != StateReady || len(st.Prompts) != maxPrompts || len(st.Resources) != maxResources {
		t.Fatalf("%s: %d prompts, %d resources", st.State, len(st.Prompts), len(st.Resources))
	}
	for _, want := range []string{"more prompts than Podcode takes", "more resources than Podcode takes"} {
		if _, ok := logs.Find(want); !ok {
			t.Errorf("no warning %q: %q", want, logs.Lines())
		}
	}
	srv.RemovePrompts("p000")
	srv.AddPrompt(&sdk.Prompt{Name: "zz late"}, textPrompt("late"))
	eventually(t, "the prompts listed again", func() bool {
		ps := set.Servers()[0].Status().Prompts
		return !slices.Contains(ps, "mcp__lists__p000") && slices.Contains(ps, "mcp__lists__p001")
	})
	srv.RemoveResources("mem://r/0000")
	srv.AddResourceTemplate(&sdk.ResourceTemplate{URITemplate: "mem://t/{id}", Name: "t"}, func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return nil, fmt.Errorf("no")
	})
	eventually(t, "the resources listed again", func() bool {
		st := set.Servers()[0].Status()
		return !slices.Contains(st.Resources, "mem://r/0000") && slices.Contains(st.ResourceTemplates, "mem://t/{id}")
	})
}

// A prompt's command is sanitized as a tool's name; a prompt of too many
// arguments is left out; one of a server that is not running (its
// endpoint gone) is not listed, and using it says the server is not
// running, whether or not it was listed.
func TestPromptOfAServerNotRunning(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "gone", Version: "1"}, nil)
	srv.AddPrompt(&sdk.Prompt{Name: "hello world", Description: "says hello"}, textPrompt("hello"))
	var many []*sdk.PromptArgument
	for i := range maxArguments + 1 {
		many = append(many, &sdk.PromptArgument{Name: fmt.Sprint("a", i)})
	}
	srv.AddPrompt(&sdk.Prompt{Name: "many", Arguments: many}, textPrompt("many"))
	spec, h := sdkServerHTTP(t, "gone", srv)
	spec.Timeout = time.Second
	set, _, logs := start(t, spec)
	hub := set.opts.Hub
	if ps := hub.Prompts(); len(ps) != 1 || ps[0].Command != "mcp__gone__hello_world" || ps[0].Description != "says hello" {
		t.Fatalf("prompts: %+v", ps)
	}
	if _, ok := logs.Find("more arguments, or longer names, than Podcode takes"); !ok {
		t.Errorf("the prompt of too many arguments was not named: %q", logs.Lines())
	}
	h.CloseClientConnections()
	h.Close()
	eventually(t, "the server is down", func() bool { return set.Servers()[0].Status().State == StateRetrying })
	if ps := hub.Prompts(); len(ps) != 0 {
		t.Fatalf("a server not running lists %+v", ps)
	}
	for _, cmd := range []string{"mcp__gone__hello_world", "mcp__gone__never_listed"} {
		if _, _, err := hub.Prompt(cmd); err == nil || !strings.Contains(err.Error(), `/`+cmd+`: MCP server "gone" is not running (retrying: `) {
			t.Errorf("%s: %v", cmd, err)
		}
	}
}

// A server that does not answer prompts/list still starts, with its
// tools; the failure is a warning.
func TestBrokenPromptListIsAWarning(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "broken", Version: "1"}, &sdk.ServerOptions{Capabilities: &sdk.ServerCapabilities{Prompts: &sdk.PromptCapabilities{}, Tools: &sdk.ToolCapabilities{}}})
	srv.AddTool(&sdk.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
	})
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "prompts/list" {
				return nil, fmt.Errorf("prompts are broken")
			}
			return next(ctx, method, req)
		}
	})
	rec := &logtest.Logs{}
	reg := tool.NewRegistry(rec.Logger())
	set := Start(context.Background(), []Spec{sdkServer(t, "broken", srv)}, Options{Cwd: t.TempDir(), Log: rec.Logger(), Tools: reg, StartTimeout: 20 * time.Second})
	t.Cleanup(set.Close)
	if st := set.Servers()[0].Status(); st.State != StateReady || !slices.Contains(st.Tools, "broken_t") || len(st.Prompts) != 0 {
		t.Fatalf("%+v", st)
	}
	rec.Await(t, "mcp: listing the server's prompts failed", "prompts are broken", "mcp_server=broken")
}

// A server whose prompts/list never answers still starts, with its tools:
// what it offers besides them is listed after the start, bounded on its
// own (a list that counted against the start bound failed the start, and
// every restart after it).
func TestHangingPromptListDoesNotFailTheStart(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "1"}, &sdk.ServerOptions{Capabilities: &sdk.ServerCapabilities{Prompts: &sdk.PromptCapabilities{}, Tools: &sdk.ToolCapabilities{}}})
	srv.AddTool(&sdk.Tool{Name: "t", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
	})
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "prompts/list" {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return next(ctx, method, req)
		}
	})
	rec := &logtest.Logs{}
	reg := tool.NewRegistry(rec.Logger())
	set := Start(context.Background(), []Spec{sdkServer(t, "slow", srv)}, Options{Cwd: t.TempDir(), Log: rec.Logger(), Tools: reg, StartTimeout: 3 * time.Second})
	t.Cleanup(set.Close)
	rec.Await(t, "mcp: listing the server's prompts failed", "mcp_server=slow")
	if st := set.Servers()[0].Status(); st.State != StateReady || !slices.Contains(st.Tools, "slow_t") {
		t.Fatalf("%+v", st)
	}
}

// What the messages of a prompt make: text as it is, the assistant's
// marked, an image described; cut past maxPromptBytes.
func TestRenderPrompt(t *testing.T) {
	got := RenderPrompt(&sdk.GetPromptResult{Messages: []*sdk.PromptMessage{
		{Role: "user", Content: &sdk.TextContent{Text: "question"}},
		{Role: "assistant", Content: &sdk.TextContent{Text: "answer"}},
		nil,
		{Role: "user", Content: &sdk.ImageContent{MIMEType: "image/png", Data: []byte("1234")}},
	}})
	if want := "question\n\nAssistant: answer\n\n[image: image/png, 4 bytes]"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	var msgs []*sdk.PromptMessage
	for range 10 {
		msgs = append(msgs, &sdk.PromptMessage{Role: "user", Content: &sdk.TextContent{Text: strings.Repeat("é", 20_000)}})
	}
	got = RenderPrompt(&sdk.GetPromptResult{Messages: msgs})
	if len(got) > maxPromptBytes+100 || !strings.HasSuffix(got, fmt.Sprintf("[cut at %d bytes]", maxPromptBytes)) || !utf8Valid(got) {
		t.Errorf("a long prompt: %d bytes, ends %q", len(got), got[len(got)-40:])
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

// The arguments of whatever is typed: never a panic, values only for
// declared arguments, and the last one's value is what was typed.
func FuzzPromptBind(f *testing.F) {
	for _, s := range []string{"a b c", `"a b" c 'd e'`, `"unclosed`, "x\t\ny", "", `''`, "é 'ü x'"} {
		f.Add(s)
	}
	p := Prompt{Command: "mcp__s__p", Arguments: []PromptArgument{{Name: "a"}, {Name: "b"}}}
	f.Fuzz(func(t *testing.T, in string) {
		values, _, err := p.Bind(in)
		if err != nil {
			t.Fatal(err) // no argument is required
		}
		for k := range values {
			if k != "a" && k != "b" {
				t.Fatalf("value for %q", k)
			}
		}
		if b, ok := values["b"]; ok && !strings.Contains(in, strings.TrimSpace(b)) && !strings.ContainsAny(in, `"'`) {
			t.Fatalf("b = %q is not what was typed in %q", b, in)
		}
	})
}
