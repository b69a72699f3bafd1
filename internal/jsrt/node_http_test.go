package jsrt

import (
	"compress/gzip"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// nodeTestServers starts the loopback servers the scripts of testdata/node
// talk to (node and Podcode alike), for the whole of TestNodeCompat, and
// returns their addresses as the variables the scripts read.
func nodeTestServers(t *testing.T) map[string]string {
	h := nodeTestHandler()
	plain := httptest.NewServer(h)
	t.Cleanup(plain.Close)
	tls := httptest.NewUnstartedServer(h)
	tls.Config.ErrorLog = log.New(io.Discard, "", 0) // the scripts fail handshakes on purpose
	tls.StartTLS()
	t.Cleanup(tls.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: tls.Certificate().Raw})
	// an address nothing listens on: one just closed
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String()
	l.Close()
	return map[string]string{"TEST_HTTP_URL": plain.URL, "TEST_HTTPS_URL": tls.URL, "TEST_HTTPS_CA": string(ca), "TEST_REFUSED_URL": refused}
}

// nodeTestHandler serves what the http scripts ask for:
//
//	/echo          the request as received, as JSON (headers sorted)
//	/status?code=  that status, with "status <code>" as the body
//	/headers       repeated and cased headers, Set-Cookie twice
//	/redirect      302 to /echo
//	/chunked       three chunks, flushed one at a time
//	/big?n=&cl=1   n bytes (i%251), with a Content-Length if cl
//	/slow?ms=      the answer after ms milliseconds
//	/stall         the headers and "part", then nothing until the client goes
//	/gzip          a gzip body with its Content-Encoding
//	/hangup        the connection closed without an answer
func nodeTestHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var headers []string
		for k, vs := range r.Header {
			for _, v := range vs {
				headers = append(headers, k+": "+v)
			}
		}
		slices.Sort(headers)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"method": r.Method, "url": r.URL.RequestURI(), "proto": r.Proto, "host": r.Host, "headers": headers,
			"contentLength": r.ContentLength, "transferEncoding": r.TransferEncoding, "body": string(body),
		})
	})
	mux.HandleFunc("/status", func(w http.ResponseWriter, r *http.Request) {
		code, _ := strconv.Atoi(r.URL.Query().Get("code"))
		w.WriteHeader(code)
		fmt.Fprintf(w, "status %d", code)
	})
	mux.HandleFunc("/headers", func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h["x-lower"] = []string{"as written"}
		h.Add("X-Dup", "a")
		h.Add("X-Dup", "b")
		h.Add("Set-Cookie", "a=1")
		h.Add("Set-Cookie", "b=2")
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Cache-Control", "no-store")
		fmt.Fprint(w, "headers")
	})
	mux.HandleFunc("/redirect", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "/echo")
		w.WriteHeader(http.StatusFound)
		fmt.Fprint(w, "moved")
	})
	mux.HandleFunc("/chunked", func(w http.ResponseWriter, r *http.Request) {
		for _, part := range []string{"one,", "two,", "three"} {
			fmt.Fprint(w, part)
			w.(http.Flusher).Flush()
			time.Sleep(5 * time.Millisecond)
		}
	})
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		if r.URL.Query().Get("cl") != "" {
			w.Header().Set("Content-Length", strconv.Itoa(n))
		}
		buf := make([]byte, 32<<10)
		for i := 0; i < n; {
			m := min(len(buf), n-i)
			for j := range m {
				buf[j] = byte((i + j) % 251)
			}
			if _, err := w.Write(buf[:m]); err != nil {
				return
			}
			i += m
		}
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		ms, _ := strconv.Atoi(r.URL.Query().Get("ms"))
		select {
		case <-time.After(time.Duration(ms) * time.Millisecond):
			fmt.Fprint(w, "slow")
		case <-r.Context().Done():
		}
	})
	mux.HandleFunc("/stall", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "part")
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(time.Minute):
		}
	})
	mux.HandleFunc("/gzip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		z := gzip.NewWriter(w)
		fmt.Fprint(z, strings.Repeat("zipped ", 10))
		z.Close()
	})
	mux.HandleFunc("/hangup", func(w http.ResponseWriter, r *http.Request) {
		conn, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			conn.Close()
		}
	})
	return mux
}
