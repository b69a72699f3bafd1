package webhook

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSignVerify(t *testing.T) {
	secret := []byte("s3cret")
	body := []byte(`{"a":1}`)
	at := time.Unix(1_800_000_000, 0)
	ts, sig := Sign(secret, at, body)
	if ts != "1800000000" || !strings.HasPrefix(sig, "sha256=") || len(sig) != len("sha256=")+64 {
		t.Fatalf("Sign = %q, %q", ts, sig)
	}
	upper := "sha256=" + strings.ToUpper(strings.TrimPrefix(sig, "sha256="))
	for _, tc := range []struct {
		name          string
		secret        []byte
		ts, sig, body string
		now           time.Time
		want          error
	}{
		{"good", secret, ts, sig, string(body), at, nil},
		{"upper-case hex", secret, ts, upper, string(body), at, nil},
		{"5 min late", secret, ts, sig, string(body), at.Add(Tolerance), nil},
		{"5 min early", secret, ts, sig, string(body), at.Add(-Tolerance), nil},
		{"sub-second still within", secret, ts, sig, string(body), at.Add(Tolerance + 999*time.Millisecond), nil},
		{"stale", secret, ts, sig, string(body), at.Add(Tolerance + time.Second), ErrStaleTimestamp},
		{"from the future", secret, ts, sig, string(body), at.Add(-Tolerance - time.Second), ErrStaleTimestamp},
		{"no timestamp", secret, "", sig, string(body), at, ErrMissingTimestamp},
		{"signed timestamp", secret, "+" + ts, sig, string(body), at, ErrMalformedTimestamp},
		{"fraction", secret, ts + ".0", sig, string(body), at, ErrMalformedTimestamp},
		{"RFC 3339", secret, at.Format(time.RFC3339), sig, string(body), at, ErrMalformedTimestamp},
		{"huge", secret, strings.Repeat("9", 40), sig, string(body), at, ErrMalformedTimestamp},
		{"leading zero changes the signed text", secret, "0" + ts, sig, string(body), at, ErrWrongSignature},
		{"no signature", secret, ts, "", string(body), at, ErrMissingSignature},
		{"other scheme", secret, ts, "sha1=" + strings.TrimPrefix(sig, "sha256="), string(body), at, ErrMalformedSignature},
		{"bare hex", secret, ts, strings.TrimPrefix(sig, "sha256="), string(body), at, ErrMalformedSignature},
		{"short", secret, ts, sig[:len(sig)-2], string(body), at, ErrMalformedSignature},
		{"not hex", secret, ts, sig[:len(sig)-1] + "g", string(body), at, ErrMalformedSignature},
		{"wrong secret", []byte("other"), ts, sig, string(body), at, ErrWrongSignature},
		{"other body", secret, ts, sig, `{"a":2}`, at, ErrWrongSignature},
		{"other timestamp", secret, "1800000001", sig, string(body), at, ErrWrongSignature},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Verify(tc.secret, tc.ts, tc.sig, []byte(tc.body), tc.now)
			if !errors.Is(err, tc.want) {
				t.Fatalf("Verify = %v, want %v", err, tc.want)
			}
		})
	}
}

// The timestamp is part of what is signed, so moving a good signature to a
// fresh timestamp does not make it pass.
func TestVerifyBindsTimestamp(t *testing.T) {
	secret, body := []byte("k"), []byte("x")
	old := time.Unix(1_800_000_000, 0)
	_, sig := Sign(secret, old, body)
	now := old.Add(time.Hour)
	ts, _ := Sign(secret, now, body)
	if err := Verify(secret, ts, sig, body, now); !errors.Is(err, ErrWrongSignature) {
		t.Fatalf("Verify = %v, want ErrWrongSignature", err)
	}
}
