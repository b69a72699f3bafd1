package chat

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"
)

// NewID returns a fresh identifier with prefix ("ses", "msg", "call"): the
// creation time in milliseconds, then 8 random bytes, in hex, so identifiers
// sort by creation and never collide in practice.
func NewID(prefix string) string {
	var r [8]byte
	rand.Read(r[:])
	return fmt.Sprintf("%s_%012x%s", prefix, time.Now().UnixMilli(), hex.EncodeToString(r[:]))
}
