package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"
)

// The request headers a webhook is signed with.
const (
	HeaderTimestamp = "X-Podcode-Timestamp" // unix seconds, decimal digits
	HeaderSignature = "X-Podcode-Signature" // "sha256=" + hex HMAC-SHA256(secret, timestamp + "." + body)
)

// Tolerance is how far a webhook's timestamp may be from the server's clock,
// either way.
const Tolerance = 5 * time.Minute

// signaturePrefix names the only scheme; the hex digest follows it.
const signaturePrefix = "sha256="

// maxTimestampDigits keeps a timestamp within int64 (and any sane clock).
const maxTimestampDigits = 18

// Why Verify refused a request. Their texts name what is wrong without
// revealing the expected signature, and are what the sender reads (401).
var (
	ErrMissingTimestamp   = errors.New("webhook: missing " + HeaderTimestamp + " header")
	ErrMalformedTimestamp = errors.New("webhook: malformed " + HeaderTimestamp + " header: want unix seconds (decimal digits)")
	ErrStaleTimestamp     = errors.New("webhook: stale " + HeaderTimestamp + " header: more than " + Tolerance.String() + " from the server's clock")
	ErrMissingSignature   = errors.New("webhook: missing " + HeaderSignature + " header")
	ErrMalformedSignature = errors.New("webhook: malformed " + HeaderSignature + " header: want sha256=<64 hex digits>")
	ErrWrongSignature     = errors.New("webhook: wrong signature: " + HeaderSignature + " is not the HMAC-SHA256 of timestamp \".\" body with this webhook's secret")
	// ErrReplayed is the receiver's: Verify cannot know what was seen.
	ErrReplayed = errors.New("webhook: replayed signature: this request was already received; sign it again with a new timestamp")
)

// Sign returns the two headers that sign body with secret at ts: the value
// of X-Podcode-Timestamp and the value of X-Podcode-Signature.
func Sign(secret []byte, ts time.Time, body []byte) (timestampHeader, signatureHeader string) {
	timestampHeader = strconv.FormatInt(ts.Unix(), 10)
	return timestampHeader, signaturePrefix + hex.EncodeToString(mac(secret, timestampHeader, body))
}

// Verify checks a webhook's timestamp and signature headers against body,
// secret and the clock: the timestamp (present, decimal unix seconds, within
// Tolerance of now), then the signature (present, sha256=<64 hex digits>,
// equal in constant time to the HMAC-SHA256 of timestamp + "." + body). It
// returns nil or one of the Err variables of this package. It knows nothing
// of replays; the Receiver does.
func Verify(secret []byte, timestamp, signature string, body []byte, now time.Time) error {
	_, _, err := verify(secret, timestamp, signature, body, now)
	return err
}

// verify is Verify that also returns the decoded signature (the replay key)
// and the timestamp.
func verify(secret []byte, timestamp, signature string, body []byte, now time.Time) (sig []byte, ts int64, err error) {
	if timestamp == "" {
		return nil, 0, ErrMissingTimestamp
	}
	ts, ok := parseTimestamp(timestamp)
	if !ok {
		return nil, 0, ErrMalformedTimestamp
	}
	if d := now.Unix() - ts; d > int64(Tolerance/time.Second) || -d > int64(Tolerance/time.Second) {
		return nil, 0, ErrStaleTimestamp
	}
	if signature == "" {
		return nil, 0, ErrMissingSignature
	}
	digest, ok := strings.CutPrefix(signature, signaturePrefix)
	if !ok || len(digest) != 2*sha256.Size {
		return nil, 0, ErrMalformedSignature
	}
	sig, err = hex.DecodeString(digest)
	if err != nil {
		return nil, 0, ErrMalformedSignature
	}
	if !hmac.Equal(sig, mac(secret, timestamp, body)) {
		return nil, 0, ErrWrongSignature
	}
	return sig, ts, nil
}

// parseTimestamp accepts 1 to maxTimestampDigits decimal digits: no sign,
// no space, no fraction. (Leading zeros are accepted: the signature covers
// the header as sent.)
func parseTimestamp(s string) (int64, bool) {
	if len(s) == 0 || len(s) > maxTimestampDigits {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	return n, true
}

// mac is HMAC-SHA256(secret, timestamp + "." + body).
func mac(secret []byte, timestamp string, body []byte) []byte {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte(timestamp))
	m.Write([]byte{'.'})
	m.Write(body)
	return m.Sum(nil)
}
