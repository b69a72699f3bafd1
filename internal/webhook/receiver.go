package webhook

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"text/template"
	"time"

	"github.com/podcode/podcode/internal/config"
	"github.com/podcode/podcode/internal/httpjson"
	"github.com/podcode/podcode/plugin"
)

// DefaultMaxBody is the largest body a webhook may have unless
// Options.MaxBody says otherwise: 1 MiB.
const DefaultMaxBody int64 = 1 << 20

// Channel is the channel of a webhook's WebhookReceived payload and turn.
const Channel = "webhook"

// Keys of WebhookReceived's HookPayload.Extra.
const (
	ExtraWebhook = "webhook" // the webhook's name in the config
	ExtraBody    = "body"    // the body, as a string
	ExtraHeaders = "headers" // map[string]any of string: the non-secret headers (PublicHeaders)
	ExtraJSON    = "json"    // the parsed body, when it is JSON (numbers as json.Number)
)

// StartFunc starts a turn for webhook name with prompt, on the server's
// behalf, and returns its session id at once, without waiting for the turn.
// payload is the WebhookReceived payload (channel "webhook", extra as
// dispatched); Start may keep it but must not modify it. ctx carries the
// request's values but is never cancelled, since the turn belongs to the
// server and not to the request. Start either starts the turn or returns an
// error, never both: after an error the sender may retry the same request.
type StartFunc func(ctx context.Context, name, prompt string, payload *plugin.HookPayload) (sessionID string, err error)

// Options configure a Receiver.
type Options struct {
	// Hooks fires WebhookReceived; nil means no handlers.
	Hooks *plugin.Dispatcher
	// Start starts a webhook's turn; required.
	Start StartFunc
	// Now is the clock the timestamps are checked against; nil is time.Now.
	Now func() time.Time
	// Log is where refused and failed deliveries are logged; nil is
	// slog.Default(). Signatures and secret headers are never logged.
	Log *slog.Logger
	// MaxBody is the largest body accepted, in bytes; zero or less is
	// DefaultMaxBody.
	MaxBody int64
	// Ledger, if set, keeps the signatures accepted, so that a restarted
	// server still refuses their replays; nil keeps them in memory only.
	Ledger Ledger
	// Verified, if set, is called with the request's context once a
	// delivery has proved itself (its signature checked out and is not a
	// replay), before its hooks run: the server counts the connection as
	// authenticated from then on, so a flood of connections without a
	// token does not close it.
	Verified func(context.Context)
	// Redact, if set, is applied to every error the sender is answered: a
	// hook's reason or a turn's error may quote a secret, and senders show
	// answers in their delivery logs.
	Redact func(string) string
}

// Ledger stores the signatures a Receiver accepted (see the package doc,
// Replays and memory). *store.Store implements it on the server's
// database; Receivers of several nodes sharing one ledger refuse each
// other's replays.
type Ledger interface {
	// Signatures returns the signatures of webhook that expire after now,
	// each with its expiry (unix seconds).
	Signatures(ctx context.Context, webhook string, now time.Time) (map[string]int64, error)
	// ClaimSignature records a signature until expires, atomically: fresh
	// is true only for the first claimer of a signature whose record is
	// not expired at now, false when it was recorded already (by this
	// Receiver or another sharing the ledger).
	ClaimSignature(ctx context.Context, webhook string, sig []byte, expires int64, now time.Time) (fresh bool, err error)
	// ForgetSignature removes a signature, so that its delivery may come again.
	ForgetSignature(ctx context.Context, webhook string, sig []byte) error
}

// Receiver serves POST /webhooks/{name} (see the package doc for the order
// of the checks). Mount it with a pattern that has a {name} wildcard:
//
//	mux.Handle("POST /webhooks/{name}", receiver)
//
// WebhookReceived is dispatched with Channel "webhook" and Extra:
//
//	"webhook": the name
//	"body":    the body as a string
//	"headers": the request headers without the secret ones (IsSecretHeader),
//	           canonical name → values joined with ", "
//	"json":    the body parsed as JSON, only when it is JSON
//
// A Receiver is safe for concurrent use.
type Receiver struct {
	hooks    map[string]*hook
	d        *plugin.Dispatcher
	start    StartFunc
	now      func() time.Time
	log      *slog.Logger
	maxBody  int64
	ledger   Ledger
	verified func(context.Context)
	redact   func(string) string
}

// hook is one configured webhook.
type hook struct {
	name   string
	secret []byte
	prompt *template.Template
	seen   replayCache
}

// New checks and prepares the webhooks of the config: each secret is
// expanded ({env:NAME}) and must not be empty, each prompt must be a
// non-empty text/template that parses. Errors name the webhook
// (webhooks.<name>.secret, webhooks.<name>.prompt), one per line, in name
// order.
func New(hooks map[string]config.Webhook, o Options) (*Receiver, error) {
	if o.Start == nil {
		return nil, errors.New("webhook: Options.Start is nil")
	}
	r := &Receiver{
		hooks:    make(map[string]*hook, len(hooks)),
		d:        o.Hooks,
		start:    o.Start,
		now:      o.Now,
		log:      o.Log,
		maxBody:  o.MaxBody,
		ledger:   o.Ledger,
		verified: o.Verified,
		redact:   o.Redact,
	}
	if r.now == nil {
		r.now = time.Now
	}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.maxBody <= 0 {
		r.maxBody = DefaultMaxBody
	}
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(hooks)) {
		w := hooks[name]
		h := &hook{name: name}
		// Every variable the secret names must be set: "whsec_{env:X}" with
		// X unset would be a secret anyone can guess.
		secret, unset := config.ExpandEnvUnset(w.Secret)
		switch {
		case len(unset) > 0:
			errs = append(errs, fmt.Errorf("webhooks.%s.secret: the environment variable %s it names is unset", name, strings.Join(unset, ", ")))
		case secret != "":
			h.secret = []byte(secret)
		case strings.TrimSpace(w.Secret) == "":
			errs = append(errs, fmt.Errorf("webhooks.%s.secret: missing: a webhook needs a secret to check signatures", name))
		default:
			errs = append(errs, fmt.Errorf("webhooks.%s.secret: empty after expanding %q: the environment variables it names are empty", name, w.Secret))
		}
		if strings.TrimSpace(w.Prompt) == "" {
			errs = append(errs, fmt.Errorf("webhooks.%s.prompt: missing: what the turn is asked", name))
		} else if t, err := parsePrompt(name, w.Prompt); err != nil {
			errs = append(errs, fmt.Errorf("webhooks.%s.prompt: %w", name, err))
		} else {
			h.prompt = t
		}
		r.hooks[name] = h
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if r.ledger != nil {
		for name, h := range r.hooks {
			sigs, err := r.ledger.Signatures(context.Background(), name, r.now())
			if err != nil {
				return nil, fmt.Errorf("webhooks.%s: loading the signatures already received: %w", name, err)
			}
			h.seen.load(sigs)
		}
	}
	return r, nil
}

// Names returns the names of the webhooks, sorted.
func (rc *Receiver) Names() []string { return slices.Sorted(maps.Keys(rc.hooks)) }

// ServeHTTP receives one webhook; see the package doc.
func (rc *Receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		rc.answerError(w, http.StatusMethodNotAllowed, fmt.Errorf("webhook: method %s not allowed: POST", r.Method))
		return
	}
	name := r.PathValue("name")
	h := rc.hooks[name]
	if h == nil {
		rc.answerError(w, http.StatusNotFound, fmt.Errorf("webhook: no webhook named %q", name))
		return
	}
	log := rc.log.With("webhook", name, "remote", r.RemoteAddr)

	// Size.
	var body []byte
	if r.Body != nil {
		var err error
		body, err = io.ReadAll(http.MaxBytesReader(w, r.Body, rc.maxBody))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				rc.refuse(w, log, http.StatusRequestEntityTooLarge, fmt.Errorf("webhook: body larger than %d bytes", rc.maxBody))
			} else {
				rc.refuse(w, log, http.StatusBadRequest, fmt.Errorf("webhook: reading the body: %w", err))
			}
			return
		}
	}

	// Timestamp, signature.
	now := rc.now()
	sig, ts, err := verify(h.secret, oneHeader(r.Header, HeaderTimestamp), oneHeader(r.Header, HeaderSignature), body, now)
	if err != nil {
		rc.refuse(w, log, http.StatusUnauthorized, err)
		return
	}

	// Replay.
	switch h.seen.claim(sig, ts, now) {
	case replayed:
		rc.refuse(w, log, http.StatusUnauthorized, ErrReplayed)
		return
	case full:
		w.Header().Set("Retry-After", "60")
		rc.refuse(w, log, http.StatusTooManyRequests, fmt.Errorf("webhook: too many deliveries within %s; retry later", Tolerance))
		return
	}
	if rc.ledger != nil {
		// Claimed in the ledger before anything runs: a replay after a
		// restart, or sent to another node, must find it. Not recorded,
		// the delivery does not run, and the sender may retry.
		fresh, err := rc.ledger.ClaimSignature(context.WithoutCancel(r.Context()), name, sig, expiresAt(ts), now)
		if err != nil {
			h.seen.release(sig)
			err = fmt.Errorf("webhook: recording the signature: %w", err)
			log.Warn("webhook: delivery failed; no turn started", "status", http.StatusInternalServerError, "error", err.Error())
			rc.answerError(w, http.StatusInternalServerError, err)
			return
		}
		if !fresh {
			// Another node (or this one before a restart whose record
			// was not loaded yet) accepted it: a replay. It stays in
			// memory, refused here from now on without the database.
			rc.refuse(w, log, http.StatusUnauthorized, ErrReplayed)
			return
		}
	}
	if rc.verified != nil {
		rc.verified(r.Context())
	}
	// From here on the signature is consumed, unless we fail (not the
	// sender's doing) before the turn started: then the sender may retry.
	fail := func(status int, err error) {
		// The database first: once released in memory, a retry may claim
		// and record the signature again, and must keep that record.
		if rc.ledger != nil {
			if ferr := rc.ledger.ForgetSignature(context.WithoutCancel(r.Context()), name, sig); ferr != nil {
				log.Warn("webhook: a released signature stays recorded; a retry of this delivery will be refused", "error", ferr.Error())
			}
		}
		h.seen.release(sig)
		log.Warn("webhook: delivery failed; no turn started", "status", status, "error", err.Error())
		rc.answerError(w, status, err)
	}

	// WebhookReceived.
	headers := PublicHeaders(r.Header)
	extraHeaders := make(map[string]any, len(headers))
	for k, v := range headers {
		extraHeaders[k] = v
	}
	parsed, isJSON := parseJSON(body)
	extra := map[string]any{
		ExtraWebhook: name,
		ExtraBody:    string(body),
		ExtraHeaders: extraHeaders,
	}
	if isJSON {
		extra[ExtraJSON] = parsed
	}
	payload := &plugin.HookPayload{Event: plugin.HookWebhookReceived, Channel: Channel, Extra: extra}
	if rc.d != nil {
		// The dispatcher isolates the handlers (an error, a panic or a
		// timeout of one is its vote dropped, or a deny if it is
		// FailClosed); it fails only when ctx ends, that is when the
		// sender hung up. Then no turn starts and the sender may retry.
		rep, err := rc.d.DispatchReport(r.Context(), payload)
		if err != nil {
			status := http.StatusInternalServerError
			if errors.Is(err, context.Canceled) {
				status = 499 // the sender closed the request, as the server says it
			}
			fail(status, fmt.Errorf("webhook: WebhookReceived: %w", err))
			return
		}
		switch rep.Result.Decision {
		case plugin.DecisionDeny:
			msg := rep.Result.Message
			if msg == "" {
				msg = "denied by a WebhookReceived hook"
			}
			log.Info("webhook: denied by a hook", "report", rep)
			rc.answerError(w, http.StatusForbidden, errors.New(msg))
			return
		case plugin.DecisionAsk:
			msg := "a WebhookReceived hook asked for confirmation, and nobody can answer here"
			if rep.Result.Message != "" {
				msg += ": " + rep.Result.Message
			}
			log.Info("webhook: a hook asked; refused", "report", rep)
			rc.answerError(w, http.StatusForbidden, errors.New(msg))
			return
		}
	}

	// Template.
	data := &Data{Body: string(body), Headers: headers}
	if isJSON {
		data.JSON = withoutNulls(parsed)
	}
	prompt, err := render(h.prompt, data)
	if err != nil {
		rc.refuse(w, log, http.StatusUnprocessableEntity, fmt.Errorf("webhooks.%s.prompt: %w", name, err))
		return
	}

	// Turn. A sender that hung up by now will retry; nothing runs for it.
	if err := r.Context().Err(); err != nil {
		fail(499, fmt.Errorf("webhook: the sender closed the request: %w", err))
		return
	}
	id, err := rc.start(context.WithoutCancel(r.Context()), name, prompt, payload)
	if err != nil {
		fail(http.StatusInternalServerError, fmt.Errorf("webhook: starting the turn: %w", err))
		return
	}
	log.Info("webhook: turn started", "session", id)
	httpjson.Write(w, http.StatusAccepted, map[string]any{"sessionID": id})
}

// refuse answers a delivery refused before anything ran.
func (rc *Receiver) refuse(w http.ResponseWriter, log *slog.Logger, status int, err error) {
	log.Info("webhook: refused", "status", status, "reason", err.Error())
	rc.answerError(w, status, err)
}

// oneHeader returns the value of header k, or "" when it is absent; a header
// sent more than once is returned joined, and so never passes the checks.
func oneHeader(h http.Header, k string) string {
	vs := h.Values(k)
	switch len(vs) {
	case 0:
		return ""
	case 1:
		return vs[0]
	}
	return strings.Join(vs, ",")
}

// answerError answers the sender err, redacted (Options.Redact).
func (rc *Receiver) answerError(w http.ResponseWriter, status int, err error) {
	msg := err.Error()
	if rc.redact != nil {
		msg = rc.redact(msg)
	}
	httpjson.Error(w, status, errors.New(msg))
}
