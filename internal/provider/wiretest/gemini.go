package wiretest

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Gemini is Google's Gemini API: POST /v1/models/{model}:
// streamGenerateContent?alt=sse (or /v1beta/…) with the key in
// x-goog-api-key, answered with its stream (each event a
// GenerateContentResponse: candidates with parts of text, thoughts and
// function calls, each part's thought signature, the usage so far; the last
// with the finish reason). With NewVertex it is Gemini on Vertex AI
// instead: /v1beta1/projects/{project}/locations/{location}/publishers/
// google/models/{model}:streamGenerateContent, authorised by a bearer
// token that its own token endpoint gives for a service account's signed
// assertion (CredentialsFile).
//
// It checks each request as the API does: the model turn's function calls
// answered by as many function responses in the next user turn, and, for
// the calls of the current turn (since the last prompt), the first call of
// each step carrying the thought signature it gave for that model.
type Gemini struct {
	URL string // the base URL
	Key string // the API key it takes (Gemini API)

	script Script
	signer signer
	rec    recorder[GeminiRequest]

	vertex           bool
	project, region  string
	key              *rsa.PrivateKey
	mu               sync.Mutex
	tokens           map[string]bool
	TokenRequests    int // how many tokens its token endpoint gave
	serviceAccountID string
}

// GeminiRequest is one request the server received.
type GeminiRequest struct {
	Path   string
	Body   map[string]any
	Status int
	Error  string
}

// NewGemini starts a Gemini API server answering with script, closed when
// the test ends; it takes the key "gemini-test-key".
func NewGemini(t testing.TB, script Script) *Gemini {
	t.Helper()
	g := &Gemini{Key: "gemini-test-key", script: script, signer: signer{key: []byte("gemini")}}
	srv := httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(srv.Close)
	g.URL = srv.URL
	return g
}

// NewVertex starts a Vertex AI server for project and region.
func NewVertex(t testing.TB, project, region string, script Script) *Gemini {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	g := &Gemini{script: script, signer: signer{key: []byte("gemini")}, vertex: true, project: project, region: region, key: key,
		tokens: map[string]bool{}, serviceAccountID: "podcode-test@" + project + ".iam.gserviceaccount.com"}
	srv := httptest.NewServer(http.HandlerFunc(g.serve))
	t.Cleanup(srv.Close)
	g.URL = srv.URL
	return g
}

// CredentialsFile writes a service account's key file whose token_uri is
// the server's token endpoint, for GOOGLE_APPLICATION_CREDENTIALS.
func (g *Gemini) CredentialsFile(t testing.TB) string {
	t.Helper()
	der := x509.MarshalPKCS1PrivateKey(g.key)
	data, _ := json.Marshal(map[string]any{"type": "service_account", "project_id": g.project, "private_key_id": "test-key",
		"private_key": string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: der})), "client_email": g.serviceAccountID,
		"client_id": "1", "token_uri": g.URL + "/token", "universe_domain": "googleapis.com"})
	path := filepath.Join(t.TempDir(), "service-account.json")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Requests returns the requests received so far, in order.
func (g *Gemini) Requests() []GeminiRequest { return g.rec.all() }

// Refusals returns the errors the server answered requests with, in
// order: none when every request passed its checks.
func (g *Gemini) Refusals() []string {
	return g.rec.refusals(func(r GeminiRequest) string { return r.Error })
}

// Signature is the thought signature the server gives (and takes) for a
// function call of model.
func (g *Gemini) Signature(model, name string) string {
	return base64.StdEncoding.EncodeToString([]byte(g.signer.sign(model, name)))
}

func googleFail(w http.ResponseWriter, status int, state, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": status, "message": msg, "status": state}})
}

func (g *Gemini) serve(w http.ResponseWriter, r *http.Request) {
	if g.vertex && r.URL.Path == "/token" {
		g.token(w, r)
		return
	}
	var model string
	var ok bool
	if g.vertex {
		prefix := fmt.Sprintf("/v1beta1/projects/%s/locations/%s/publishers/google/models/", g.project, g.region)
		model, ok = strings.CutPrefix(r.URL.Path, prefix)
		auth, _ := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		g.mu.Lock()
		valid := g.tokens[auth]
		g.mu.Unlock()
		if ok && !valid {
			googleFail(w, http.StatusUnauthorized, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected OAuth 2 access token.")
			return
		}
	} else {
		model, ok = strings.CutPrefix(r.URL.Path, "/v1/models/")
		if !ok {
			model, ok = strings.CutPrefix(r.URL.Path, "/v1beta/models/")
		}
		if ok && r.Header.Get("x-goog-api-key") != g.Key {
			googleFail(w, http.StatusBadRequest, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.")
			return
		}
	}
	model, stream := strings.CutSuffix(model, ":streamGenerateContent")
	if !ok || !stream || r.Method != http.MethodPost || r.URL.Query().Get("alt") != "sse" {
		googleFail(w, http.StatusNotFound, "NOT_FOUND", "not found: "+r.URL.Path)
		return
	}
	body, data, err := readJSON(r)
	if err != nil {
		googleFail(w, http.StatusBadRequest, "INVALID_ARGUMENT", "Invalid JSON payload received.")
		return
	}
	req := GeminiRequest{Path: r.URL.Path, Body: body}
	if msg := g.check(model, body); msg != "" {
		req.Status, req.Error = http.StatusBadRequest, msg
		g.rec.add(req, false)
		googleFail(w, http.StatusBadRequest, "INVALID_ARGUMENT", msg)
		return
	}
	req.Status = http.StatusOK
	n := g.rec.add(req, true)
	ans := g.script.Next(n, body)
	if f := ans.Fault; f != nil && !f.MidStream {
		if f.RetryAfter != "" {
			w.Header().Set("Retry-After", f.RetryAfter)
		}
		g.rec.setLast(func(r *GeminiRequest) { r.Status = f.Status })
		googleFail(w, f.Status, orDefault(f.Type, "INTERNAL"), f.Message)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	if ans.Raw != nil {
		w.Write(ans.Raw)
		return
	}
	thinking := false
	if gc, _ := body["generationConfig"].(map[string]any); gc != nil {
		if tc, _ := gc["thinkingConfig"].(map[string]any); tc != nil && tc["includeThoughts"] == true {
			thinking = true
		}
	}
	input := int64(len(data) / 4)
	chunks := g.chunks(model, thinking, input, ans)
	for i, c := range chunks {
		if ans.Cut > 0 && i == ans.Cut {
			flush(w)
			panic(http.ErrAbortHandler)
		}
		line, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\r\n\r\n", line)
	}
	flush(w)
}

// chunks is the stream of ans: thoughts, text in pieces, the function
// calls (the first signed), the usage on each, the finish on the last.
func (g *Gemini) chunks(model string, thinking bool, input int64, ans Answer) []map[string]any {
	var out []map[string]any
	usage := func(output, thoughts int64) map[string]any {
		return map[string]any{"promptTokenCount": input, "candidatesTokenCount": output, "thoughtsTokenCount": thoughts, "totalTokenCount": input + output + thoughts}
	}
	chunk := func(parts []any, finish string, output, thoughts int64) map[string]any {
		cand := map[string]any{"content": map[string]any{"role": "model", "parts": parts}, "index": 0}
		if finish != "" {
			cand["finishReason"] = finish
		}
		return map[string]any{"candidates": []any{cand}, "usageMetadata": usage(output, thoughts), "modelVersion": model, "responseId": "resp-test"}
	}
	var thoughts int64
	if thinking && ans.Thinking != "" {
		thoughts = int64(len(ans.Thinking)/4 + 5)
		out = append(out, chunk([]any{map[string]any{"text": ans.Thinking, "thought": true}}, "", 0, thoughts))
	}
	if ans.Text != "" {
		for _, p := range pieces(ans.Text, 3) {
			out = append(out, chunk([]any{map[string]any{"text": p}}, "", int64(len(p)/4), thoughts))
		}
	}
	if f := ans.Fault; f != nil && f.MidStream {
		out = append(out, map[string]any{"error": map[string]any{"code": 500, "message": f.Message, "status": orDefault(f.Type, "INTERNAL")}})
		return out
	}
	var parts []any
	for i, c := range ans.Calls {
		var args map[string]any
		json.Unmarshal([]byte(c.Args), &args)
		p := map[string]any{"functionCall": map[string]any{"name": c.Name, "args": args}}
		if i == 0 {
			p["thoughtSignature"] = g.Signature(model, c.Name)
		}
		parts = append(parts, p)
	}
	if len(parts) == 0 {
		parts = []any{map[string]any{"text": ""}}
	}
	out = append(out, chunk(parts, "STOP", int64(len(ans.Text)/4+20*len(ans.Calls)+1), thoughts))
	return out
}

func (g *Gemini) check(model string, body map[string]any) string {
	contents, _ := body["contents"].([]any)
	if len(contents) == 0 {
		return "* GenerateContentRequest.contents: contents is not specified"
	}
	lastPrompt := -1
	for i, raw := range contents {
		c, _ := raw.(map[string]any)
		if c["role"] != "user" {
			continue
		}
		for _, p := range list2(c["parts"]) {
			if pm, _ := p.(map[string]any); pm["text"] != nil {
				lastPrompt = i
			}
		}
	}
	pendingCalls := 0
	for i, raw := range contents {
		c, _ := raw.(map[string]any)
		role, _ := c["role"].(string)
		parts := list2(c["parts"])
		if len(parts) == 0 {
			return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts: contents.parts must not be empty.", i)
		}
		calls, responses := 0, 0
		for j, p := range parts {
			pm, _ := p.(map[string]any)
			if fc, ok := pm["functionCall"].(map[string]any); ok {
				if role != "model" {
					return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts[%d]: a function call must be in a model turn", i, j)
				}
				if calls == 0 && i > lastPrompt {
					name, _ := fc["name"].(string)
					sig, _ := pm["thoughtSignature"].(string)
					if sig != g.Signature(model, name) {
						return fmt.Sprintf("Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `default_api:%s` , position %d.", name, j+1)
					}
				}
				calls++
			}
			if _, ok := pm["functionResponse"]; ok {
				responses++
			}
			if t, ok := pm["text"].(string); ok && strings.TrimSpace(t) == "" && role == "user" {
				return fmt.Sprintf("* GenerateContentRequest.contents[%d].parts[%d].data: required oneof field 'data' must have one initialized field", i, j)
			}
		}
		if pendingCalls > 0 && responses != pendingCalls {
			return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
		}
		if pendingCalls == 0 && responses > 0 {
			return "Please ensure that function response turn comes immediately after a function call turn."
		}
		pendingCalls = calls
	}
	if pendingCalls > 0 {
		return "Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn."
	}
	return ""
}

// token is the OAuth 2 token endpoint of a service account: a JWT bearer
// assertion signed with the account's key gets an access token.
func (g *Gemini) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	assertion := r.Form.Get("assertion")
	if r.Form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || !g.validJWT(assertion) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		json.NewEncoder(w).Encode(map[string]any{"error": "invalid_grant", "error_description": "Invalid JWT Signature."})
		return
	}
	tok := "ya29.test-" + base64.RawURLEncoding.EncodeToString([]byte(url.QueryEscape(assertion[len(assertion)-12:])))
	g.mu.Lock()
	g.tokens[tok] = true
	g.TokenRequests++
	g.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "expires_in": 3600, "token_type": "Bearer"})
}

func (g *Gemini) validJWT(jwt string) bool {
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		return false
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		return false
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if rsa.VerifyPKCS1v15(&g.key.PublicKey, crypto.SHA256, sum[:], sig) != nil {
		return false
	}
	claims, err := base64.RawURLEncoding.DecodeString(parts[1])
	var c struct {
		Iss string `json:"iss"`
	}
	return err == nil && json.Unmarshal(claims, &c) == nil && c.Iss == g.serviceAccountID
}
