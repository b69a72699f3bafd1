package httpjson

import (
	"errors"
	"net/http/httptest"
	"testing"
)

func TestWriteAndError(t *testing.T) {
	rec := httptest.NewRecorder()
	Write(rec, 201, map[string]any{"a": "<b>"})
	if rec.Code != 201 || rec.Header().Get("Content-Type") != "application/json" || rec.Body.String() != "{\"a\":\"<b>\"}\n" {
		t.Errorf("%d %q %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
	}
	rec = httptest.NewRecorder()
	Error(rec, 404, errors.New("no session x"))
	if rec.Code != 404 || rec.Body.String() != "{\"error\":\"no session x\"}\n" {
		t.Errorf("%d %q", rec.Code, rec.Body.String())
	}
}
