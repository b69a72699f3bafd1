// Package webhook receives signed webhooks and turns each into a turn.
//
// A [Receiver] serves `POST /webhooks/{name}` for the webhooks of the config
// (`webhooks: {"<name>": {"secret", "prompt"}}`). It is mounted outside the
// API token check: a webhook authenticates by its signature.
//
// # The checks, in order
//
// Nothing runs (no hook, no template, no turn) unless every check before it
// passed:
//
//  1. name: a name the config does not know is 404.
//  2. size: the body is read through [http.MaxBytesReader]; a body larger
//     than Options.MaxBody (DefaultMaxBody) is 413.
//  3. timestamp: X-Podcode-Timestamp must be unix seconds (digits only)
//     within [Tolerance] of the server's clock, either way; missing,
//     malformed or stale is 401.
//  4. signature: X-Podcode-Signature must be
//     `sha256=<hex of HMAC-SHA256(secret, timestamp + "." + body)>`,
//     compared in constant time ([hmac.Equal]); missing, malformed or wrong
//     is 401. The expected signature is never written anywhere.
//  5. replay: a signature already received for this webhook is 401. A
//     signature is recorded only once it verified, and atomically with the
//     check, so of two identical requests racing exactly one passes.
//     From here on the delivery has proved itself: Options.Verified is
//     called (the server then stops counting its connection among those
//     without a token, which a flood of them may close).
//  6. WebhookReceived is dispatched (channel "webhook") with the body, the
//     non-secret headers and the parsed JSON in extra (see [Receiver]). A
//     deny is 403 with the hooks' message; so is ask, since nobody can
//     answer a question here (as the guard does for a tool call with nobody
//     to ask). Allow, defer or no vote at all go on.
//  7. template: the webhook's prompt, a text/template over .Body, .JSON and
//     .Headers ([Data]), is rendered; an error executing it (a field of a
//     JSON array, say) is 422.
//  8. turn: Options.Start starts the turn and returns its session id at
//     once; the answer is 202 {"sessionID": "..."} without waiting for the
//     turn. A Start error is 500 with the error's text. A sender that hung
//     up before this point gets nothing started (499, as the server logs a
//     client that went away).
//
// Besides these: a method other than POST is 405 (the server's mux refuses
// it first), a body that cannot be read is 400, and a webhook flooded with
// valid deliveries is 429 (see below). Errors are answered as the server
// answers them: a JSON object {"error": "..."}.
//
// # Replays and memory
//
// Each webhook keeps the signatures it accepted, each only as long as its
// timestamp could still pass the timestamp check (until timestamp +
// Tolerance); after that the timestamp check refuses it anyway. Expired
// entries are pruned, oldest first, on every new signature, so an entry
// lives at most 2×Tolerance (a timestamp Tolerance ahead of the clock) and
// only requests that carried a valid signature can add one: memory is
// bounded by what holders of the secret send in ten minutes, and capped at
// 131072 entries (some 13 MB) per webhook, beyond which deliveries are
// refused with 429 until entries expire.
//
// A signature stays recorded whatever the answer (403, 422, 202): the
// request was received, and a sender that wants it again must sign again,
// with a new timestamp. The exception is a failure before the turn started
// that is not the sender's doing (the dispatch ended with an error, the
// sender hung up, or Start failed: 5xx or 499): the signature is released,
// so that a retry of the very same request is accepted. WebhookReceived
// then fires again for the retry.
//
// With Options.Ledger (the server passes its database) every accepted
// signature is also claimed there before anything runs, and loaded again
// by New: a restarted server still refuses a replay, and so do the other
// nodes sharing the database (a signature another node claimed first is
// refused as a replay, 401). A signature that cannot be recorded fails
// the delivery (500), as nothing would stop its replay after a restart.
//
// The replay window relies on the wall clock not stepping back by more than
// the time since an entry was pruned.
package webhook
