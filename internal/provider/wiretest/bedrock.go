package wiretest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Bedrock is Amazon Bedrock's runtime serving Anthropic's models: POST
// /model/{model}/invoke-with-response-stream, signed with AWS Signature
// Version 4 for the service bedrock (the signature checked against the
// server's credentials), the Messages API's body with its anthropic_version
// and without model or stream, answered with the
// Messages API's events framed as an AWS event stream (each a chunk whose
// bytes are the event's JSON). The body is checked as the Anthropic server
// checks it, and so is the cache kept.
type Bedrock struct {
	*Anthropic
	Region              string
	AccessKeyID, Secret string
	signer              *v4.Signer
}

// NewBedrock starts a Bedrock runtime for region, closed when the test
// ends; it takes the access key AKIDPODCODETEST with the secret
// "podcode-test-secret" (set them as AWS_ACCESS_KEY_ID and
// AWS_SECRET_ACCESS_KEY).
func NewBedrock(t testing.TB, region string, script Script) *Bedrock {
	t.Helper()
	a := &Anthropic{script: script, signer: signer{key: []byte("anthropic")}, cached: map[string]bool{}}
	b := &Bedrock{Anthropic: a, Region: region, AccessKeyID: "AKIDPODCODETEST", Secret: "podcode-test-secret", signer: v4.NewSigner()}
	a.write = writeEventStream
	srv := httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(srv.Close)
	a.URL = srv.URL
	return b
}

func bedrockFail(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Amzn-Errortype", typ+":http://internal.amazon.com/coral/com.amazon.bedrock/")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"message": msg})
}

func (b *Bedrock) serve(w http.ResponseWriter, r *http.Request) {
	model, ok := strings.CutPrefix(r.URL.Path, "/model/")
	model, stream := strings.CutSuffix(model, "/invoke-with-response-stream")
	if r.Method != http.MethodPost || !ok || !stream {
		bedrockFail(w, http.StatusNotFound, "UnknownOperationException", "not found: "+r.URL.Path)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		return
	}
	if msg := b.verify(r, body); msg != "" {
		bedrockFail(w, http.StatusForbidden, "InvalidSignatureException", msg)
		b.rec.add(AnthropicRequest{Header: r.Header, Path: r.URL.Path, Status: http.StatusForbidden, Error: msg}, false)
		return
	}
	var fields map[string]any
	if json.Unmarshal(body, &fields) != nil || fields["anthropic_version"] == nil || fields["model"] != nil || fields["stream"] != nil {
		bedrockFail(w, http.StatusBadRequest, "ValidationException", "Malformed input request: anthropic_version is required; model and stream are not permitted")
		return
	}
	fields["model"] = model // for the Messages API's checks, which sign thinking per model
	data, _ := json.Marshal(fields)
	r2 := r.Clone(r.Context())
	r2.Body = io.NopCloser(bytes.NewReader(data))
	b.handle(w, r2, r.Header, r.URL.Path)
}

// verify checks r's Signature Version 4: the credential's key and scope,
// and the signature itself, made again over the headers it names.
func (b *Bedrock) verify(r *http.Request, body []byte) string {
	auth := r.Header.Get("Authorization")
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 ") {
		return "Authorization header requires 'Credential' parameter. Authorization=" + auth
	}
	var credential, signed string
	for _, kv := range strings.Split(strings.TrimPrefix(auth, "AWS4-HMAC-SHA256 "), ", ") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "Credential":
			credential = v
		case "SignedHeaders":
			signed = v
		}
	}
	scope := strings.Split(credential, "/")
	if len(scope) != 5 || scope[0] != b.AccessKeyID || scope[2] != b.Region || scope[3] != "bedrock" {
		return "The security token included in the request is invalid (credential " + credential + ")"
	}
	when, err := time.Parse("20060102T150405Z", r.Header.Get("X-Amz-Date"))
	if err != nil {
		return "missing X-Amz-Date"
	}
	again, _ := http.NewRequest(r.Method, "http://"+r.Host+r.URL.RequestURI(), bytes.NewReader(body))
	again.Host = r.Host
	for _, h := range strings.Split(signed, ";") {
		if h != "host" {
			again.Header[http.CanonicalHeaderKey(h)] = r.Header.Values(h)
		}
	}
	sum := sha256.Sum256(body)
	creds := aws.Credentials{AccessKeyID: b.AccessKeyID, SecretAccessKey: b.Secret, SessionToken: r.Header.Get("X-Amz-Security-Token")}
	if err := b.signer.SignHTTP(context.Background(), creds, again, hex.EncodeToString(sum[:]), "bedrock", b.Region, when); err != nil {
		return err.Error()
	}
	sig := func(auth string) string { return auth[strings.LastIndex(auth, "Signature=")+len("Signature="):] }
	if sig(auth) != sig(again.Header.Get("Authorization")) {
		return "The request signature we calculated does not match the signature you provided."
	}
	return ""
}

// writeEventStream frames events as Bedrock does: application/vnd.amazon.
// eventstream, one message of event type chunk per event, its payload
// {"bytes": the event's JSON in base64}; an error event becomes an
// exception message.
func writeEventStream(w http.ResponseWriter, events []sse) {
	w.Header().Set("Content-Type", "application/vnd.amazon.eventstream")
	w.Header().Set("X-Amzn-Bedrock-Content-Type", "application/json")
	enc := eventstream.NewEncoder()
	for _, e := range events {
		if e.event == "" {
			flush(w)
			panic(http.ErrAbortHandler)
		}
		data, _ := json.Marshal(e.data)
		var msg eventstream.Message
		if e.event == "error" {
			em, _ := e.data.(map[string]any)["error"].(map[string]any)
			msg.Headers.Set(":message-type", eventstream.StringValue("exception"))
			msg.Headers.Set(":exception-type", eventstream.StringValue(bedrockException(em["type"])))
			msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
			msg.Payload, _ = json.Marshal(map[string]any{"message": em["message"]})
		} else {
			msg.Headers.Set(":message-type", eventstream.StringValue("event"))
			msg.Headers.Set(":event-type", eventstream.StringValue("chunk"))
			msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
			msg.Payload, _ = json.Marshal(map[string]any{"bytes": base64.StdEncoding.EncodeToString(data)})
		}
		if err := enc.Encode(w, msg); err != nil {
			return
		}
	}
	flush(w)
}

// bedrockException is the exception Bedrock sends for an Anthropic error
// type.
func bedrockException(typ any) string {
	switch typ {
	case "overloaded_error":
		return "serviceUnavailableException"
	case "rate_limit_error":
		return "throttlingException"
	}
	return "modelStreamErrorException"
}
