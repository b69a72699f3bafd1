package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/plugin"
)

// Verify takes headers from anyone: it must never panic, must accept only
// what Sign would produce within the window, and must accept that.
func FuzzVerify(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	ts, sig := Sign([]byte("k"), now, []byte("{}"))
	f.Add([]byte("k"), ts, sig, []byte("{}"), int64(0))
	f.Add([]byte("k"), ts, sig, []byte("{}"), int64(301))
	f.Add([]byte(""), "", "", []byte(""), int64(0))
	f.Add([]byte("k"), "-1", "sha256=", []byte("x"), int64(-5))
	f.Add([]byte("k"), "99999999999999999999999", "sha256="+strings.Repeat("zz", 32), []byte("x"), int64(0))
	f.Add([]byte("k"), "0"+ts, strings.ToUpper(sig), []byte("{}"), int64(-300))
	f.Add([]byte("k"), ts+",", sig+","+sig, []byte("{}"), int64(0))
	f.Fuzz(func(t *testing.T, secret []byte, timestamp, signature string, body []byte, skew int64) {
		at := now.Add(time.Duration(skew%1_000_000) * time.Second)
		err := Verify(secret, timestamp, signature, body, at)
		if err == nil {
			// Accepted: the timestamp is digits within the window and the
			// signature is the HMAC (in either hex case).
			n, ok := parseTimestamp(timestamp)
			if !ok || n-at.Unix() > 300 || at.Unix()-n > 300 {
				t.Fatalf("accepted timestamp %q at %d", timestamp, at.Unix())
			}
			if want := "sha256=" + strings.ToLower(strings.TrimPrefix(signature, "sha256=")); want != signPlain(secret, timestamp, body) {
				t.Fatalf("accepted signature %q, want %q", signature, signPlain(secret, timestamp, body))
			}
		}
		// What Sign makes always verifies at its own time.
		if at.Unix() >= 0 {
			ts, sig := Sign(secret, at, body)
			if err := Verify(secret, ts, sig, body, at); err != nil {
				t.Fatalf("Sign then Verify: %v", err)
			}
		}
	})
}

// signPlain is the reference signature of a timestamp header as sent,
// computed without the package's code.
func signPlain(secret []byte, timestamp string, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(timestamp + "."))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// ServeHTTP decodes hostile headers and bodies: nothing panics, the answer
// is always one of the documented statuses with a JSON body, no turn starts
// without a good signature, and a signed body (whatever it holds) either
// starts the turn or fails the template with 422. Secret headers never reach
// the hooks.
func FuzzServeHTTP(f *testing.F) {
	f.Add("github", []byte(`{"action":"opened","issue":{"number":1,"title":"t","labels":[{"name":"x"}]}}`), true, "", "", "X-Api-Key", "v")
	f.Add("github", []byte(`[1,2,3]`), true, "", "", "X-Github-Event", "push")
	f.Add("github", []byte(`{"issue":null,"items":"abc"}`), true, "", "", "Cookie", "c")
	f.Add("github", []byte(`{"a":`), true, "", "", "", "")
	f.Add("github", []byte(strings.Repeat("[", 20000)), true, "", "", "", "")
	f.Add("github", []byte("x"), false, "1800000000", "sha256=00", "Authorization", "Bearer t")
	f.Add("nope", []byte("x"), false, "", "", "", "")
	f.Add("github", []byte("x"), false, "not a number", "sha256="+strings.Repeat("0", 64), "X-Secret", "s")
	f.Add("github", []byte("\xff\xfe"), true, "", "", "X-Podcode-Signature", "sha256=x")

	f.Fuzz(func(t *testing.T, name string, body []byte, sign bool, timestamp, signature, hname, hvalue string) {
		now := time.Unix(1_800_000_000, 0)
		var startedCalls int
		var leaked []string
		d := plugin.NewDispatcher()
		d.Register(plugin.HookWebhookReceived, func(_ context.Context, p *plugin.HookPayload) (*plugin.HookResult, error) {
			h, _ := p.Extra[ExtraHeaders].(map[string]any)
			for k := range h {
				if IsSecretHeader(k) {
					leaked = append(leaked, k)
				}
			}
			return nil, nil
		})
		rc, err := New(map[string]config.Webhook{"github": {Secret: "k", Prompt: githubPrompt + "{{range .JSON.items}}{{.}}{{end}}"}}, Options{
			Hooks: d,
			Start: func(context.Context, string, string, *plugin.HookPayload) (string, error) {
				startedCalls++
				return "s", nil
			},
			Now:     func() time.Time { return now },
			MaxBody: 1 << 16,
			Log:     discard,
		})
		if err != nil {
			t.Fatal(err)
		}
		req := httptest.NewRequest("POST", "/webhooks/x", bytes.NewReader(body))
		req.SetPathValue("name", name)
		if hname != "" && validHeader(hname, hvalue) {
			req.Header.Set(hname, hvalue)
		}
		if sign {
			timestamp, signature = Sign([]byte("k"), now, body)
		}
		if validHeader(HeaderTimestamp, timestamp) && validHeader(HeaderSignature, signature) {
			req.Header.Set(HeaderTimestamp, timestamp)
			req.Header.Set(HeaderSignature, signature)
		}
		rec := httptest.NewRecorder()
		rc.ServeHTTP(rec, req)

		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil {
			t.Fatalf("answer %d is not JSON: %q", rec.Code, rec.Body)
		}
		switch rec.Code {
		case http.StatusAccepted:
			if startedCalls != 1 {
				t.Fatalf("202 with %d turns", startedCalls)
			}
		case http.StatusNotFound, http.StatusRequestEntityTooLarge, http.StatusUnauthorized, http.StatusUnprocessableEntity:
			if startedCalls != 0 {
				t.Fatalf("%d with a turn started", rec.Code)
			}
		default:
			t.Fatalf("unexpected status %d: %s", rec.Code, rec.Body)
		}
		if name == "github" && sign && len(body) <= 1<<16 && rec.Code != http.StatusAccepted && rec.Code != http.StatusUnprocessableEntity {
			// The fuzzed header may be a second timestamp or signature.
			if !strings.EqualFold(hname, HeaderTimestamp) && !strings.EqualFold(hname, HeaderSignature) {
				t.Fatalf("signed delivery answered %d: %s", rec.Code, rec.Body)
			}
		}
		if len(leaked) > 0 {
			t.Fatalf("secret headers reached the hooks: %v", leaked)
		}
	})
}

var discard = slog.New(slog.NewTextHandler(io.Discard, nil))

// validHeader reports whether net/http would send this header (fuzzed names
// and values may not be).
func validHeader(name, value string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", c) >= 0 {
			return false
		}
	}
	for i := 0; i < len(value); i++ {
		if c := value[i]; c < ' ' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}
