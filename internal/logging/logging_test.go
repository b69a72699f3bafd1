package logging

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/jsonw"
)

func TestSecretsNeverReachTheLog(t *testing.T) {
	var buf bytes.Buffer
	secrets := append(EnvSecrets([]string{"OPENAI_API_KEY=sk-live-abcdef123456", "PATH=/usr/bin", "GITHUB_TOKEN=ghp_0123456789", "SHORT_KEY=abc"}),
		ValueSecrets(map[string]any{"provider": map[string]any{"openai": map[string]any{"options": map[string]any{"apiKey": "cfg-secret-999999", "baseURL": "https://api"}}}})...)
	log := New(&buf, slog.LevelDebug, secrets).With("token", "ghp_0123456789")
	log.Info("calling with sk-live-abcdef123456", "header", "Bearer cfg-secret-999999", "err", errors.New("bad key sk-live-abcdef123456"),
		slog.Group("g", "k", "ghp_0123456789"), "path", "/usr/bin", "short", "abc")
	out := buf.String()
	for _, s := range []string{"sk-live-abcdef123456", "ghp_0123456789", "cfg-secret-999999"} {
		if strings.Contains(out, s) {
			t.Errorf("secret %q reached the log: %s", s, out)
		}
	}
	if !strings.Contains(out, "path=/usr/bin") || !strings.Contains(out, "short=abc") || strings.Count(out, Redacted) != 5 {
		t.Errorf("redaction went wrong: %s", out)
	}
}

// A secret holding a quote, a backslash, a control character or an HTML
// character is found in JSON text too, as either encoder escapes it: the
// records of hook steps, tool calls' arguments and /events frames are JSON.
func TestRedactorFindsSecretsWrittenAsJSON(t *testing.T) {
	const secret = "pa\"ss\\wo\trd<&>12345"
	r := NewRedactor([]string{secret})
	quoted := jsonw.AppendString(nil, secret)
	html, _ := json.Marshal(map[string]string{"password": secret})
	for _, text := range []string{secret, "{\"a\":" + string(quoted) + "}", string(html)} {
		got := r.String(text)
		if strings.Contains(got, "12345") || !strings.Contains(got, Redacted) {
			t.Errorf("%s: redacted as %s", text, got)
		}
	}
}

// A secret that arrives split between pieces of a stream is replaced; text
// that cannot be the start of a secret is given at once.
func TestStreamRedactorFindsASecretSplitBetweenPieces(t *testing.T) {
	const secret = "sk-acme-0123456789"
	s := NewRedactor([]string{secret}).Stream()
	if got := s.Next("hello "); got != "hello " {
		t.Errorf("Next(hello) = %q, want it at once", got)
	}
	var out strings.Builder
	for _, piece := range []string{"the key is sk-", "acme-01234", "56789, and sk-not-a-secret", " end"} {
		out.WriteString(s.Next(piece))
	}
	out.WriteString(s.Rest())
	if got, want := out.String(), "the key is "+Redacted+", and sk-not-a-secret end"; got != want {
		t.Errorf("streamed %q, want %q", got, want)
	}
	var nilR *Redactor
	if got := nilR.Stream().Next("sk-acme-0123456789"); got != secret {
		t.Errorf("a nil Redactor's stream changed the text: %q", got)
	}
}
