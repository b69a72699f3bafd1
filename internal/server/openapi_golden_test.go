package server

import (
	"bytes"
	"flag"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/openapi.json from the route table and the Go types")

// goldenOpenAPI is the generated document, kept in the repository so that
// a change of the API shows in review as a change of this file, and a
// client can be generated without running a server.
var goldenOpenAPI = filepath.Join("testdata", "openapi.json")

// testdata/openapi.json is the document the server serves; go test
// -run TestOpenAPIGoldenUpToDate -update rewrites it.
func TestOpenAPIGoldenUpToDate(t *testing.T) {
	doc := openAPIBytes(t)
	if *update {
		if err := os.WriteFile(goldenOpenAPI, doc, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	golden, err := os.ReadFile(goldenOpenAPI)
	if err != nil {
		t.Fatalf("%v (go test ./internal/server -run TestOpenAPIGoldenUpToDate -update writes it)", err)
	}
	if !bytes.Equal(golden, doc) {
		t.Errorf("%s is not the generated document: run go test ./internal/server -run TestOpenAPIGoldenUpToDate -update, and review the diff", goldenOpenAPI)
	}
}

// GET /openapi.json serves the generated document, the same bytes each
// time.
func TestOpenAPIServedIsGenerated(t *testing.T) {
	s := &Server{}
	for range 2 {
		rec := httptest.NewRecorder()
		s.serveOpenAPI(rec, httptest.NewRequest("GET", "/openapi.json", nil))
		if rec.Code != 200 || rec.Header().Get("Content-Type") != "application/json" || !bytes.Equal(rec.Body.Bytes(), openAPIBytes(t)) {
			t.Fatalf("%d %s: %.200s", rec.Code, rec.Header().Get("Content-Type"), rec.Body)
		}
	}
}

// BenchmarkOpenAPIGenerate is the cost of generating the document, paid
// once per process on the first GET /openapi.json.
func BenchmarkOpenAPIGenerate(b *testing.B) {
	eps := append((&Server{}).endpoints(), webhookEndpoint)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := generateOpenAPI(eps); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenAPIServe is the cost of one GET /openapi.json once the
// document is generated.
func BenchmarkOpenAPIServe(b *testing.B) {
	s := &Server{}
	if _, err := openAPIDocument(); err != nil {
		b.Fatal(err)
	}
	req := httptest.NewRequest("GET", "/openapi.json", nil)
	b.ReportAllocs()
	for b.Loop() {
		rec := httptest.NewRecorder()
		s.serveOpenAPI(rec, req)
	}
}
