package tui

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"charm.land/glamour/v2"
	"charm.land/lipgloss/v2"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/safetext"
)

// The chat's colours: ANSI's sixteen, so that the terminal's theme picks
// the shades.
var (
	dim    = lipgloss.NewStyle().Faint(true)
	bold   = lipgloss.NewStyle().Bold(true)
	green  = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	red    = lipgloss.NewStyle().Foreground(lipgloss.Color("1"))
	yellow = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	cyan   = lipgloss.NewStyle().Foreground(lipgloss.Color("6"))
)

// maxOutputLines is how much of a tool's output the chat shows.
const maxOutputLines = 6

// trailing is what ends a line of blanks and colour changes.
var trailing = regexp.MustCompile("(?: |\x1b\\[[0-9;]*m)+$")

// markdown renders an answer's Markdown for a terminal width wide; text
// it cannot render is shown as it is.
type markdown struct {
	width int
	r     *glamour.TermRenderer
}

func (m *markdown) render(text string, width int) string {
	if width < 20 {
		width = 20
	}
	if m.r == nil || m.width != width {
		r, err := glamour.NewTermRenderer(glamour.WithStandardStyle("dark"), glamour.WithWordWrap(width-2))
		if err != nil {
			return text
		}
		m.r, m.width = r, width
	}
	text = safetext.Text(text)
	out, err := m.r.Render(text)
	if err != nil {
		return text
	}
	// glamour pads each line to the width: trailing blanks that a
	// terminal narrower than the chat was would wrap.
	lines := strings.Split(strings.Trim(out, "\n"), "\n")
	for i, l := range lines {
		lines[i] = trailing.ReplaceAllStringFunc(l, func(t string) string {
			if strings.Contains(t, "\x1b") {
				return "\x1b[0m"
			}
			return ""
		})
	}
	return strings.Join(lines, "\n")
}

// userLine is a prompt as the chat prints it.
func userLine(text string) string {
	return bold.Render("› ") + safetext.Text(text)
}

// argsLine is what a call's arguments show on its line: a command, a path,
// a pattern, a sub-agent's prompt; else the arguments as JSON, shortened.
func argsLine(tool string, args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) == nil {
		for _, k := range []string{"command", "path", "pattern", "url", "name", "prompt"} {
			if s, ok := m[k].(string); ok {
				return safetext.Line(chat.Shorten(s, 80))
			}
		}
	}
	return safetext.Line(chat.Shorten(string(args), 80))
}

// callLine is a call under way, with what it last said of its progress.
func callLine(c chat.ToolCall, spin, progress string) string {
	line := yellow.Render(spin+" "+safetext.Line(c.Tool)) + "  " + argsLine(c.Tool, c.Args)
	if progress != "" {
		line += dim.Render("  · " + safetext.Line(chat.Shorten(progress, 80)))
	}
	return line
}

// toolBlock is a finished call: its line with ✓ or ✗, the hooks that ran
// around it in order (the timeline), and the start of its output.
func toolBlock(c chat.ToolCall, r *chat.Result, hooks []chat.HookRun, width int) string {
	var b strings.Builder
	mark := green.Render("✓ " + safetext.Line(c.Tool))
	if r.IsError {
		mark = red.Render("✗ " + safetext.Line(c.Tool))
	}
	b.WriteString(mark + "  " + argsLine(c.Tool, c.Args))
	for _, line := range hookLines(hooks, width) {
		b.WriteString("\n" + line)
	}
	out := strings.TrimRight(r.Output, "\n")
	if out == "" {
		return b.String()
	}
	lines := strings.Split(out, "\n")
	shown := lines
	if len(shown) > maxOutputLines {
		shown = shown[:maxOutputLines]
	}
	for _, l := range shown {
		b.WriteString("\n" + dim.Render("  └ ") + safetext.Line(chat.Shorten(l, max(width-4, 16))))
	}
	if n := len(lines) - len(shown); n > 0 {
		b.WriteString("\n" + dim.Render(fmt.Sprintf("    … %d more lines", n)))
	}
	return b.String()
}

// hookLines are the hooks that ran around a call or a model call, in
// order: which plugin or handler, what it did (a vote, a change, a
// failure), how long it took. The web page's timeline, as lines.
func hookLines(hooks []chat.HookRun, width int) []string {
	if len(hooks) == 0 {
		return nil
	}
	hw, sw := 0, 0
	for _, h := range hooks {
		hw, sw = max(hw, len(h.Hook)), max(sw, len(h.Source))
	}
	sw = min(sw, 40)
	out := make([]string, 0, len(hooks))
	for _, h := range hooks {
		what := h.Outcome
		if h.Decision != "" {
			what = h.Decision
		}
		style := dim
		switch {
		case h.Error != "" || h.Outcome == "threw" || h.Outcome == "timed_out" || h.Outcome == "failed":
			what, style = "⚠ "+what, red
		case h.Decision == "deny":
			style = red
		case h.Decision == "ask":
			style = yellow
		case h.Outcome == "changed":
			style = cyan
		}
		line := fmt.Sprintf("  │ %-*s  %-*s  %s", hw, safetext.Line(h.Hook), sw, safetext.Line(chat.Shorten(h.Source, sw)), safetext.Line(what))
		dur := "  " + duration(h.DurationUs)
		why := h.Message
		if why == "" {
			why = h.Error
		}
		if why != "" {
			// The reason takes what is left of the line.
			room := width - utf8.RuneCountInString(line) - 2 - utf8.RuneCountInString(dur)
			line += ": " + safetext.Line(chat.Shorten(why, max(room, 16)))
		}
		out = append(out, style.Render(line)+dim.Render(dur))
	}
	return out
}

// duration writes microseconds for people.
func duration(us int64) string {
	switch {
	case us < 1000:
		return fmt.Sprintf("%d µs", us)
	case us < 1_000_000:
		return fmt.Sprintf("%.1f ms", float64(us)/1000)
	}
	return fmt.Sprintf("%.2f s", float64(us)/1e6)
}
