package webhook_test

import (
	"fmt"
	"time"

	"github.com/podcode/podcode/internal/webhook"
)

// A sender signs each delivery with the webhook's secret and the current
// time, and sends the two values as headers.
func ExampleSign() {
	body := []byte(`{"action":"opened"}`)
	ts, sig := webhook.Sign([]byte("whsec-example"), time.Unix(1_800_000_000, 0), body)
	fmt.Println(webhook.HeaderTimestamp+":", ts)
	fmt.Println(webhook.HeaderSignature+":", sig[:len("sha256=")+8]+"...")
	fmt.Println(webhook.Verify([]byte("whsec-example"), ts, sig, body, time.Unix(1_800_000_060, 0)))
	fmt.Println(webhook.Verify([]byte("whsec-example"), ts, sig, body, time.Unix(1_800_000_400, 0)))
	// Output:
	// X-Podcode-Timestamp: 1800000000
	// X-Podcode-Signature: sha256=81c7b45d...
	// <nil>
	// webhook: stale X-Podcode-Timestamp header: more than 5m0s from the server's clock
}
