// Package tui is the terminal chat: `podcode` with no arguments in a
// terminal. It is a client of the HTTP API (Client), of a server that
// runs in the same process or of a `podcode serve` elsewhere (--attach),
// so it runs the same agent loop as every other client: there is no
// second implementation of a turn here.
//
// Lifecycle, in order: Run opens (or resumes) a session, reads the slash
// commands and follows the event stream; each prompt is one POST of a
// message (async), and what the turn does arrives as events: the answer's
// text as it streams (message.delta), each stored message (message.stored:
// the answer, each tool call with the hooks that ran around it), each
// permission question (permission.asked, answered with y or n), the end of
// the turn (turn.finished). Finished messages are printed above the
// prompt, into the terminal's own scrollback; the live part (the answer
// streaming, the calls under way, a question, the prompt) is redrawn
// below. Esc cancels the turn; Ctrl+C leaves (a turn of an attached
// server goes on: the server owns its turns).
package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/podcode/podcode/internal/agent"
	"github.com/podcode/podcode/internal/bus"
	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/guard"
	"github.com/podcode/podcode/internal/safetext"
	"github.com/podcode/podcode/internal/server"
	"github.com/podcode/podcode/internal/store"
	"github.com/podcode/podcode/internal/tool"
)

// Options are what Run needs.
type Options struct {
	Client *Client
	// Session resumes this session; Continue resumes the newest; neither
	// opens a new one.
	Session  string
	Continue bool
	// Where: the terminal by default.
	In  io.Reader
	Out io.Writer
	// Title names the chat's new sessions; "" lets the first prompt name
	// each.
	Title string
}

// Run runs the chat until the person leaves it or ctx ends.
func Run(ctx context.Context, o Options) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	m := newModel(ctx, o)
	opts := []tea.ProgramOption{tea.WithContext(ctx)}
	if o.In != nil {
		opts = append(opts, tea.WithInput(o.In))
	}
	if o.Out != nil {
		opts = append(opts, tea.WithOutput(o.Out))
	}
	p := tea.NewProgram(m, opts...)
	go func() {
		err := o.Client.Follow(ctx, func(ev bus.Event) { p.Send(eventMsg(ev)) })
		if ctx.Err() == nil {
			p.Send(streamEnded{err})
		}
	}()
	final, err := p.Run()
	if err != nil && ctx.Err() == nil {
		return err
	}
	if fm, ok := final.(*model); ok && fm.fatal != nil {
		return fm.fatal
	}
	return nil
}

// The messages of the chat's own commands and of the event stream.
type (
	eventMsg    bus.Event
	streamEnded struct{ err error }
	sessionMsg  struct {
		s       store.Session
		history []chat.Message
		err     error
	}
	commandsMsg []server.Command
	listMsg     []store.Session
	doneMsg     struct{ err error } // a request whose answer is only its error
	printedMsg  struct{}
	sendFailed  struct{ err error } // the turn never started
	tickMsg     time.Time
)

type question struct {
	id, sessionID, tool, reason string
	args                        json.RawMessage
	shown                       time.Time
	// asks is a form question ("the MCP server <name> asks: <message>"),
	// answered y (its defaults, the args) or n (declined); "" otherwise.
	asks string
}

// answerDelay is how long a question is shown before y or n answers it.
const answerDelay = 300 * time.Millisecond

// builtins are the chat's own commands.
var builtins = []server.Command{
	{Name: "help", Description: "what the keys and commands do", Source: "chat"},
	{Name: "new", Description: "start a new session", Source: "chat"},
	{Name: "sessions", Description: "list the sessions to resume", Source: "chat"},
	{Name: "resume", Description: "resume a session: /resume <number from /sessions, or id>", ArgumentHint: "<n|id>", Source: "chat"},
	{Name: "quit", Description: "leave the chat", Source: "chat"},
}

type model struct {
	ctx   context.Context
	o     Options
	c     *Client
	fatal error

	session store.Session
	known   map[string]bool // the session and its sub-agents' sessions
	list    []store.Session // the last /sessions

	input    textarea.Model
	width    int
	md       markdown
	commands []server.Command

	running   bool
	started   time.Time
	streaming strings.Builder
	calls     []chat.ToolCall          // under way, in order
	progress  map[string]string        // a call under way's last progress (tool.call.progress), by call id
	byID      map[string]chat.ToolCall // every call of the session seen, for its result
	question  *question
	notice    string
	// While a session loads, the events that come are kept (early) and
	// taken once its history is shown, those of its messages the history
	// holds (seen) left out: none lost, none shown twice.
	loading  bool
	early    []bus.Event
	seen     map[string]bool
	cycle    []string // the commands Tab goes through, when it does
	cycled   int
	outbox   []string // printed in this order (emit)
	printing bool
}

// emit prints s above the live part, after what was emitted before:
// bubbletea runs each command on a goroutine of its own, so two prints
// of two updates could swap; one print at a time keeps their order.
func (m *model) emit(s string) tea.Cmd {
	m.outbox = append(m.outbox, s)
	return m.flush()
}

func (m *model) flush() tea.Cmd {
	if m.printing || len(m.outbox) == 0 {
		return nil
	}
	text := strings.Join(m.outbox, "\n")
	m.outbox, m.printing = nil, true
	return tea.Sequence(tea.Println(text), func() tea.Msg { return printedMsg{} })
}

func newModel(ctx context.Context, o Options) *model {
	in := textarea.New()
	in.Placeholder = "Ask, or / for a command"
	in.ShowLineNumbers = false
	in.Prompt = "› "
	in.SetHeight(1)
	in.MaxHeight = 8
	in.KeyMap.InsertNewline = key.NewBinding(key.WithKeys("ctrl+j", "alt+enter"))
	in.Focus()
	return &model{ctx: ctx, o: o, c: o.Client, input: in, width: 80, known: map[string]bool{}, byID: map[string]chat.ToolCall{}, progress: map[string]string{}}
}

func (m *model) Init() tea.Cmd {
	m.loading = true
	return tea.Batch(m.openSession(), m.loadCommands(), tick())
}

func tick() tea.Cmd {
	return tea.Tick(200*time.Millisecond, func(t time.Time) tea.Msg { return tickMsg(t) })
}

func (m *model) openSession() tea.Cmd {
	o, c, ctx := m.o, m.c, m.ctx
	return func() tea.Msg {
		id := o.Session
		if id == "" && o.Continue {
			list, err := c.Sessions(ctx)
			if err != nil {
				return sessionMsg{err: err}
			}
			for _, s := range list {
				if s.ParentID == "" {
					id = s.ID
					break
				}
			}
		}
		return loadSession(ctx, c, id, o.Title)
	}
}

// loadSession opens session id with its history, or a new one for "".
func loadSession(ctx context.Context, c *Client, id, title string) sessionMsg {
	if id == "" {
		s, err := c.NewSession(ctx, title)
		return sessionMsg{s: s, err: err}
	}
	s, err := c.Session(ctx, id)
	if err != nil {
		return sessionMsg{err: fmt.Errorf("session %s: %w", id, err)}
	}
	h, err := c.Messages(ctx, id)
	return sessionMsg{s: s, history: h, err: err}
}

func (m *model) loadCommands() tea.Cmd {
	c, ctx := m.c, m.ctx
	return func() tea.Msg {
		list, err := c.Commands(ctx)
		if err != nil {
			return doneMsg{err}
		}
		return commandsMsg(list)
	}
}

func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width = msg.Width
		m.input.SetWidth(max(msg.Width-2, 10))
		return m, nil
	case tickMsg:
		return m, tick()
	case printedMsg:
		m.printing = false
		return m, m.flush()
	case sessionMsg:
		return m, m.opened(msg)
	case commandsMsg:
		m.commands = msg
		return m, nil
	case listMsg:
		m.list = msg
		return m, m.emit(sessionList(msg, m.session.ID))
	case doneMsg:
		if msg.err != nil {
			m.notice = red.Render(safetext.Line(msg.err.Error()))
		}
		return m, nil
	case sendFailed:
		m.running = false
		m.notice = red.Render(safetext.Line(msg.err.Error()))
		return m, nil
	case tea.PasteMsg:
		if m.question != nil {
			return m, nil // the prompt waits for the answer
		}
	case streamEnded:
		m.fatal = fmt.Errorf("the event stream ended: %v", msg.err)
		return m, tea.Quit
	case eventMsg:
		if m.loading {
			m.early = append(m.early, bus.Event(msg))
			return m, nil
		}
		return m, m.event(bus.Event(msg))
	case tea.KeyPressMsg:
		return m.key(msg)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return m, cmd
}

// opened shows a session opened or resumed, with its history, then the
// events that came meanwhile.
func (m *model) opened(msg sessionMsg) tea.Cmd {
	early := m.early
	m.loading, m.early = false, nil
	if msg.err != nil {
		if m.session.ID == "" { // nothing to chat in
			m.fatal = msg.err
			return tea.Quit
		}
		m.notice = red.Render(safetext.Line(msg.err.Error()))
		return nil
	}
	m.session, m.known = msg.s, map[string]bool{msg.s.ID: true}
	m.calls, m.byID, m.question, m.running = nil, map[string]chat.ToolCall{}, nil, msg.s.Status == store.SessionRunning
	m.progress = map[string]string{}
	m.started = time.Now() // of a turn already running: since it was seen
	m.seen = map[string]bool{}
	for _, h := range msg.history {
		m.seen[h.ID] = true
	}
	m.streaming.Reset()
	var b strings.Builder
	title := m.session.Title
	if title == "" {
		title = "new session"
	}
	fmt.Fprintf(&b, "%s %s %s", bold.Render("podcode"), dim.Render("·"), safetext.Line(title))
	b.WriteString(dim.Render(safetext.Line(fmt.Sprintf(" · %s · %s", m.session.ID, m.session.Model))))
	if len(msg.history) > 0 {
		b.WriteString(dim.Render(fmt.Sprintf("\nresumed: %d messages", len(msg.history))))
	}
	lines := []string{b.String()}
	for _, msg := range msg.history {
		if s := m.print(msg, true); s != "" {
			lines = append(lines, s)
		}
	}
	cmds := []tea.Cmd{m.emit(strings.Join(lines, "\n"))}
	for _, ev := range early {
		cmds = append(cmds, m.event(ev))
	}
	return tea.Batch(cmds...)
}

// print is a stored message as the chat shows it, "" for nothing. A user
// message is printed when it is sent; from the history (or another
// client's), here.
func (m *model) print(msg chat.Message, history bool) string {
	switch msg.Role {
	case chat.RoleUser:
		s := ""
		if history {
			s = userLine(strings.TrimSpace(msg.Text))
		}
		if lines := hookLines(msg.Hooks, m.width); len(lines) > 0 {
			if s != "" {
				s += "\n"
			}
			s += strings.Join(lines, "\n")
		}
		return s
	case chat.RoleAssistant:
		for _, c := range msg.ToolCalls {
			m.byID[c.ID] = c
		}
		var parts []string
		if strings.TrimSpace(msg.Text) != "" {
			parts = append(parts, m.md.render(msg.Text, m.width))
		}
		if len(msg.Hooks) > 0 {
			parts = append(parts, dim.Render("  model call "+safetext.Line(msg.Model))+"\n"+strings.Join(hookLines(msg.Hooks, m.width), "\n"))
		}
		if msg.Status == chat.StatusError || msg.Status == chat.StatusInterrupted {
			parts = append(parts, red.Render(safetext.Line(fmt.Sprintf("✗ %s: %s", msg.Status, msg.Error))))
		}
		return strings.Join(parts, "\n")
	case chat.RoleTool:
		if msg.Result == nil {
			return ""
		}
		c, ok := m.byID[msg.Result.CallID]
		if !ok {
			c = chat.ToolCall{ID: msg.Result.CallID, Tool: msg.Result.Tool}
		}
		return toolBlock(c, msg.Result, msg.Hooks, m.width)
	case chat.RoleSummary:
		return dim.Render("… earlier messages summarized")
	}
	return ""
}

// event takes one event of the stream: those of the session (and its
// sub-agents' questions) change the chat; the rest are someone else's.
func (m *model) event(ev bus.Event) tea.Cmd {
	sid, _ := ev.Properties["sessionID"].(string)
	switch ev.Type {
	case agent.EventSessionCreated:
		if s, ok := ev.Properties["session"].(map[string]any); ok {
			if parent, _ := s["parentID"].(string); m.known[parent] {
				id, _ := s["id"].(string)
				m.known[id] = true
			}
		}
		return nil
	case server.EventMissed:
		// The stream lost events: the session is read again.
		m.loading = true
		c, ctx, id := m.c, m.ctx, m.session.ID
		return tea.Batch(m.emit(dim.Render("(events were missed; the session is read again)")),
			func() tea.Msg { return loadSession(ctx, c, id, "") })
	case server.EventPermissionAsked:
		q, _ := ev.Properties["question"].(map[string]any)
		if q == nil {
			return nil
		}
		qs, _ := q["sessionID"].(string)
		if !m.known[qs] {
			return nil
		}
		m.question = &question{sessionID: qs, shown: time.Now()}
		m.question.id, _ = q["id"].(string)
		m.question.tool, _ = q["tool"].(string)
		m.question.reason, _ = q["reason"].(string)
		m.question.args, _ = json.Marshal(q["args"])
		var f struct{ Form *guard.Form }
		raw, _ := json.Marshal(q)
		if json.Unmarshal(raw, &f) == nil && f.Form != nil {
			m.question.asks = f.Form.Asks(300)
		}
		return nil
	}
	if sid != m.session.ID {
		return nil
	}
	switch ev.Type {
	case agent.EventTurnStarted:
		m.running, m.started = true, time.Now()
	case agent.EventTextDelta:
		t, _ := ev.Properties["text"].(string)
		m.streaming.WriteString(t)
	case agent.EventMessageStored:
		var msg chat.Message
		raw, _ := json.Marshal(ev.Properties["message"])
		if json.Unmarshal(raw, &msg) != nil || m.seen[msg.ID] {
			return nil
		}
		if msg.Role == chat.RoleAssistant {
			m.streaming.Reset()
			m.calls = append(m.calls, msg.ToolCalls...)
		}
		if msg.Role == chat.RoleTool && msg.Result != nil {
			m.calls = slices.DeleteFunc(m.calls, func(c chat.ToolCall) bool { return c.ID == msg.Result.CallID })
			delete(m.progress, msg.Result.CallID)
		}
		if s := m.print(msg, false); s != "" {
			return m.emit(s)
		}
	case bus.ToolCallProgress:
		// Shown on the call while it runs; what comes after its result
		// (or of a call not shown) is dropped.
		id, _ := ev.Properties["callID"].(string)
		var p tool.Progress
		raw, _ := json.Marshal(ev.Properties)
		if slices.ContainsFunc(m.calls, func(c chat.ToolCall) bool { return c.ID == id }) && json.Unmarshal(raw, &p) == nil {
			m.progress[id] = p.String()
		}
	case agent.EventTurnFinished, agent.EventTurnRefused:
		m.running, m.calls, m.question, m.notice = false, nil, nil, ""
		clear(m.progress)
		m.streaming.Reset()
		status, _ := ev.Properties["status"].(string)
		errText, _ := ev.Properties["error"].(string)
		var u chat.Usage
		raw, _ := json.Marshal(ev.Properties["usage"])
		json.Unmarshal(raw, &u)
		text := status
		if l := u.Line(); l != "" {
			text += " · " + l
		}
		line := dim.Render("· " + text)
		switch {
		case ev.Type == agent.EventTurnRefused:
			line = red.Render("✗ refused: " + safetext.Line(errText))
		case status != "complete":
			line = red.Render(safetext.Line(fmt.Sprintf("✗ turn %s: %s", status, errText)))
		}
		// The commands again: an MCP server's prompts come and go with it.
		return tea.Batch(m.emit(line), m.loadCommands())
	}
	return nil
}

// key handles a key: a question's answer, Esc, Tab, Enter; the rest edit
// the prompt.
func (m *model) key(k tea.KeyPressMsg) (tea.Model, tea.Cmd) {
	if m.question != nil {
		// While a question waits, the prompt takes no keys: a word being
		// typed as the question comes up must not answer it. Nor do y
		// and n typed before the question could be read.
		switch k.String() {
		case "y", "Y", "n", "N":
			if time.Since(m.question.shown) < answerDelay {
				return m, nil
			}
			return m, m.answer(k.String() == "y" || k.String() == "Y")
		case "ctrl+c", "ctrl+d", "esc":
		default:
			return m, nil
		}
	}
	switch k.String() {
	case "ctrl+c", "ctrl+d":
		return m, tea.Quit
	case "esc":
		if m.running {
			c, ctx, id := m.c, m.ctx, m.session.ID
			m.notice = yellow.Render("cancelling…")
			return m, func() tea.Msg { return doneMsg{c.Cancel(ctx, id)} }
		}
		m.input.Reset()
		return m, nil
	case "tab":
		m.complete()
		return m, nil
	case "enter":
		return m, m.submit()
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return m, cmd
}

func (m *model) answer(allow bool) tea.Cmd {
	q := m.question
	m.question = nil
	c, ctx := m.c, m.ctx
	verdict := red.Render("denied")
	if allow {
		verdict = green.Render("allowed")
	}
	return tea.Batch(m.emit(dim.Render("  ? ")+safetext.Line(q.tool)+" "+argsLine(q.tool, q.args)+": "+verdict),
		func() tea.Msg { return doneMsg{c.Answer(ctx, q.id, allow)} })
}

// submit sends the prompt, or runs a command of the chat's own.
func (m *model) submit() tea.Cmd {
	text := strings.TrimSpace(m.input.Value())
	if text == "" {
		return nil
	}
	m.input.Reset()
	m.notice = ""
	c, ctx := m.c, m.ctx
	name, arg, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	if strings.HasPrefix(text, "/") && slices.ContainsFunc(builtins, func(b server.Command) bool { return b.Name == name }) {
		arg = strings.TrimSpace(arg)
		switch name {
		case "quit":
			return tea.Quit
		case "help":
			return m.emit(help(m.commands))
		case "new":
			title := m.o.Title
			m.loading = true
			return func() tea.Msg { return loadSession(ctx, c, "", title) }
		case "sessions":
			return func() tea.Msg {
				list, err := c.Sessions(ctx)
				if err != nil {
					return doneMsg{err}
				}
				return listMsg(topLevel(list))
			}
		case "resume":
			id := arg
			var n int
			if _, err := fmt.Sscan(arg, &n); err == nil && n >= 1 && n <= len(m.list) {
				id = m.list[n-1].ID
			}
			if id == "" {
				m.notice = yellow.Render("which session? /sessions lists them; /resume <number or id>")
				return nil
			}
			m.loading = true
			return func() tea.Msg { return loadSession(ctx, c, id, "") }
		}
	}
	if m.running {
		m.input.SetValue(text)
		m.notice = yellow.Render("a turn is running: Esc cancels it")
		return nil
	}
	m.running, m.started = true, time.Now()
	id := m.session.ID
	return tea.Batch(m.emit(userLine(text)), func() tea.Msg {
		if err := c.Send(ctx, id, text); err != nil {
			return sendFailed{err}
		}
		return nil
	})
}

// topLevel leaves out sub-agents' sessions.
func topLevel(list []store.Session) []store.Session {
	return slices.DeleteFunc(list, func(s store.Session) bool { return s.ParentID != "" })
}

// complete completes the command being typed: to the one that matches,
// else to what the matches have in common, else (Tab again) to each
// match in turn.
func (m *model) complete() {
	v := m.input.Value()
	if m.cycle != nil && v == "/"+m.cycle[m.cycled%len(m.cycle)]+" " {
		m.cycled++
		m.input.SetValue("/" + m.cycle[m.cycled%len(m.cycle)] + " ")
		return
	}
	m.cycle, m.cycled = nil, 0
	list := m.completions()
	switch {
	case len(list) == 0:
		return
	case len(list) == 1:
		m.input.SetValue("/" + list[0].Name + " ")
		return
	}
	common := list[0].Name
	for _, c := range list[1:] {
		for !strings.HasPrefix(c.Name, common) {
			common = common[:len(common)-1]
		}
	}
	if "/"+common != v {
		m.input.SetValue("/" + common)
		return
	}
	for _, c := range list {
		m.cycle = append(m.cycle, c.Name)
	}
	m.input.SetValue("/" + m.cycle[0] + " ")
}

// completions are the commands whose names begin with what is typed
// after "/", while nothing else is typed.
func (m *model) completions() []server.Command {
	v := m.input.Value()
	if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, " \n") {
		return nil
	}
	var out []server.Command
	for _, c := range append(slices.Clone(builtins), m.commands...) {
		if strings.HasPrefix(c.Name, v[1:]) {
			out = append(out, c)
		}
	}
	return out
}

func help(commands []server.Command) string {
	var b strings.Builder
	b.WriteString(bold.Render("Keys") + "\n  Enter send · Ctrl+J new line · Tab complete a command · Esc cancel the turn · y/n answer a question · Ctrl+C leave\n")
	b.WriteString(bold.Render("Commands") + "\n")
	for _, c := range append(slices.Clone(builtins), commands...) {
		fmt.Fprintf(&b, "  /%-22s %s", safetext.Line(strings.TrimSpace(c.Name+" "+c.ArgumentHint)), safetext.Line(c.Description))
		if c.Source != "chat" {
			b.WriteString(dim.Render(" (" + safetext.Line(c.Source) + ")"))
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

func sessionList(list []store.Session, current string) string {
	if len(list) == 0 {
		return dim.Render("no sessions")
	}
	var b strings.Builder
	for i, s := range list {
		mark := " "
		if s.ID == current {
			mark = "*"
		}
		title := s.Title
		if title == "" {
			title = "(untitled)"
		}
		fmt.Fprintf(&b, "%s%2d  %s  %s\n", mark, i+1, safetext.Line(title), dim.Render(safetext.Line(fmt.Sprintf("%s · %s · %s", s.ID, s.Status, s.UpdatedAt.Local().Format("2006-01-02 15:04")))))
	}
	b.WriteString(dim.Render("/resume <number> resumes one"))
	return b.String()
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

func (m *model) View() tea.View {
	var b strings.Builder
	if m.streaming.Len() > 0 {
		b.WriteString(safetext.Text(m.streaming.String()) + "\n")
	}
	spin := spinner[int(time.Since(m.started)/(100*time.Millisecond))%len(spinner)]
	for _, c := range m.calls {
		b.WriteString(callLine(c, spin, m.progress[c.ID]) + "\n")
	}
	if m.question != nil {
		q := m.question
		// The question is wrapped, not cut at the terminal's width: who
		// asks and what (a page's whole URL) must be seen before y.
		if q.asks != "" {
			b.WriteString(ansi.Wrap(yellow.Render("? "+safetext.Line(q.asks))+"  "+argsLine(q.tool, q.args), m.width, "") + "\n" +
				bold.Render("  [y] accept these values  [n] decline") + dim.Render("  (the prompt waits for the answer)") + "\n")
		} else {
			line := yellow.Render("? Allow "+safetext.Line(q.tool)+"?") + "  " + argsLine(q.tool, q.args)
			if q.reason != "" {
				line += dim.Render("  (" + safetext.Line(q.reason) + ")")
			}
			b.WriteString(ansi.Wrap(line, m.width, "") + "\n" + bold.Render("  [y] allow  [n] deny") + dim.Render("  (the prompt waits for the answer)") + "\n")
		}
	} else if m.running && len(m.calls) == 0 {
		b.WriteString(dim.Render(spin+" working… "+time.Since(m.started).Truncate(time.Second).String()+"  (Esc cancels)") + "\n")
	}
	b.WriteString(m.input.View() + "\n")
	if list := m.completions(); len(list) > 0 {
		for i, c := range list {
			if i == 8 {
				b.WriteString(dim.Render(fmt.Sprintf("  … %d more", len(list)-8)) + "\n")
				break
			}
			fmt.Fprintf(&b, "  %s %s\n", cyan.Render("/"+safetext.Line(c.Name)), dim.Render(safetext.Line(strings.TrimSpace(c.ArgumentHint+" "+c.Description))))
		}
	}
	if m.notice != "" {
		b.WriteString(m.notice + "\n")
	}
	b.WriteString(dim.Render("enter send · esc cancel · tab complete · /help · ctrl+c quit"))
	return tea.NewView(b.String())
}
