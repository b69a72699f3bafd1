package web

import (
	"io/fs"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// Every file of the page is served with its type (a module script served
// as anything else does not run) and the page's security headers.
func TestFilesAndHeaders(t *testing.T) {
	h := Handler()
	names, _ := fs.Glob(files, "static/*")
	if len(names) < 5 {
		t.Fatalf("embedded files: %v", names)
	}
	for _, name := range names {
		path := Prefix + strings.TrimPrefix(name, "static/")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 200 || rec.Body.Len() == 0 || contentType(name) == "application/octet-stream" {
			t.Errorf("%s: %d, %q", path, rec.Code, rec.Header().Get("Content-Type"))
		}
		if rec.Header().Get("Content-Security-Policy") != CSP || rec.Header().Get("Referrer-Policy") != "no-referrer" {
			t.Errorf("%s: headers %v", path, rec.Header())
		}
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), `<script type="module" src="/ui/app.js">`) {
		t.Errorf("/: %d", rec.Code)
	}
	if strings.Contains(CSP, "unsafe") {
		t.Errorf("the policy allows unsafe code: %s", CSP)
	}
}

// Only "/" and the embedded files are served: no listing, no path that
// leaves the page's folder.
func FuzzHandlerPath(f *testing.F) {
	for _, s := range []string{"/", "/ui/", "/ui/app.js", "/ui/../web.go", "/ui//app.js", "/ui/./app.js", "/ui/static/app.js", "/x", "/ui/%2e%2e/web.go"} {
		f.Add(s)
	}
	h := Handler()
	f.Fuzz(func(t *testing.T, path string) {
		req, err := http.NewRequest("GET", "http://x/", nil)
		if err != nil {
			t.Skip()
		}
		req.URL.Path = path
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != 200 {
			return
		}
		if path == "/" {
			return
		}
		name, ok := strings.CutPrefix(path, Prefix)
		if !ok {
			t.Fatalf("%q served", path)
		}
		if _, err := fs.ReadFile(files, "static/"+name); err != nil || strings.Contains(name, "/") {
			t.Fatalf("%q served, not one of the page's files", path)
		}
	})
}
