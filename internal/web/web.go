// Package web is the page `podcode serve` serves at `/`: sessions, a chat
// that streams the answer and answers permission questions, each turn's
// hooks as a timeline, and the loaded plugins. It is plain HTML, CSS and
// JavaScript modules embedded in the binary (no build step).
//
// The page and its files carry no data, so they are served without a
// token: a browser cannot send an Authorization header on its first GET.
// The page asks for the token (when the API wants one), keeps it in
// sessionStorage and sends it as `Authorization: Bearer` on every request,
// /events included (read with fetch() streaming, since EventSource cannot
// set headers): a token never appears in a URL. A strict
// Content-Security-Policy allows only the page's own files and requests to
// its own origin.
package web

import (
	"embed"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
)

//go:embed static
var files embed.FS

// Prefix is where the page's files are served; the page itself is at "/".
const Prefix = "/ui/"

// CSP is the Content-Security-Policy of every answer of Handler: scripts,
// styles and requests only from the page's origin, no inline script or
// style markup, no frames, no plugins, no form posts elsewhere.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Handler serves the page at "/" and its files under Prefix. Mount it
// for GET / and GET Prefix, outside the API's token check.
func Handler() http.Handler {
	static, _ := fs.Sub(files, "static") // cannot fail: the directory is embedded
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", CSP)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("X-Frame-Options", "DENY")
		// The files change with the binary: always revalidate.
		h.Set("Cache-Control", "no-cache")
		name := "index.html"
		if r.URL.Path != "/" {
			rest, ok := strings.CutPrefix(r.URL.Path, Prefix)
			if !ok || rest == "" || path.Clean(rest) != rest {
				http.NotFound(w, r)
				return
			}
			name = rest
		}
		data, err := fs.ReadFile(static, name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		h.Set("Content-Type", contentType(name))
		h.Set("Content-Length", strconv.Itoa(len(data)))
		w.Write(data)
	})
}

// contentType is the type of one of the page's files, by its extension;
// module scripts must be served as JavaScript.
func contentType(name string) string {
	switch path.Ext(name) {
	case ".html":
		return "text/html; charset=utf-8"
	case ".js":
		return "text/javascript; charset=utf-8"
	case ".css":
		return "text/css; charset=utf-8"
	case ".svg":
		return "image/svg+xml"
	}
	return "application/octet-stream"
}
