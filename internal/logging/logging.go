// Package logging builds Podcode's structured logger: log/slog lines on
// stderr, with every secret Podcode knows of (API keys and tokens from the
// environment and the config) replaced before a line is written, whoever
// wrote it: Podcode, a plugin's console.log, an error message.
package logging

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"

	"github.com/podcode/podcode/internal/jsonw"
)

// Redacted replaces a secret in log lines.
const Redacted = "[redacted]"

// minSecret is the shortest value treated as a secret: shorter values
// ("1", "true") would redact innocent text.
const minSecret = 8

// New returns a logger writing text lines to w at level, redacting secrets.
func New(w io.Writer, level slog.Level, secrets []string) *slog.Logger {
	h := slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})
	return slog.New(&redactor{next: h, r: newReplacer(secrets)})
}

// Redactor replaces known secrets in text that leaves Podcode's hands: what
// is stored, what is streamed to clients, what a model reads.
type Redactor struct{ r *replacer }

// NewRedactor returns a Redactor for secrets (values shorter than 8
// characters are not treated as secrets).
func NewRedactor(secrets []string) *Redactor { return &Redactor{r: newReplacer(secrets)} }

// String returns s with every secret replaced by Redacted.
func (r *Redactor) String(s string) string {
	if r == nil || r.r == nil {
		return s
	}
	return r.r.r.Replace(s)
}

// Stream returns a redactor for text that arrives in pieces (a model's
// streamed answer): a secret split between two pieces is replaced too.
func (r *Redactor) Stream() *StreamRedactor { return &StreamRedactor{r: r} }

// StreamRedactor redacts a text piece by piece. Next gives what of the
// text so far can be shown: all of it but an end that could be the start
// of a secret, which waits for the next piece; Rest gives that end once
// the text is complete. Joined, what they give is the whole text redacted.
type StreamRedactor struct {
	r       *Redactor
	pending string
}

// Next takes the next piece and returns what can be shown now.
func (s *StreamRedactor) Next(piece string) string {
	if s.r == nil || s.r.r == nil {
		return piece
	}
	out := s.r.r.r.Replace(s.pending + piece)
	keep := 0
	for _, f := range s.r.r.forms {
		for k := min(len(f)-1, len(out)); k > keep; k-- {
			if out[len(out)-1] == f[k-1] && strings.HasSuffix(out, f[:k]) {
				keep = k
				break
			}
		}
	}
	s.pending = out[len(out)-keep:]
	return out[:len(out)-keep]
}

// Rest returns what Next held back; the text is complete.
func (s *StreamRedactor) Rest() string {
	rest := s.pending
	s.pending = ""
	return rest
}

// LevelFromEnv reads PODCODE_LOG_LEVEL (debug, info, warn, error); info by
// default.
func LevelFromEnv() slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(os.Getenv("PODCODE_LOG_LEVEL"))); err != nil {
		return slog.LevelInfo
	}
	return l
}

// secretName reports whether an environment variable or config key name
// holds a secret.
func secretName(name string) bool {
	n := strings.ToUpper(name)
	for _, s := range []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH"} {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// EnvSecrets returns the values of environment variables whose names say
// they are secrets.
func EnvSecrets(environ []string) []string {
	var out []string
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && secretName(k) {
			out = append(out, v)
		}
	}
	return out
}

// ValueSecrets walks JSON-shaped data (a config) for string values under
// keys whose names say they are secrets (apiKey, token, secret...).
func ValueSecrets(v any) []string {
	var out []string
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch t := v.(type) {
		case map[string]any:
			for k, x := range t {
				walk(k, x)
			}
		case []any:
			for _, x := range t {
				walk(key, x)
			}
		case string:
			if secretName(key) {
				out = append(out, t)
			}
		}
	}
	walk("", v)
	return out
}

type replacer struct {
	r     *strings.Replacer
	forms []string // what r replaces, longest first
}

// newReplacer replaces each secret, and each form JSON gives it: a text
// that holds JSON (a hook step's record, a tool call's arguments, an
// event's frame) has a secret holding a quote, a backslash, a control
// character or <, > or & escaped, which the secret itself would not match.
func newReplacer(secrets []string) *replacer {
	var forms []string
	seen := map[string]bool{}
	for _, s := range secrets {
		if len(s) < minSecret {
			continue
		}
		quoted := jsonw.AppendString(nil, s)
		html, _ := json.Marshal(s) // encoding/json's form: <, > and & escaped too
		for _, f := range []string{s, string(quoted[1 : len(quoted)-1]), string(html[1 : len(html)-1])} {
			if !seen[f] {
				seen[f] = true
				forms = append(forms, f)
			}
		}
	}
	if len(forms) == 0 {
		return nil
	}
	// Longest first, so a secret that contains another is replaced whole.
	slices.SortStableFunc(forms, func(a, b string) int { return len(b) - len(a) })
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Redacted)
	}
	return &replacer{r: strings.NewReplacer(pairs...), forms: forms}
}

func (r *replacer) value(v slog.Value) slog.Value {
	switch v.Kind() {
	case slog.KindString:
		return slog.StringValue(r.r.Replace(v.String()))
	case slog.KindGroup:
		attrs := v.Group()
		out := make([]slog.Attr, len(attrs))
		for i, a := range attrs {
			out[i] = slog.Attr{Key: a.Key, Value: r.value(a.Value)}
		}
		return slog.GroupValue(out...)
	case slog.KindLogValuer:
		return r.value(v.Resolve())
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.StringValue(r.r.Replace(err.Error()))
		}
	}
	return v
}

// redactor is a slog.Handler that redacts secrets from messages and
// attribute values before the next handler sees them.
type redactor struct {
	next slog.Handler
	r    *replacer
}

func (h *redactor) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *redactor) Handle(ctx context.Context, rec slog.Record) error {
	if h.r == nil {
		return h.next.Handle(ctx, rec)
	}
	out := slog.NewRecord(rec.Time, rec.Level, h.r.r.Replace(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(slog.Attr{Key: a.Key, Value: h.r.value(a.Value)})
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *redactor) WithAttrs(attrs []slog.Attr) slog.Handler {
	if h.r != nil {
		for i, a := range attrs {
			attrs[i] = slog.Attr{Key: a.Key, Value: h.r.value(a.Value)}
		}
	}
	return &redactor{next: h.next.WithAttrs(attrs), r: h.r}
}

func (h *redactor) WithGroup(name string) slog.Handler {
	return &redactor{next: h.next.WithGroup(name), r: h.r}
}
