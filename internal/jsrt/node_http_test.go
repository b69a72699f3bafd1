package jsrt

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/dop251/goja"
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

// nodeHTTPRuntime is a runtime whose global http and fs are node:http and
// node:fs, with the scripts src.
func nodeHTTPRuntime(t *testing.T, src string, opts ...func(*Options)) *Runtime {
	t.Helper()
	r, _ := newRT(t, "", opts...)
	err := r.Do(context.Background(), func(vm *goja.Runtime) error {
		for _, m := range []string{"http", "fs", "stream"} {
			v, _, err := r.Builtin(m)
			if err != nil {
				return err
			}
			vm.Set(m, v)
		}
		_, err := vm.RunString(src)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// A response body is streamed: one larger than fetch reads whole (whose
// limit stands) arrives in chunks of at most httpChunk, and a plugin may
// write it to a file without holding it.
func TestNodeHTTPStreamsLargeBodies(t *testing.T) {
	srv := httptest.NewServer(nodeTestHandler())
	defer srv.Close()
	r := nodeHTTPRuntime(t, `
		function download(url) {
			return new Promise((resolve, reject) => {
				http.get(url, (res) => {
					let n = 0, most = 0, chunks = 0;
					res.on("data", (c) => { n += c.length; chunks++; most = Math.max(most, c.length); });
					res.on("end", () => resolve({ n, most, chunks }));
					res.on("error", reject);
				}).on("error", reject);
			});
		}
		function save(url) {
			return new Promise((resolve, reject) => {
				http.get(url, (res) => {
					stream.pipeline(res, fs.createWriteStream("big.bin"), (e) => e ? reject(e) : resolve(fs.statSync("big.bin").size));
				}).on("error", reject);
			});
		}
		async function viaFetch(url) { try { await fetch(url); return "no error"; } catch (e) { return e.message; } }`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n := 24 << 20
	url := fmt.Sprintf("%s/big?cl=1&n=%d", srv.URL, n)
	v, err := callGlobal(r, ctx, "download", url)
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["n"] != float64(n) || m["most"].(float64) > httpChunk || m["chunks"].(float64) < float64(n/httpChunk) {
		t.Errorf("download = %v, want %d bytes in chunks of at most %d", m, n, httpChunk)
	}
	if v, err := callGlobal(r, ctx, "save", url); err != nil || v != float64(n) {
		t.Errorf("save = %v, %v; want %d", v, err, n)
	}
	if v, _ := callGlobal(r, ctx, "viaFetch", url); !strings.Contains(fmt.Sprint(v), "response body larger than") {
		t.Errorf("fetch of %d bytes = %v, want its limit", n, v)
	}
}

// node:http's requests share fetch's pool: at most MaxFetches exchanges
// at once, a response not read to its end holding its place; the others
// wait their turn, and all complete.
func TestNodeHTTPWaitsItsTurn(t *testing.T) {
	g := newGate(t)
	r := nodeHTTPRuntime(t, `
		var done = 0, failed = [];
		function start(url, n) {
			for (let i = 0; i < n; i++) {
				const get = i % 2 ? fetch(url).then((r) => r.text()) : new Promise((resolve, reject) => {
					http.get(url, (res) => { res.resume(); res.on("end", resolve); }).on("error", reject);
				});
				get.then(() => { done++; }, (e) => { failed.push(e.message); });
			}
		}
		function count() { return { done, failed: failed.length, first: failed[0] || "" }; }`)
	n := 3 * MaxFetches
	if _, err := callGlobal(r, context.Background(), "start", g.URL, n); err != nil {
		t.Fatal(err)
	}
	g.expectAtOnce(t, MaxFetches)
	g.release()
	awaitDone(t, r, n, 30*time.Second)
	g.expectMost(t, MaxFetches)
}

// An exchange gives its place in the pool back however it ends: its
// response destroyed unread, its request destroyed, a refused connection,
// or, for a response nobody reads, its time (the fetch timeout) up, with
// an ETIMEDOUT that says which bound it met.
func TestNodeHTTPFreesItsPlace(t *testing.T) {
	srv := httptest.NewServer(nodeTestHandler())
	defer srv.Close()
	r := nodeHTTPRuntime(t, `
		const got = (url) => new Promise((resolve, reject) => http.get(url, resolve).on("error", reject));
		async function leave(url, n, how) {
			for (let i = 0; i < n; i++) {
				if (how === "refused") { await new Promise((r) => http.get(url, () => {}).on("error", r)); continue; }
				const res = await got(url);
				if (how === "destroy response") res.destroy();
				if (how === "destroy request") res.req.destroy();
				// "unread": neither read nor destroyed
			}
		}
		async function then(url) {
			const res = await got(url);
			let s = "";
			res.setEncoding("utf8");
			res.on("data", (c) => { s += c; });
			await new Promise((r) => res.on("end", r));
			return s;
		}
		function late(url) {
			return got(url).then((res) => new Promise((resolve) => {
				setTimeout(() => {
					res.on("error", (e) => resolve(e.code + ": " + e.message));
					res.req.on("error", (e) => resolve("request " + e.code + ": " + e.message));
					res.on("end", () => resolve("read whole"));
					res.resume();
				}, 600);
			}));
		}`, func(o *Options) { o.Fetch.Timeout = 300 * time.Millisecond })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	n := MaxFetches + 2
	for _, how := range []string{"destroy response", "destroy request", "refused", "unread"} {
		url := srv.URL + "/stall"
		if how == "refused" {
			l, _ := net.Listen("tcp", "127.0.0.1:0")
			url = "http://" + l.Addr().String()
			l.Close()
		}
		if _, err := callGlobal(r, ctx, "leave", url, n, how); err != nil {
			t.Fatalf("%s: %v", how, err)
		}
		if v, err := callGlobal(r, ctx, "then", srv.URL+"/chunked"); err != nil || v != "one,two,three" {
			t.Errorf("after %d exchanges ended by %s: %v, %v", n, how, v, err)
		}
	}
	want := "request ETIMEDOUT: the request to 127.0.0.1 took longer than 300ms, the most a plugin's request may take, its body included"
	if v, err := callGlobal(r, ctx, "late", srv.URL+"/stall"); err != nil || v != want {
		t.Errorf("a response read past its time: %v, %v; want %q", v, err, want)
	}
}

// The request bytes handed to Go and not sent yet count against
// MaxHeldBytes, whole or streamed: past it the request fails with an
// error that says so, and the runtime goes on.
func TestNodeHTTPHoldsBoundedRequestBodies(t *testing.T) {
	srv := httptest.NewServer(nodeTestHandler())
	defer srv.Close()
	r := nodeHTTPRuntime(t, `
		function post(url, streamed) {
			return new Promise((resolve) => {
				const req = http.request(url, { method: "POST" }, (res) => { res.resume(); res.on("end", () => resolve("status " + res.statusCode)); });
				req.on("error", (e) => resolve("error: " + e.message));
				const big = Buffer.alloc(MaxHeld + 1);
				if (streamed) { req.write("a"); req.write(big); req.end(); } else req.end(big);
			});
		}`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r.Do(ctx, func(vm *goja.Runtime) error { vm.Set("MaxHeld", MaxHeldBytes); return nil })
	for _, streamed := range []bool{false, true} {
		v, err := callGlobal(r, ctx, "post", srv.URL+"/echo", streamed)
		if err != nil || !strings.Contains(fmt.Sprint(v), "the most one plugin may hold is 64 MiB") {
			t.Errorf("streamed %v: %v, %v", streamed, v, err)
		}
	}
	if v, err := callGlobal(r, ctx, "post", srv.URL+"/echo", false); err != nil || !strings.Contains(fmt.Sprint(v), "64 MiB") {
		t.Errorf("again: %v, %v", v, err)
	}
	err := r.Do(ctx, func(*goja.Runtime) error {
		if r.host.held != 0 {
			t.Errorf("%d bytes still counted as held", r.host.held)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Closing the runtime cancels its exchanges: the server sees the client
// go at once.
func TestNodeHTTPStopsWithTheRuntime(t *testing.T) {
	gone := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		fmt.Fprint(w, "part")
		w.(http.Flusher).Flush()
		<-req.Context().Done()
		close(gone)
	}))
	defer srv.Close()
	r := nodeHTTPRuntime(t, `
		function start(url) { return new Promise((resolve) => http.get(url, (res) => { res.once("data", () => resolve("reading")); })); }`)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if v, err := callGlobal(r, ctx, "start", srv.URL); err != nil || v != "reading" {
		t.Fatalf("start = %v, %v", v, err)
	}
	r.Close()
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the server still serves a closed runtime's request")
	}
}

// Go's errors are named as Node names them.
func TestClassifyHTTPError(t *testing.T) {
	for _, c := range []struct {
		err        error
		code, want string
	}{
		{&net.DNSError{Err: "no such host", Name: "nowhere.invalid", IsNotFound: true}, "ENOTFOUND", "getaddrinfo ENOTFOUND nowhere.invalid"},
		{&net.DNSError{Err: "timeout", Name: "slow.example", IsTimeout: true}, "EAI_AGAIN", "getaddrinfo EAI_AGAIN slow.example"},
		{&net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 81}, Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, "ECONNREFUSED", "connect ECONNREFUSED 10.0.0.1:81"},
		{&net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(10, 0, 0, 1), Port: 81}, Err: os.NewSyscallError("connect", syscall.EHOSTUNREACH)}, "EHOSTUNREACH", "connect EHOSTUNREACH 10.0.0.1:81"},
		{&url.Error{Op: "Get", URL: "http://x/", Err: io.EOF}, "ECONNRESET", "socket hang up"},
		{&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, "ECONNRESET", "read ECONNRESET"},
		{context.DeadlineExceeded, "ETIMEDOUT", "the request to x took longer than 1m0s, the most a plugin's request may take, its body included"},
		{errors.New("something else"), "", "something else"},
	} {
		e := classifyHTTPError(c.err, "x:80", time.Minute)
		if e.code != c.code || e.message != c.want {
			t.Errorf("%v: %q %q, want %q %q", c.err, e.code, e.message, c.code, c.want)
		}
	}
}
