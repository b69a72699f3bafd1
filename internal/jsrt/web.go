package jsrt

import (
	"context"
	_ "embed"
	"fmt"
	"github.com/podcode/podcode/internal/logging"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/dop251/goja"
)

//go:embed prelude.js
var preludeSource string

// prelude is compiled once per process and run in every runtime.
var prelude = sync.OnceValues(func() (*goja.Program, error) {
	return goja.Compile("podcode:prelude.js", preludeSource, true)
})

// FetchOptions configure fetch.
type FetchOptions struct {
	Client   *http.Client // nil: a client with Timeout
	Timeout  time.Duration
	MaxBytes int64 // the largest body read; 10 MiB if zero
}

// hostState is the loop-only state behind the host functions.
type hostState struct {
	node        map[string]goja.Value // the Node modules evaluated so far, by name (node.go)
	nodeRequire goja.Value            // the require they get
	fetches     map[int64]func()
	nextFetch   int64
	httpClient  *http.Client

	newAbortController goja.Callable
	rangeError         goja.Constructor // the original: a plugin may replace the global
	errorCtor          goja.Constructor // the original Error
	joining            []*goja.Object   // the arrays hostJoin is joining, outermost first

	// Operations that run on goroutines of their own, each kind bounded
	// (see hostio.go).
	fetchPool, readPool, filePool *hostPool
	requestPool                   *hostPool // Async's
	console                       consoleState
	fds                           map[int64]*os.File // fs.open's descriptors (node_fs.go)
	nextFd                        int64
	procs                         map[int64]*childProc // the processes running (node_child.go)
	nextProc                      int64
	// held is the bytes of request bodies and file data handed to fetch
	// and writeFile that are not sent or written yet (MaxHeldBytes).
	held int64
}

func (r *Runtime) installGlobals() error {
	vm := r.vm
	prg, err := prelude()
	if err != nil {
		return err
	}
	fn, err := vm.RunProgram(prg)
	if err != nil {
		return err
	}
	install, _ := goja.AssertFunction(fn)

	r.host.httpClient = r.opts.Fetch.Client
	if r.host.httpClient == nil {
		t := r.opts.Fetch.Timeout
		if t <= 0 {
			t = 60 * time.Second
		}
		r.host.httpClient = &http.Client{Timeout: t}
	}
	r.host.fetches = map[int64]func(){}
	r.host.procs = map[int64]*childProc{}
	r.host.fetchPool = &hostPool{what: "fetch", limit: MaxFetches}
	r.host.readPool = &hostPool{what: "readFile", limit: MaxFileReads}
	r.host.filePool = &hostPool{what: "fs", limit: MaxFileOps}
	r.host.requestPool = &hostPool{what: "request", limit: MaxRequests}
	r.host.console.budget = logging.LineBudget{Burst: ConsoleBurst, PerSecond: ConsoleLinesPerSecond}

	r.host.rangeError, _ = goja.AssertConstructor(vm.Get("RangeError"))
	r.host.errorCtor, _ = goja.AssertConstructor(vm.Get("Error"))
	r.installNodeRequire()
	host := vm.NewObject()
	set := func(name string, v any) {
		if err == nil {
			err = host.Set(name, v)
		}
	}
	set("log", r.hostLog)
	set("logEnabled", func(level string) bool { return r.Log().Enabled(context.Background(), slogLevel(level)) })
	set("hrtime", hrtime) // for console.time
	set("setTimer", r.setTimer)
	set("clearTimer", r.clearTimer)
	set("maxTimers", r.maxTimers())
	set("memoryLimit", r.opts.MemoryLimit)
	set("join", r.hostJoin)
	set("utf8Encode", func(s string) goja.ArrayBuffer { return vm.NewArrayBuffer([]byte(s)) })
	set("utf8Decode", func(buf goja.ArrayBuffer, off, n int, fatal bool) goja.Value {
		b := buf.Bytes()
		if off < 0 || n < 0 || off > len(b) || n > len(b)-off {
			panic(vm.NewTypeError("TextDecoder: view out of range"))
		}
		if fatal && !utf8.Valid(b[off:off+n]) {
			return goja.Null()
		}
		return goja.StringFromUTF16(decodeUTF8(b[off : off+n]))
	})
	set("fetch", r.hostFetch)
	set("fetchAbort", func(id int64) {
		if cancel := r.host.fetches[id]; cancel != nil {
			cancel()
		}
	})
	set("require", r.host.nodeRequire)
	if err != nil {
		return err
	}
	mods, err := install(goja.Undefined(), host)
	if err != nil {
		return err
	}
	out := mods.ToObject(vm)
	r.host.newAbortController, _ = goja.AssertFunction(out.Get("newAbortController"))
	return nil
}

// AbortSignal returns a JavaScript AbortSignal that is aborted when ctx
// ends, with ctx's error as the reason, unless stop (safe from any
// goroutine) is called first. Loop goroutine only.
func (r *Runtime) AbortSignal(ctx context.Context) (signal goja.Value, stop func() bool, err error) {
	c, err := r.host.newAbortController(goja.Undefined())
	if err != nil {
		return nil, nil, err
	}
	ctrl := c.ToObject(r.vm)
	signal = ctrl.Get("signal")
	if ctx.Done() == nil {
		return signal, func() bool { return true }, nil
	}
	stop = context.AfterFunc(ctx, func() {
		r.enqueue(func() {
			abort, _ := goja.AssertFunction(ctrl.Get("abort"))
			reason := r.vm.NewGoError(context.Cause(ctx))
			reason.Set("name", "AbortError")
			if _, err := abort(ctrl, reason); err != nil {
				r.Log().Warn("jsrt: aborting a signal failed", "error", Error(err).Error())
			}
			r.drain()
		})
	})
	return signal, stop, nil
}

// RangeError makes a RangeError with msg, for a host function to throw
// (panic with it) when a plugin asks for more than it may hold. Loop
// goroutine only.
func (r *Runtime) RangeError(msg string) *goja.Object {
	if o, err := r.host.rangeError(nil, r.vm.ToValue(msg)); err == nil {
		return o
	}
	return r.vm.NewTypeError(msg)
}

// OneLineError makes an Error with msg whose stack is msg alone, for a
// host function to throw (panic with it) when what went wrong is said
// whole by the message: the log line that reports it stays one line.
// Loop goroutine only.
func (r *Runtime) OneLineError(msg string) *goja.Object {
	o, err := r.host.errorCtor(nil, r.vm.ToValue(msg))
	if err != nil {
		return r.vm.NewTypeError(msg)
	}
	o.DefineDataProperty("stack", r.vm.ToValue("Error: "+msg), goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	return o
}

// stopFetches cancels the requests still running when the loop stops.
func (r *Runtime) stopFetches() {
	for _, cancel := range r.host.fetches {
		cancel()
	}
}

// async starts work on its own goroutine, when pool has room, and returns
// a promise that settles with its result on the loop; the promise rejects
// at once when too many operations of pool's kind wait already. work must
// not touch the runtime; convert (on the loop) turns its result into a
// JavaScript value.
//
// held is how many bytes of the plugin's data work holds until it ends (a
// request's body, a file's content): past MaxHeldBytes in all, the
// promise rejects at once, as the data is held outside JavaScript, where
// the memory budget does not see it.
func (r *Runtime) async(pool *hostPool, held int, work func() (any, error), convert func(any) goja.Value) *goja.Promise {
	p, resolve, reject := r.vm.NewPromise()
	if err := r.hold(pool.what, held); err != nil {
		reject(r.vm.NewTypeError(err.Error()))
		return p
	}
	run := func() {
		go func() {
			v, err := recovered(work)
			r.enqueue(func() {
				r.host.held -= int64(held)
				pool.finished(r.closing())
				if err != nil {
					reject(r.errorValue(err))
				} else if convert != nil {
					resolve(convert(v))
				} else {
					resolve(v)
				}
				r.drain()
			})
		}()
	}
	if !pool.admit(run) {
		r.host.held -= int64(held)
		reject(r.vm.NewGoError(pool.refused()))
	}
	return p
}

// recovered runs work, a panic of its being its error: the goroutine of
// a host's work must not take the server down.
func recovered(work func() (any, error)) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, fmt.Errorf("the host failed: %s", panicText(p))
		}
	}()
	return work()
}

// hold counts n more bytes of the plugin's data held outside JavaScript
// (a body, a file's content, a process's input, until the host is done
// with them: the caller gives them back), or says, for what, that they
// would be more than MaxHeldBytes in all. Loop goroutine only.
func (r *Runtime) hold(what string, n int) error {
	if r.host.held+int64(n) > MaxHeldBytes {
		return fmt.Errorf("%s: the plugin's requests and writes under way or waiting hold %d MiB already, and this one %d bytes more: the most one plugin may hold is %d MiB",
			what, r.host.held>>20, n, MaxHeldBytes>>20)
	}
	r.host.held += int64(n)
	return nil
}

// Async runs work off the loop, at most MaxRequests at once (MaxWaitingOps
// waiting), held bytes of the plugin's data counted against MaxHeldBytes
// until it ends, and returns a promise that settles on the loop with
// work's result (converted as ToValue converts) or its error. For a host
// function that answers later: an in-process request of a plugin's (one
// that runs a whole turn, so apart from fetch's). Loop goroutine only.
func (r *Runtime) Async(held int, work func() (any, error)) *goja.Promise {
	return r.async(r.host.requestPool, held, work, func(v any) goja.Value {
		out, err := ToValue(r.vm, v)
		if err != nil {
			return r.vm.NewGoError(err)
		}
		return out
	})
}

// hostFetch performs one HTTP request; it returns [id, promise].
func (r *Runtime) hostFetch(rawURL, method string, headers [][]string, body goja.Value) []any {
	var reqBody io.Reader
	held := 0
	if body != nil && !goja.IsNull(body) && !goja.IsUndefined(body) {
		b := body.String()
		reqBody, held = strings.NewReader(b), len(b)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.host.nextFetch++
	id := r.host.nextFetch
	r.host.fetches[id] = cancel
	max := r.opts.Fetch.MaxBytes
	if max <= 0 {
		max = 10 << 20
	}
	client := r.host.httpClient
	p := r.async(r.host.fetchPool, held, func() (any, error) {
		req, err := http.NewRequest(method, rawURL, reqBody)
		if err != nil {
			return nil, err
		}
		defer cancel()
		req = req.WithContext(ctx)
		for _, h := range headers {
			if len(h) == 2 {
				req.Header.Add(h[0], h[1])
			}
		}
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(io.LimitReader(resp.Body, max+1))
		if err != nil {
			return nil, err
		}
		if int64(len(data)) > max {
			return nil, fmt.Errorf("response body larger than %d bytes", max)
		}
		hs := make([][]string, 0, len(resp.Header))
		for k, vs := range resp.Header {
			for _, v := range vs {
				hs = append(hs, []string{strings.ToLower(k), v})
			}
		}
		return map[string]any{
			"status": resp.StatusCode, "statusText": strings.TrimSpace(strings.TrimPrefix(resp.Status, fmt.Sprint(resp.StatusCode))),
			"headers": hs, "body": bytesString(data), "url": resp.Request.URL.String(),
			"redirected": resp.Request.URL.String() != rawURL,
		}, nil
	}, func(v any) goja.Value { return r.vm.ToValue(v) })
	p2 := r.vm.ToValue(p).ToObject(r.vm)
	// Forget the cancel func once the request is over, whatever its outcome.
	if then, ok := goja.AssertFunction(p2.Get("then")); ok {
		forget := r.vm.ToValue(func(goja.FunctionCall) goja.Value {
			delete(r.host.fetches, id)
			return goja.Undefined()
		})
		then(p2, forget, forget)
	}
	return []any{id, p2}
}

// abs makes path absolute against the runtime's working directory.
func (r *Runtime) abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(r.opts.Cwd, path)
}
