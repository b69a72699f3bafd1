package web_test

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/apptest"
	"github.com/podcode/podcode/internal/server"
	"github.com/podcode/podcode/internal/store"
)

// -screenshot writes the timeline's screenshot to docs/web-timeline.png
// (checked by eye in review); without it the screenshot goes to a
// temporary directory.
var screenshot = flag.Bool("screenshot", false, "write the page's screenshot to docs/web-timeline.png")

const testToken = "web-test-token"

// events watches the page's requests for /events: the Last-Event-ID of
// each, and a gate that holds new ones while it is set.
type events struct {
	mu   sync.Mutex
	ids  []string
	hold chan struct{}
}

func (e *events) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/events" {
			if r.URL.RawQuery != "" {
				http.Error(w, "a query on /events: "+r.URL.RawQuery, http.StatusBadRequest)
				return
			}
			e.mu.Lock()
			e.ids = append(e.ids, r.Header.Get("Last-Event-ID"))
			hold := e.hold
			e.mu.Unlock()
			if hold != nil {
				select {
				case <-hold:
				case <-r.Context().Done():
					return
				}
			}
		}
		next.ServeHTTP(w, r)
	})
}

// serve starts the real API server on loopback, with the server's token,
// for a project with two JS plugins around every tool call and a
// permission rule that asks before bash.
func serve(t *testing.T, ev *events) *httptest.Server {
	t.Helper()
	p := apptest.Project{
		Files: map[string]string{
			"before.js": `export default { id: "audit", server: () => ({
				"tool.execute.before": (i) => { if (i.toolID === "bash") return { ...i, args: { ...i.args, command: i.args.command + " there" } } },
			}) }`,
			"after.js": `export default { id: "stamp", server: () => ({
				"tool.execute.after": (i) => ({ ...i, result: { ...i.result, output: i.result.output + "[stamped]" } }),
			}) }`,
		},
		Plugins: []string{"./before.js", "./after.js"},
		Config:  map[string]any{"permission": map[string]any{"bash": "ask", "*": "allow"}},
	}
	return serveProject(t, ev, p)
}

// serveProject starts the real API server on loopback, with the server's
// token, for the project p.
func serveProject(t *testing.T, ev *events, p apptest.Project) *httptest.Server {
	t.Helper()
	a, _ := apptest.Boot(t, p)
	st, err := store.Open(context.Background(), filepath.Join(a.DataDir, store.File))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	srv := httptest.NewServer(ev.wrap(server.New(agent.New(a, st), testToken).Handler()))
	t.Cleanup(srv.Close)
	return srv
}

// browser starts headless Chromium; a machine without it fails the test,
// naming what to install.
func browser(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium is not installed (Debian: apt-get install -y chromium); the web page's tests need a real browser")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelC(); cancelA() })
	// The first action starts the browser: no timeout on its context,
	// which would end the browser with it.
	if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting chromium (%s): %v", path, err)
	}
	return ctx
}

type step struct {
	Hook     string `json:"hook"`
	Source   string `json:"source"`
	Outcome  string `json:"outcome"`
	Duration string `json:"duration"`
}

// A person opens the page, gives the token, creates a session, sends a
// prompt whose bash call runs through two plugins and a guard that asks,
// answers the question in the page, and reads the answer and the tool
// call's timeline.
func TestPageRunsATurnAndShowsItsTimeline(t *testing.T) {
	ev := &events{}
	srv := serve(t, ev)
	ctx := browser(t)
	console := watchConsole(ctx)

	// run runs one stage of the scenario, bounded: a page that never
	// shows what it should fails the test with what it shows instead.
	run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
			t.Fatalf("%s: %v\nthe page shows:\n%s", what, err, body)
		}
	}
	value := func(what string, a chromedp.Action[string]) string {
		t.Helper()
		v, err := chromedp.Run(ctx, a)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}

	run("the page asks for the token",
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.ID("token")))
	run("a wrong token is refused",
		chromedp.SendKeys(chromedp.ID("token"), "wrong"),
		chromedp.Click(chromedp.CSS("#token-form button")),
		chromedp.WaitVisible(chromedp.Search(`//p[@id="token-error" and contains(., "refused")]`)))
	run("the token opens the page",
		chromedp.SendKeys(chromedp.ID("token"), testToken),
		chromedp.Click(chromedp.CSS("#token-form button")),
		chromedp.WaitVisible(chromedp.ID("new-session")),
		chromedp.WaitVisible(chromedp.Search(`//p[@id="live" and text()="live"]`)))
	run("a new session opens",
		chromedp.SendKeys(chromedp.ID("new-title"), "echo through plugins"),
		chromedp.Click(chromedp.CSS("#new-session button")),
		chromedp.WaitVisible(chromedp.ID("view-session")),
		chromedp.WaitVisible(chromedp.Search(`//ul[@id="session-list"]//a[@aria-current="page" and contains(., "echo through plugins")]`)))
	run("the prompt is sent",
		chromedp.SendKeys(chromedp.ID("prompt"), `/tool bash {"command": "echo hi"}`),
		chromedp.Click(chromedp.ID("send")))
	run("the permission question is shown in the page",
		chromedp.WaitVisible(chromedp.CSS(".question button.allow")))
	asked := value("the question", chromedp.Text(chromedp.CSS(".question")))
	if !strings.Contains(asked, "Allow bash?") || !strings.Contains(asked, "echo hi") {
		t.Errorf("the question: %q", asked)
	}
	// The question takes the keyboard's focus: Enter answers it.
	if focused := value("the focus", chromedp.Evaluate[string](`document.activeElement.className + " " + document.activeElement.textContent`)); focused != "allow Allow" {
		t.Errorf("the focus is on %q, not on the question's Allow button", focused)
	}
	run("the question is answered",
		chromedp.KeyEvent("\r"),
		chromedp.WaitNotPresent(chromedp.CSS(".question")),
		// The tool's result, changed by both plugins, then the model's answer.
		chromedp.WaitVisible(chromedp.Search(`//li[@data-role="tool"]/pre[contains(., "hi there") and contains(., "[stamped]")]`)),
		chromedp.WaitVisible(chromedp.Search(`//li[@data-role="assistant"][last()]/p[contains(., "hi there")]`)),
		// The arguments as the model gave them, and as the tool ran them
		// after the plugin changed them, both shown and marked.
		chromedp.WaitVisible(chromedp.Search(`//li[@data-role="assistant"]//pre[@aria-label="arguments of bash" and contains(., '"echo hi"')]`)),
		chromedp.WaitVisible(chromedp.Search(`//li[@data-role="tool"]/div[contains(@class, "rewritten")][contains(., "ran with the arguments audit changed them to")]/pre[contains(., '"echo hi there"')]`)),
		chromedp.WaitVisible(chromedp.Search(`//button[@id="send" and not(@disabled)]`)))

	run("the timeline shows the tool call",
		chromedp.WaitVisible(chromedp.Search(`//ol[@id="timeline"]/li[contains(@class, "tool")]//li[contains(@class, "step")]`)))
	steps, err := chromedp.Run(ctx, chromedp.Evaluate[[]step](`[...document.querySelectorAll('#timeline li.call.tool li.step')].map(li => ({
			hook: li.dataset.hook, source: li.dataset.source, outcome: li.dataset.outcome,
			duration: li.querySelector('.dur').textContent }))`))
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, s := range steps {
		order = append(order, s.Hook+" "+s.Source)
		if !strings.HasSuffix(s.Duration, "µs") && !strings.HasSuffix(s.Duration, "ms") && !strings.HasSuffix(s.Duration, " s") {
			t.Errorf("step %s %s: duration %q", s.Hook, s.Source, s.Duration)
		}
	}
	got := strings.Join(order, " | ")
	t.Logf("the tool call's steps: %s", got)
	for _, want := range []string{"tool.execute.before audit", "tool.execute.after stamp"} {
		if !strings.Contains(got, want) {
			t.Errorf("the timeline lacks %q: %s", want, got)
		}
	}
	if b, a := strings.Index(got, "tool.execute.before audit"), strings.Index(got, "tool.execute.after stamp"); b < 0 || a < b {
		t.Errorf("the steps are not in the order they ran: %s", got)
	}

	run("a step opens its details",
		chromedp.Click(chromedp.CSS(`#timeline li.call.tool li.step[data-hook="tool.execute.before"] > button`)),
		chromedp.WaitVisible(chromedp.CSS(`#timeline li.call.tool li.step[data-hook="tool.execute.before"] .detail`)))
	detail := value("the step's details", chromedp.Text(chromedp.CSS(`#timeline li.call.tool li.step[data-hook="tool.execute.before"] .detail`)))
	if !strings.Contains(detail, "audit") {
		t.Errorf("the step's details lack its plugin: %q", detail)
	}
	// A step's details show what that step received and returned, not the
	// whole call's: the before hook saw the model's command and returned
	// its rewrite, and never saw the after hook's stamp.
	io := func(hook string) []string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#timeline li.call.tool li.step[data-hook="`+hook+`"] .detail pre')].map(p => p.textContent)`))
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	if got := io("tool.execute.before"); len(got) != 2 || !strings.Contains(got[0], `"command": "echo hi"`) ||
		!strings.Contains(got[1], `"command": "echo hi there"`) || strings.Contains(strings.Join(got, ""), "[stamped]") {
		t.Errorf("the before step's input and output: %q", got)
	}
	run("the after step opens its details",
		chromedp.Click(chromedp.CSS(`#timeline li.call.tool li.step[data-hook="tool.execute.after"] > button`)),
		chromedp.WaitVisible(chromedp.CSS(`#timeline li.call.tool li.step[data-hook="tool.execute.after"] .detail`)))
	if got := io("tool.execute.after"); len(got) != 2 || !strings.Contains(got[0], "hi there") || strings.Contains(got[0], "[stamped]") ||
		!strings.Contains(got[1], "[stamped]") {
		t.Errorf("the after step's input and output: %q", got)
	}

	// A waterfall: each bar starts where its run started, so steps that ran
	// one after another do not start at the same offset, and the time
	// outside the hooks shows as gaps: PreToolUse, the question it asked,
	// tool.execute.before, the tool's run, tool.execute.after.
	type span struct{ Left, Width float64 }
	bars, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]span](`Object.fromEntries([...document.querySelectorAll('#timeline li.call.tool li.step')].reverse()
		.map(li => { const b = li.querySelector('.bar'); return [li.dataset.hook, { left: parseFloat(b.style.left), width: parseFloat(b.style.width) }]; }))`))
	if err != nil {
		t.Fatal(err)
	}
	pre, bef, aft := bars["PreToolUse"], bars["tool.execute.before"], bars["tool.execute.after"]
	const gap = 0.01 // % of the call: far above rounding, far below a question's wait or a command's run
	if !(bef.Left > pre.Left+pre.Width+gap && aft.Left > bef.Left+bef.Width+gap) {
		t.Errorf("the bars (%% of the call) are not a waterfall with the waits between them: %+v", bars)
	}

	if bad := console.problems(); len(bad) > 0 {
		t.Errorf("the page's console:\n%s", strings.Join(bad, "\n"))
	}

	// The screenshot shows the waterfall with the before step open: what
	// it received and what it returned.
	run("the after step closes",
		chromedp.Click(chromedp.CSS(`#timeline li.call.tool li.step[data-hook="tool.execute.after"] > button`)),
		chromedp.WaitNotVisible(chromedp.CSS(`#timeline li.call.tool li.step[data-hook="tool.execute.after"] .detail`)))
	png, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.ID("view-session")))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "web-timeline.png")
	if *screenshot {
		out = filepath.Join("..", "..", "docs", "web-timeline.png")
	}
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", out, len(png))

	// The stream breaks; an event is published while the page is away;
	// the page comes back with Last-Event-ID and receives it.
	ev.mu.Lock()
	ev.hold = make(chan struct{})
	before := len(ev.ids)
	ev.mu.Unlock()
	srv.CloseClientConnections()
	req, _ := http.NewRequest("POST", srv.URL+"/sessions", strings.NewReader(`{"title": "made elsewhere"}`))
	req.Header.Set("Authorization", "Bearer "+testToken)
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 201 {
		t.Fatalf("a session made by another client: %v %v", res, err)
	}
	res.Body.Close()
	ev.mu.Lock()
	close(ev.hold)
	ev.hold = nil
	ev.mu.Unlock()
	run("the page resumes the stream and shows what it missed",
		chromedp.WaitVisible(chromedp.Search(`//ul[@id="session-list"]//a[contains(., "made elsewhere")]`)))
	ev.mu.Lock()
	ids := append([]string(nil), ev.ids...)
	ev.mu.Unlock()
	if len(ids) <= before || ids[before] == "" {
		t.Errorf("the page reconnected without Last-Event-ID: %q (the first %d before the break)", ids, before)
	}
	for i, id := range ids[:before] {
		if i > 0 && id == "" {
			t.Errorf("a reconnect without Last-Event-ID: %q", ids)
		}
	}

	// On a phone's width nothing is wider than the screen.
	run("a phone's viewport", chromedp.EmulateViewport(390, 844), chromedp.WaitVisible(chromedp.ID("timeline")))
	if wide := value("overflow", chromedp.Evaluate[string](`[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > innerWidth + 1).map(e => e.tagName + '#' + e.id + '.' + e.className).slice(0, 5).join(', ')`)); wide != "" {
		t.Errorf("wider than a phone's screen: %s", wide)
	}
}

// stage runs one stage of a scenario, bounded: a page that never shows
// what it should fails the test with what it shows instead.
func stage(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(sctx, actions...); err != nil {
		body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
		t.Fatalf("%s: %v\nthe page shows:\n%s", what, err, body)
	}
}

// signIn opens the page at url and gives it the token, until its event
// stream is live.
func signIn(url string) []chromedp.Action[chromedp.Void] {
	return []chromedp.Action[chromedp.Void]{
		chromedp.Navigate(url + "/"),
		chromedp.WaitVisible(chromedp.ID("token")),
		chromedp.SendKeys(chromedp.ID("token"), testToken),
		chromedp.Click(chromedp.CSS("#token-form button")),
		chromedp.WaitVisible(chromedp.Search(`//p[@id="live" and text()="live"]`)),
	}
}

// texts is the text of every element selector matches, in order.
func texts(t *testing.T, ctx context.Context, selector string) []string {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll(`+strconv.Quote(selector)+`)].map(e => e.textContent)`))
	if err != nil {
		t.Fatalf("%s: %v", selector, err)
	}
	return v
}

// A person runs two turns of a model whose prices the user's config gives
// and reads what each turn, each model call and the session cost: the
// tokens in, those the prompt cache served, the tokens out and the price,
// live and again from the history after a reload.
//
// covers issue 20: cost visible on the web page
func TestPageShowsWhatTurnsCost(t *testing.T) {
	// The recorded answers: turn 1 is one model call; turn 2 is a call
	// that reads a file (after asking), then the answer.
	type use struct{ in, out, cacheRead, cacheWrite int64 }
	calls := []use{{12345, 678, 10000, 0}, {5000, 200, 4000, 700}, {6000, 321, 0, 1000}}
	replay := filepath.Join(t.TempDir(), "turns.jsonl")
	recording := fmt.Sprintf(`{"text": "first answer", "usage": {"input": %d, "output": %d, "cacheRead": %d}}
{"toolCalls": [{"tool": "read", "args": {"path": "notes.txt"}}], "usage": {"input": %d, "output": %d, "cacheRead": %d, "cacheWrite": %d}}
{"text": "second answer", "usage": {"input": %d, "output": %d, "cacheWrite": %d}}
`, calls[0].in, calls[0].out, calls[0].cacheRead, calls[1].in, calls[1].out, calls[1].cacheRead, calls[1].cacheWrite,
		calls[2].in, calls[2].out, calls[2].cacheWrite)
	if err := os.WriteFile(replay, []byte(recording), 0o644); err != nil {
		t.Fatal(err)
	}
	// The prices, in US dollars per million tokens, and what a call costs
	// at them: the input the cache neither served nor stored is fresh.
	const inPrice, outPrice, readPrice, writePrice = 3, 15, 0.3, 3.75
	cost := func(us ...use) float64 {
		c := 0.0
		for _, u := range us {
			fresh := u.in - u.cacheRead - u.cacheWrite
			c += (float64(fresh)*inPrice + float64(u.out)*outPrice + float64(u.cacheRead)*readPrice + float64(u.cacheWrite)*writePrice) / 1e6
		}
		return c
	}
	money := func(us ...use) string { return fmt.Sprintf("$%.4f", cost(us...)) }
	// The texts the page shows: 12,345 tokens in, 10,000 of them cached,
	// 678 out: (2,345×3 + 678×15 + 10,000×0.3)/1e6 = $0.020205; turn 2 is
	// 11,000 in (4,000 cached), 521 out; the session, 23,345 in (14,000
	// cached), 1,199 out.
	turn1 := "12.3k in · 10.0k cached · 678 out · " + money(calls[0])
	turn2 := "11.0k in · 4.0k cached · 521 out · " + money(calls[1:]...)
	total := "23.3k in · 14.0k cached · 1.2k out · " + money(calls...)
	if turn1 != "12.3k in · 10.0k cached · 678 out · $0.0202" || turn2 != "11.0k in · 4.0k cached · 521 out · $0.0313" ||
		total != "23.3k in · 14.0k cached · 1.2k out · $0.0515" {
		t.Fatalf("the test's arithmetic: %q, %q, %q", turn1, turn2, total)
	}
	perCall := []string{
		"offline/echo · " + turn1,
		"offline/echo · 5.0k in · 4.0k cached · 200 out · " + money(calls[1]),
		"offline/echo · 6.0k in · 321 out · " + money(calls[2]),
	}

	srv := serveProject(t, &events{}, apptest.Project{
		Files:  map[string]string{"notes.txt": "a note\n"},
		Config: map[string]any{"permission": map[string]any{"read": "ask", "*": "allow"}},
		User: map[string]any{"provider": map[string]any{"offline": map[string]any{
			"options": map[string]any{"replay": replay},
			"models": map[string]any{"echo": map[string]any{"cost": map[string]any{
				"input": inPrice, "output": outPrice, "cacheRead": readPrice, "cacheWrite": writePrice}}},
		}}},
	})
	ctx := browser(t)
	console := watchConsole(ctx)

	stage(t, ctx, "the token opens the page", signIn(srv.URL)...)
	stage(t, ctx, "a new session opens",
		chromedp.SendKeys(chromedp.ID("new-title"), "what it costs"),
		chromedp.Click(chromedp.CSS("#new-session button")),
		chromedp.WaitVisible(chromedp.Search(`//ul[@id="session-list"]//a[@aria-current="page" and contains(., "what it costs")]`)))
	if got := texts(t, ctx, "#session-usage:not([hidden])"); len(got) != 0 {
		t.Errorf("a session without model calls shows a total: %q", got)
	}

	stage(t, ctx, "the first turn runs",
		chromedp.SendKeys(chromedp.ID("prompt"), "first"),
		chromedp.Click(chromedp.ID("send")),
		chromedp.WaitVisible(chromedp.Search(`//li[@data-role="assistant"]/p[text()="first answer"]`)),
		chromedp.WaitVisible(chromedp.Search(`//button[@id="send" and not(@disabled)]`)),
		chromedp.WaitVisible(chromedp.CSS("#messages li.turn-usage")),
		chromedp.WaitVisible(chromedp.Search(`//p[@id="session-usage" and contains(., "678 out")]`)))
	if got := texts(t, ctx, "#messages li.turn-usage"); len(got) != 1 || got[0] != turn1 {
		t.Errorf("after the first turn, the chat shows %q, want [%q]", got, turn1)
	}
	if got := texts(t, ctx, "#session-usage"); len(got) != 1 || got[0] != "Session total: "+turn1 {
		t.Errorf("after the first turn, the session's header shows %q, want %q", got, "Session total: "+turn1)
	}

	// While the second turn waits for the read's permission, its line is
	// not shown yet: the first turn's is.
	stage(t, ctx, "the second turn asks before its read",
		chromedp.SendKeys(chromedp.ID("prompt"), "second"),
		chromedp.Click(chromedp.ID("send")),
		chromedp.WaitVisible(chromedp.CSS(".question button.allow")),
		chromedp.WaitVisible(chromedp.Search(`//li[@data-role="assistant"]/div[@class="toolcall"]`)))
	if got := texts(t, ctx, "#messages li.turn-usage"); len(got) != 1 || got[0] != turn1 {
		t.Errorf("while the second turn runs, the chat shows %q, want [%q]", got, turn1)
	}
	stage(t, ctx, "the second turn ends",
		chromedp.Click(chromedp.CSS(".question button.allow")),
		chromedp.WaitVisible(chromedp.Search(`//li[@data-role="tool"]/pre[contains(., "a note")]`)),
		chromedp.WaitVisible(chromedp.Search(`//li[@data-role="assistant"]/p[text()="second answer"]`)),
		chromedp.WaitVisible(chromedp.Search(`//button[@id="send" and not(@disabled)]`)),
		chromedp.WaitVisible(chromedp.Search(`(//ol[@id="messages"]/li[contains(@class, "turn-usage")])[2]`)),
		chromedp.WaitVisible(chromedp.Search(`//ul[@id="session-list"]//a[@aria-current="page"]/small[contains(., "1.2k out")]`)))
	check := func(when string) {
		t.Helper()
		if got := texts(t, ctx, "#messages li.turn-usage"); len(got) != 2 || got[0] != turn1 || got[1] != turn2 {
			t.Errorf("%s, the chat shows %q, want [%q %q]", when, got, turn1, turn2)
		}
		// Each line follows its turn's last message: the first turn's
		// answer, the second turn's answer.
		if got := texts(t, ctx, "#messages li.turn-usage"); len(got) == 2 {
			after := texts(t, ctx, "#messages li.msg:has(+ li.turn-usage) > p")
			if len(after) != 2 || after[0] != "first answer" || after[1] != "second answer" {
				t.Errorf("%s, the turns' lines follow %q", when, after)
			}
		}
		if got := texts(t, ctx, "#session-usage"); len(got) != 1 || got[0] != "Session total: "+total {
			t.Errorf("%s, the session's header shows %q, want %q", when, got, "Session total: "+total)
		}
		if got := texts(t, ctx, `#session-list a[aria-current="page"] small.usage`); len(got) != 1 || got[0] != total {
			t.Errorf("%s, the session's entry in the list shows %q, want %q", when, got, total)
		}
		if got := texts(t, ctx, "#timeline li.call.assistant p.usage"); strings.Join(got, "\n") != strings.Join(perCall, "\n") {
			t.Errorf("%s, the timeline's model calls show\n%s\nwant\n%s", when, strings.Join(got, "\n"), strings.Join(perCall, "\n"))
		}
	}
	check("after the second turn")

	// From the history: the page loads the session again and sums the
	// turns from the stored messages.
	stage(t, ctx, "the page is loaded again",
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.Search(`//li[@data-role="assistant"]/p[text()="second answer"]`)),
		chromedp.WaitVisible(chromedp.Search(`(//ol[@id="messages"]/li[contains(@class, "turn-usage")])[2]`)))
	check("from the history")

	// A lifecycle step's details around a model call give its model, its
	// usage and its cost.
	details, err := chromedp.Run(ctx, chromedp.Evaluate[map[string]string](`import('/ui/timeline.js').then(m => {
		const ol = document.createElement('ol');
		m.render(ol, [{id: 'msg_1', seq: 1, role: 'assistant', text: 'hi', status: 'complete', model: 'offline/echo',
			usage: {input: 12345, output: 678, cacheRead: 10000, cost: 0.020205},
			hooks: [{kind: 'lifecycle', hook: 'AgentStop', source: 'config:hooks', outcome: 'ok', durationUs: 3}]}]);
		return Object.fromEntries([...ol.querySelectorAll('.detail h5')].map(h => [h.textContent, h.nextElementSibling.textContent]));
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if details["Model"] != "offline/echo" || details["Cost (US dollars)"] != "$0.020205" || !strings.Contains(details["Usage (tokens)"], `"cacheRead": 10000`) {
		t.Errorf("a lifecycle step's details around a model call: %q", details)
	}

	if bad := console.problems(); len(bad) > 0 {
		t.Errorf("the page's console:\n%s", strings.Join(bad, "\n"))
	}
}

// The page's reader of Server-Sent Events, run in the browser.
func TestPageParsesEventFrames(t *testing.T) {
	srv := serve(t, &events{})
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`import('/ui/api.js').then(m => {
		const a = m.parseFrames(': hello\r\n\r\nid: 1-2\r\nevent: x\r\ndata: {"a":\r\ndata: 1}\r\n\r\nid: 1-3\nevent: y\ndata:{}\n\nid: 1-4\ndata: par');
		const b = m.parseFrames(a.rest + 'tial\n\n');
		return JSON.stringify([a.frames, a.rest, b.frames, b.rest]);
	})`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	want := `[[{"id":"1-2","type":"x","data":"{\"a\":\n1}"},{"id":"1-3","type":"y","data":"{}"}],"id: 1-4\ndata: par",[{"id":"1-4","type":"message","data":"partial"}],""]`
	if got != want {
		t.Errorf("frames:\n got %s\nwant %s", got, want)
	}
}

// The timeline places each run at its start; the runs of a later dispatch
// listed with a call (AgentStop after a model call), which count from
// their own start, come after the call's; runs stored without a start are
// drawn one after another.
func TestTimelinePlacesRunsAtTheirStart(t *testing.T) {
	srv := serve(t, &events{})
	ctx := browser(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/")); err != nil {
		t.Fatal(err)
	}
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`import('/ui/timeline.js').then(m => JSON.stringify([
		m.place([{hook: 'PreToolUse', startUs: 5, durationUs: 10}, {hook: 'tool.execute.before', startUs: 900, durationUs: 50}, {hook: 'tool.execute.after', startUs: 2000, durationUs: 30}]),
		m.place([{hook: 'chat.params', startUs: 0, durationUs: 40}, {hook: 'chat.params', startUs: 40, durationUs: 60}, {hook: 'AgentStop', startUs: 0, durationUs: 7}, {hook: 'AgentStop', startUs: 7, durationUs: 3}]),
		m.place([{hook: 'chat.params', durationUs: 40}, {hook: 'chat.params', durationUs: 60}]),
	]))`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if want := `[[5,900,2000],[0,40,100,107],[0,40]]`; got != want {
		t.Errorf("bars start at %s, want %s", got, want)
	}
}

// consoleLog keeps what the page writes to its console that a test must
// not accept: exceptions and Content-Security-Policy violations.
type consoleLog struct {
	mu  sync.Mutex
	bad []string
}

func watchConsole(ctx context.Context) *consoleLog {
	c := &consoleLog{}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.IsException() || strings.Contains(m.Text, "Content Security Policy") {
				c.mu.Lock()
				c.bad = append(c.bad, m.String())
				c.mu.Unlock()
			}
		}
	}()
	return c
}

func (c *consoleLog) problems() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.bad...)
}

// Typing "/" lists the slash commands; choosing one writes its name, and
// sending it runs the command.
func TestPageOffersSlashCommands(t *testing.T) {
	srv := serveProject(t, &events{}, apptest.Project{Files: map[string]string{
		".claude/commands/hello.md":   "---\ndescription: say hello\nargument-hint: <name>\n---\nHello $ARGUMENTS\n",
		".claude/commands/help-me.md": "Ask for help\n",
	}})
	ctx := browser(t)
	console := watchConsole(ctx)
	stage(t, ctx, "the token opens the page", signIn(srv.URL)...)
	stage(t, ctx, "a new session opens",
		chromedp.Click(chromedp.CSS("#new-session button")),
		chromedp.WaitVisible(chromedp.ID("view-session")))
	stage(t, ctx, "typing / lists the commands",
		chromedp.SendKeys(chromedp.ID("prompt"), "/"),
		chromedp.WaitVisible(chromedp.Search(`//ul[@id="commands"]//button[contains(., "/hello")]`)))
	if got := texts(t, ctx, "#commands li"); len(got) != 2 || got[0] != "/hello <name> say hello" || got[1] != "/help-me Ask for help" {
		t.Errorf("listed: %q", got)
	}
	stage(t, ctx, "typing narrows them",
		chromedp.SendKeys(chromedp.ID("prompt"), "hel"),
		chromedp.SendKeys(chromedp.ID("prompt"), "l"),
		chromedp.WaitNotPresent(chromedp.Search(`//ul[@id="commands"]//button[contains(., "/help-me")]`)))
	stage(t, ctx, "choosing one writes it, and sending runs it",
		chromedp.Click(chromedp.CSS("#commands button")),
		chromedp.WaitNotVisible(chromedp.ID("commands")),
		chromedp.SendKeys(chromedp.ID("prompt"), "web"),
		chromedp.Click(chromedp.ID("send")),
		chromedp.WaitVisible(chromedp.Search(`//li[@data-role="assistant"]/p[contains(., "You said: Hello web")]`)))
	if p := console.problems(); len(p) > 0 {
		t.Errorf("the console: %q", p)
	}
}
