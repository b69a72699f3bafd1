// Package httpjson writes the API's JSON answers, the one shape every
// endpoint of the server (webhooks included) uses: a value as JSON, or
// {"error": "..."}.
package httpjson

import (
	"encoding/json"
	"net/http"
)

// Write answers status with v as JSON (HTML characters left as they are).
func Write(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(v)
}

// Error answers status with {"error": err's text}.
func Error(w http.ResponseWriter, status int, err error) {
	Write(w, status, map[string]any{"error": err.Error()})
}
