package jsrt

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/dop251/goja"
	"golang.org/x/sys/unix"
)

// The Go half of node:http and node:https (node/internal.http.js): a
// client over Go's net/http that streams both ways. A request's body is
// either whole, handed over with the request (end() before any write: a
// Content-Length), or written chunk by chunk into the request as it is
// sent (chunked); a response's body is read in chunks of at most
// httpChunk, each only when the plugin's stream asks for more, so Go holds
// one chunk per response at most, however large the body.
//
// The bounds are fetch's (web.go, hostio.go): an exchange holds a place in
// the runtime's fetch pool (MaxFetches at once, the others wait with no
// goroutine and no connection) from its start until its response is read
// to the end, fails or is destroyed; it lasts at most the fetch client's
// timeout (FetchOptions.Timeout, 60 s by default), its body included; the
// request bytes handed to Go and not yet sent count against MaxHeldBytes.
//
// Unlike fetch, as Node's http: redirects are returned, not followed;
// nothing is added to the request but Host and what the script sets (no
// User-Agent, no Accept-Encoding), and a compressed body is returned as it
// came; HTTP/1.1 only.

// httpChunk is the most one read of a response body returns.
const httpChunk = 64 << 10

// httpExchange is one request and its response. Loop goroutine only.
type httpExchange struct {
	id       int64
	host     string // the URL's, for errors
	ctx      context.Context
	cancel   context.CancelFunc
	pw       *io.PipeWriter // the streamed request body; nil for a whole one
	body     io.ReadCloser  // the response body, once its head came
	trailer  http.Header
	eof      bool // the body's last chunk was returned
	held     int  // bytes of a whole request body not yet sent
	admitted bool // it holds a place in the fetch pool
	done     bool // over: nothing more starts
	released bool // its place in the pool is given back
	inflight int  // goroutines under way for it
	waiting  []httpWrite
	own      *http.Transport // a transport of its own (TLS options), closed with it
}

// httpWrite is a chunk of a streamed body, waiting or being written.
type httpWrite struct {
	data            []byte
	resolve, reject func(any) error
}

type httpHost struct {
	r         *Runtime
	exchanges map[int64]*httpExchange
	client    *http.Client  // the fetch client's transport, without redirects
	timeout   time.Duration // the fetch client's: the longest an exchange lasts
	// expired are the exchanges over past their time whose response the
	// script has not read since, by id: its host, for the error it reads.
	// A script that never reads them again leaves a few, cleared past
	// maxExpired.
	expired map[int64]string
}

const maxExpired = 1024

func init() {
	nodeHosts["internal/http"] = func(r *Runtime) (*goja.Object, error) {
		h := &httpHost{r: r, exchanges: map[int64]*httpExchange{}, expired: map[int64]string{}}
		base := r.host.httpClient
		tr, err := nodeTransport(base.Transport, false)
		if err != nil {
			return nil, err
		}
		// The exchange's context bounds it, not the client: an exchange whose
		// response nobody reads frees its place in the pool when its time
		// is up.
		h.client = &http.Client{Transport: tr, CheckRedirect: noRedirects}
		h.timeout = base.Timeout
		o := r.vm.NewObject()
		o.Set("start", h.start)
		o.Set("write", h.write)
		o.Set("end", h.end)
		o.Set("read", h.read)
		o.Set("abort", h.abort)
		return o, nil
	}
}

func noRedirects(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// nodeTransports are the transports of node:http, by the fetch transport
// each is made from: shared by the runtimes, as their connections are.
var nodeTransports sync.Map // nodeTransportKey → *http.Transport

type nodeTransportKey struct {
	base     *http.Transport
	insecure bool
}

// nodeTransport is base as Node's client behaves: no compression asked
// for or undone, HTTP/1.1 only, and, if insecure, no certificate check
// (rejectUnauthorized: false). A transport other than an *http.Transport
// (one a test or an embedder gave) is used as it is.
func nodeTransport(base http.RoundTripper, insecure bool) (http.RoundTripper, error) {
	var bt *http.Transport
	switch t := base.(type) {
	case nil:
		bt = http.DefaultTransport.(*http.Transport)
	case *http.Transport:
		bt = t
	default:
		if insecure {
			return nil, errors.New("rejectUnauthorized: false is not available with this server's HTTP client")
		}
		return base, nil
	}
	key := nodeTransportKey{bt, insecure}
	if t, ok := nodeTransports.Load(key); ok {
		return t.(*http.Transport), nil
	}
	t := bt.Clone()
	t.DisableCompression = true
	t.ForceAttemptHTTP2 = false
	t.Protocols = new(http.Protocols)
	t.Protocols.SetHTTP1(true)
	if insecure {
		if t.TLSClientConfig == nil {
			t.TLSClientConfig = &tls.Config{}
		}
		t.TLSClientConfig.InsecureSkipVerify = true
	}
	v, _ := nodeTransports.LoadOrStore(key, t)
	return v.(*http.Transport), nil
}

// tlsClient is the client of a request with TLS options of its own (ca,
// cert and key, servername): a transport of its own (returned too), whose
// idle connection is closed once the request is over.
func (h *httpHost) tlsClient(opts *goja.Object) (*http.Client, *http.Transport, error) {
	str := func(name string) string {
		v := opts.Get(name)
		if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
			return ""
		}
		return v.String()
	}
	insecure := opts.Get("insecure") != nil && opts.Get("insecure").ToBoolean()
	ca, cert, key, server := str("ca"), str("cert"), str("key"), str("servername")
	if ca == "" && cert == "" && key == "" && server == "" {
		if !insecure {
			return h.client, nil, nil
		}
		tr, err := nodeTransport(h.r.host.httpClient.Transport, true)
		if err != nil {
			return nil, nil, err
		}
		return &http.Client{Transport: tr, CheckRedirect: noRedirects}, nil, nil
	}
	tr, err := nodeTransport(h.r.host.httpClient.Transport, insecure)
	if err != nil {
		return nil, nil, err
	}
	ht, ok := tr.(*http.Transport)
	if !ok {
		return nil, nil, errors.New("TLS options (ca, cert, key, servername) are not available with this server's HTTP client")
	}
	t := ht.Clone()
	if t.TLSClientConfig == nil {
		t.TLSClientConfig = &tls.Config{}
	}
	if ca != "" {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM([]byte(ca)) {
			return nil, nil, errors.New("https: no certificate could be read from the ca option (PEM expected)")
		}
		t.TLSClientConfig.RootCAs = pool
	}
	if cert != "" || key != "" {
		pair, err := tls.X509KeyPair([]byte(cert), []byte(key))
		if err != nil {
			return nil, nil, fmt.Errorf("https: the cert and key options: %w", err)
		}
		t.TLSClientConfig.Certificates = []tls.Certificate{pair}
	}
	if server != "" {
		t.TLSClientConfig.ServerName = server
	}
	return &http.Client{Transport: t, CheckRedirect: noRedirects}, t, nil
}

// start begins a request: rawURL, method, headers as [name, value] pairs,
// body (bytes, or null to stream it with write and end), TLS options. It
// returns [id, a promise of the response's head].
func (h *httpHost) start(call goja.FunctionCall) goja.Value {
	r := h.r
	vm := r.vm
	rawURL, method := call.Argument(0).String(), call.Argument(1).String()
	var pairs [][]string
	if err := vm.ExportTo(call.Argument(2), &pairs); err != nil {
		panic(vm.NewTypeError("http: headers must be [name, value] pairs"))
	}
	streamed := goja.IsNull(call.Argument(3)) || goja.IsUndefined(call.Argument(3))
	var whole []byte
	if !streamed {
		whole = r.argBytes(call.Argument(3))
	}
	client := h.client
	var own *http.Transport
	if o, ok := call.Argument(4).(*goja.Object); ok {
		c, t, err := h.tlsClient(o)
		if err != nil {
			panic(vm.NewGoError(err))
		}
		client, own = c, t
	}

	ctx, cancel := context.WithCancel(context.Background())
	if h.timeout > 0 {
		ctx, cancel = context.WithTimeout(context.Background(), h.timeout)
	}
	ex := &httpExchange{ctx: ctx, cancel: cancel, own: own}
	var body io.Reader
	if streamed {
		pr, pw := io.Pipe()
		ex.pw, body = pw, pr
	} else if len(whole) > 0 {
		body = bytes.NewReader(whole)
	}
	req, err := http.NewRequestWithContext(ctx, method, rawURL, body)
	if err != nil {
		cancel()
		panic(vm.NewGoError(fmt.Errorf("http: %w", err)))
	}
	req.ContentLength = int64(len(whole))
	if streamed {
		req.ContentLength = -1
	}
	req.Header["User-Agent"] = []string{""} // none unless the script sets one, as Node
	for _, p := range pairs {
		if len(p) != 2 {
			continue
		}
		name, value := http.CanonicalHeaderKey(p[0]), p[1]
		switch name {
		case "Host":
			req.Host = value
			continue
		case "Content-Length":
			if n, err := strconv.ParseInt(strings.TrimSpace(value), 10, 64); err == nil && n >= 0 {
				req.ContentLength = n
				if n == 0 && streamed {
					req.Body = http.NoBody
				}
			}
			continue
		case "Transfer-Encoding":
			if strings.EqualFold(strings.TrimSpace(value), "chunked") {
				req.ContentLength = -1
			}
			continue
		case "Connection":
			if strings.EqualFold(strings.TrimSpace(value), "close") {
				req.Close = true
			}
		case "User-Agent":
			req.Header[name] = nil
		}
		req.Header[name] = append(req.Header[name], value)
	}

	if err := r.hold("http", len(whole)); err != nil {
		cancel()
		p, _, reject := vm.NewPromise()
		reject(vm.NewTypeError(err.Error()))
		return vm.ToValue([]any{0, p})
	}
	ex.held = len(whole) // held (hold) until sent
	ex.host = req.URL.Host

	r.host.nextFetch++
	ex.id = r.host.nextFetch
	h.exchanges[ex.id] = ex
	r.host.fetches[ex.id] = cancel // stopped with the runtime, as fetch's
	context.AfterFunc(ctx, func() {
		// past its time (or over already): its place in the pool is free
		r.enqueue(func() {
			if !ex.done {
				if len(h.expired) >= maxExpired {
					clear(h.expired)
				}
				h.expired[ex.id] = ex.host
				h.over(ex)
				r.drain()
			}
		})
	})

	p, resolve, reject := vm.NewPromise()
	host := req.URL.Host
	run := func() {
		ex.admitted = true
		if ex.done {
			h.settle(ex)
			return
		}
		ex.inflight++
		go func() {
			resp, err := client.Do(req)
			if !r.enqueue(func() {
				ex.inflight--
				h.unhold(ex)
				switch {
				case ex.done:
					if resp != nil {
						resp.Body.Close()
					}
					reject(h.overError(ex, host))
				case err != nil:
					reject(h.errorValue(err, host))
					h.over(ex)
				default:
					ex.body, ex.trailer = resp.Body, resp.Trailer
					resolve(h.head(resp))
				}
				h.settle(ex)
				r.drain()
			}) && resp != nil {
				resp.Body.Close()
			}
		}()
		for _, w := range ex.waiting {
			h.startWrite(ex, w)
		}
		ex.waiting = nil
	}
	if !r.host.fetchPool.admit(run) {
		reject(vm.NewGoError(r.host.fetchPool.refused()))
		h.over(ex)
	}
	return vm.ToValue([]any{ex.id, p})
}

// head is what the script sees of a response before its body.
func (h *httpHost) head(resp *http.Response) map[string]any {
	header := resp.Header
	if len(resp.TransferEncoding) > 0 {
		// Go moves it out of the header; a script reads it there
		header = header.Clone()
		header["Transfer-Encoding"] = []string{strings.Join(resp.TransferEncoding, ", ")}
	}
	var headers []string
	for _, k := range sortedHeaderKeys(header) {
		for _, v := range header[k] {
			headers = append(headers, k, v)
		}
	}
	return map[string]any{
		"status": resp.StatusCode, "statusText": strings.TrimSpace(strings.TrimPrefix(resp.Status, strconv.Itoa(resp.StatusCode))),
		"major": resp.ProtoMajor, "minor": resp.ProtoMinor, "headers": headers,
	}
}

func sortedHeaderKeys(h http.Header) []string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// write streams one chunk of the request's body; the promise settles once
// it is sent (or the exchange failed).
func (h *httpHost) write(id int64, chunk goja.Value) *goja.Promise {
	r := h.r
	p, resolve, reject := r.vm.NewPromise()
	ex := h.exchanges[id]
	if ex == nil || ex.done || ex.pw == nil {
		reject(h.errorValue(errHTTPAborted, ""))
		return p
	}
	data := r.argBytes(chunk)
	if err := r.hold("http", len(data)); err != nil {
		reject(r.vm.NewTypeError(err.Error()))
		return p
	}
	w := httpWrite{data: data, resolve: resolve, reject: reject}
	if ex.admitted {
		h.startWrite(ex, w)
	} else {
		ex.waiting = append(ex.waiting, w)
	}
	return p
}

func (h *httpHost) startWrite(ex *httpExchange, w httpWrite) {
	r := h.r
	ex.inflight++
	go func() {
		_, err := ex.pw.Write(w.data)
		r.enqueue(func() {
			ex.inflight--
			r.host.held -= int64(len(w.data))
			if err != nil {
				w.reject(h.errorValue(errHTTPAborted, ""))
			} else {
				w.resolve(goja.Undefined())
			}
			h.settle(ex)
			r.drain()
		})
	}()
}

// end ends a streamed request body.
func (h *httpHost) end(id int64) {
	if ex := h.exchanges[id]; ex != nil && ex.pw != nil {
		ex.pw.Close()
	}
}

// read returns the response body's next chunk (an ArrayBuffer), or, at
// its end, its trailers as [name, value…]; the exchange is over then.
func (h *httpHost) read(id int64) *goja.Promise {
	r := h.r
	p, resolve, reject := r.vm.NewPromise()
	ex := h.exchanges[id]
	if ex == nil || ex.body == nil {
		// over before the script read it all: past its time, or
		// destroyed (the script knows)
		host, expired := h.expired[id]
		delete(h.expired, id)
		if expired {
			reject(h.errorValue(context.DeadlineExceeded, host))
		} else {
			reject(h.errorValue(errHTTPAborted, ""))
		}
		return p
	}
	if ex.eof {
		resolve(h.trailers(ex))
		h.over(ex)
		return p
	}
	ex.inflight++
	body := ex.body
	go func() {
		buf := make([]byte, httpChunk)
		n, err := body.Read(buf)
		if n > 0 && n < len(buf)/2 {
			buf = append([]byte(nil), buf[:n]...) // do not keep 64 KiB for a few bytes
		}
		r.enqueue(func() {
			ex.inflight--
			switch {
			case ex.done && n == 0:
				reject(h.overError(ex, ex.host))
			case n > 0:
				ex.eof = err == io.EOF
				resolve(r.vm.NewArrayBuffer(buf[:n]))
			case err == io.EOF:
				resolve(h.trailers(ex))
				h.over(ex)
			case err != nil:
				reject(h.bodyError(err, ex.host))
				h.over(ex)
			default:
				resolve(r.vm.NewArrayBuffer(nil))
			}
			h.settle(ex)
			r.drain()
		})
	}()
	return p
}

func (h *httpHost) trailers(ex *httpExchange) goja.Value {
	var out []any
	for _, k := range sortedHeaderKeys(ex.trailer) {
		for _, v := range ex.trailer[k] {
			out = append(out, k, v)
		}
	}
	return h.r.vm.NewArray(out...)
}

// abort ends an exchange the script destroyed.
func (h *httpHost) abort(id int64) {
	delete(h.expired, id)
	if ex := h.exchanges[id]; ex != nil {
		h.over(ex)
	}
}

// over ends an exchange: its goroutines return, its connection closes.
func (h *httpHost) over(ex *httpExchange) {
	if ex.done {
		return
	}
	ex.done = true
	ex.cancel()
	if ex.pw != nil {
		ex.pw.CloseWithError(errHTTPAborted)
	}
	if ex.body != nil {
		ex.body.Close()
	}
	if !ex.admitted {
		for _, w := range ex.waiting {
			h.r.host.held -= int64(len(w.data))
			w.reject(h.errorValue(errHTTPAborted, ""))
		}
		ex.waiting = nil
		h.unhold(ex)
	}
	delete(h.exchanges, ex.id)
	delete(h.r.host.fetches, ex.id)
	h.settle(ex)
}

func (h *httpHost) unhold(ex *httpExchange) {
	h.r.host.held -= int64(ex.held)
	ex.held = 0
}

// settle gives the exchange's place in the pool back once it is over and
// none of its goroutines runs.
func (h *httpHost) settle(ex *httpExchange) {
	if ex.done && ex.inflight == 0 && ex.own != nil {
		ex.own.CloseIdleConnections()
	}
	if ex.done && ex.inflight == 0 && ex.admitted && !ex.released {
		ex.released = true
		h.r.host.fetchPool.finished(h.r.closing())
	}
}

var errHTTPAborted = errors.New("the request was aborted")

// overError is why an exchange that is over failed: past its time, or
// destroyed.
func (h *httpHost) overError(ex *httpExchange, host string) goja.Value {
	if errors.Is(ex.ctx.Err(), context.DeadlineExceeded) {
		return h.errorValue(context.DeadlineExceeded, host)
	}
	return h.errorValue(errHTTPAborted, host)
}

// httpError is a failed exchange as Node reports it.
type httpError struct {
	message, code string
	errno         int
	syscall       string
	address       string
	port          int
	hostname      string
	reason, host  string
}

// classifyHTTPError names err as Node's http client would: a refused
// connection, a name that does not resolve, a connection cut before the
// response ("socket hang up"), a certificate refused.
func classifyHTTPError(err error, host string, timeout time.Duration) *httpError {
	hostname := host
	if h, _, splitErr := net.SplitHostPort(host); splitErr == nil {
		hostname = h
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		if dnsErr.Name != "" {
			hostname = dnsErr.Name
		}
		if dnsErr.IsNotFound {
			return &httpError{message: "getaddrinfo ENOTFOUND " + hostname, code: "ENOTFOUND", errno: -3008, syscall: "getaddrinfo", hostname: hostname}
		}
		return &httpError{message: "getaddrinfo EAI_AGAIN " + hostname, code: "EAI_AGAIN", errno: -3001, syscall: "getaddrinfo", hostname: hostname}
	}
	var errno syscall.Errno
	var opErr *net.OpError
	if errors.As(err, &opErr) && opErr.Op == "dial" && errors.As(err, &errno) {
		e := &httpError{code: unix.ErrnoName(errno), errno: -int(errno), syscall: "connect"}
		addr := hostname
		if opErr.Addr != nil {
			addr = opErr.Addr.String()
			if a, p, err := net.SplitHostPort(addr); err == nil {
				e.address = a
				e.port, _ = strconv.Atoi(p)
			}
		}
		e.message = "connect " + e.code + " " + addr
		return e
	}
	if errors.Is(err, errHTTPAborted) {
		return &httpError{message: "socket hang up", code: "ECONNRESET"}
	}
	var unknown x509.UnknownAuthorityError
	if errors.As(err, &unknown) {
		if c := unknown.Cert; c != nil && bytes.Equal(c.RawIssuer, c.RawSubject) {
			return &httpError{message: "self-signed certificate", code: "DEPTH_ZERO_SELF_SIGNED_CERT"}
		}
		return &httpError{message: "unable to verify the first certificate", code: "UNABLE_TO_VERIFY_LEAF_SIGNATURE"}
	}
	var hostErr x509.HostnameError
	if errors.As(err, &hostErr) && hostErr.Certificate != nil {
		c := hostErr.Certificate
		var names []string
		for _, d := range c.DNSNames {
			names = append(names, "DNS:"+d)
		}
		for _, ip := range c.IPAddresses {
			names = append(names, "IP Address:"+expandIP(ip))
		}
		reason := "Host: " + hostErr.Host + ". is not in the cert's altnames: " + strings.Join(names, ", ")
		if net.ParseIP(hostErr.Host) != nil {
			reason = "IP: " + hostErr.Host + " is not in the cert's list: " + strings.Join(names, ", ")
		}
		return &httpError{message: "Hostname/IP does not match certificate's altnames: " + reason, code: "ERR_TLS_CERT_ALTNAME_INVALID", reason: reason, host: hostErr.Host}
	}
	var invalid x509.CertificateInvalidError
	if errors.As(err, &invalid) && invalid.Reason == x509.Expired {
		return &httpError{message: "certificate has expired", code: "CERT_HAS_EXPIRED"}
	}
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) && netErr.Timeout() {
		to := ""
		if hostname != "" {
			to = " to " + hostname
		}
		return &httpError{code: "ETIMEDOUT", message: fmt.Sprintf("the request%s took longer than %s, the most a plugin's request may take, its body included", to, timeout)}
	}
	if errors.As(err, &errno) {
		call := "read"
		if errno == syscall.EPIPE {
			call = "write"
		}
		return &httpError{message: call + " " + unix.ErrnoName(errno), code: unix.ErrnoName(errno), errno: -int(errno), syscall: call}
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &httpError{message: "socket hang up", code: "ECONNRESET"}
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return &httpError{message: err.Error()}
}

// expandIP writes an IPv6 address in full, as OpenSSL lists them.
func expandIP(ip net.IP) string {
	if ip4 := ip.To4(); ip4 != nil {
		return ip4.String()
	}
	parts := make([]string, 8)
	for i := range parts {
		parts[i] = strconv.FormatUint(uint64(ip[2*i])<<8|uint64(ip[2*i+1]), 16)
	}
	return strings.Join(parts, ":")
}

// errorValue is the JavaScript error of a failed exchange.
func (h *httpHost) errorValue(err error, host string) goja.Value {
	return h.jsError(classifyHTTPError(err, host, h.timeout))
}

// bodyError is the error of a response body cut short: "aborted", as
// Node's, when the connection ended before the body did.
func (h *httpHost) bodyError(err error, host string) goja.Value {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return h.jsError(&httpError{message: "aborted", code: "ECONNRESET"})
	}
	return h.errorValue(err, host)
}

func (h *httpHost) jsError(e *httpError) goja.Value {
	r := h.r
	v, err := r.host.errorCtor(nil, r.vm.ToValue(e.message))
	if err != nil {
		return r.vm.NewGoError(errors.New(e.message))
	}
	set := func(k string, val any) { v.Set(k, val) }
	if e.errno != 0 {
		set("errno", e.errno)
	}
	if e.code != "" {
		set("code", e.code)
	}
	if e.syscall != "" {
		set("syscall", e.syscall)
	}
	if e.address != "" {
		set("address", e.address)
		set("port", e.port)
	}
	if e.hostname != "" {
		set("hostname", e.hostname)
	}
	if e.reason != "" {
		set("reason", e.reason)
		set("host", e.host)
	}
	return v
}
