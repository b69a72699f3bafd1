package jsrt

import (
	"reflect"
	"syscall"

	"github.com/dop251/goja"
	"golang.org/x/sys/unix"
)

// The Go half of node:util: what JavaScript cannot see of a value (a
// proxy, a promise's state, an object's internal class) and the names of
// the system's errors.

var (
	proxyType   = reflect.TypeOf(goja.Proxy{})
	promiseType = reflect.TypeOf((*goja.Promise)(nil))
)

// maxErrno bounds the errno values getSystemErrorMap lists (Linux's end
// below 134, macOS's below 107).
const maxErrno = 200

func init() {
	nodeHosts["util"] = func(r *Runtime) (*goja.Object, error) {
		vm := r.vm
		h := vm.NewObject()
		// kind names what an object is inside: "proxy", "promise", or
		// goja's class (Object, Array, Function, Error, Date, RegExp,
		// Arguments, Number, String, Boolean); "" for a primitive. Only
		// the export type is read: exporting would copy the value.
		// (A FunctionCall signature: goja calls it without reflection,
		// and inspect asks this of every value.)
		kinds := map[string]goja.Value{}
		kindOf := func(name string) goja.Value {
			v, ok := kinds[name]
			if !ok {
				v = vm.ToValue(name)
				kinds[name] = v
			}
			return v
		}
		h.Set("kind", func(call goja.FunctionCall) goja.Value {
			o, ok := call.Argument(0).(*goja.Object)
			if !ok {
				return kindOf("")
			}
			switch o.ExportType() {
			case proxyType:
				return kindOf("proxy")
			case promiseType:
				return kindOf("promise")
			}
			return kindOf(o.ClassName())
		})
		// proxyTarget is the target of a proxy, which inspect shows as Node
		// does (without calling the proxy's traps); null once revoked.
		h.Set("proxyTarget", func(v goja.Value) goja.Value {
			if o, ok := v.(*goja.Object); ok && o.ExportType() == proxyType {
				if t := o.Export().(goja.Proxy).Target(); t != nil {
					return t
				}
			}
			return goja.Null()
		})
		// proxyParts is [target, handler] of a proxy, nulls once revoked.
		h.Set("proxyParts", func(v goja.Value) goja.Value {
			if o, ok := v.(*goja.Object); ok && o.ExportType() == proxyType {
				p := o.Export().(goja.Proxy)
				if t := p.Target(); t != nil {
					return vm.NewArray(t, p.Handler())
				}
			}
			return vm.NewArray(goja.Null(), goja.Null())
		})
		// promiseState is [state, result] of a promise.
		h.Set("promiseState", func(v goja.Value) goja.Value {
			o, ok := v.(*goja.Object)
			if !ok || o.ExportType() != promiseType {
				return goja.Undefined()
			}
			p := o.Export().(*goja.Promise)
			state := "pending"
			switch p.State() {
			case goja.PromiseStateFulfilled:
				state = "fulfilled"
			case goja.PromiseStateRejected:
				state = "rejected"
			}
			res := p.Result()
			if res == nil {
				res = goja.Undefined()
			}
			return vm.NewArray(state, res)
		})
		h.Set("errnoName", func(n int64) string {
			if n <= 0 || n >= maxErrno {
				return ""
			}
			return unix.ErrnoName(syscall.Errno(n))
		})
		// errnoList is [[-errno, name, message]…], as Node's map keys them.
		h.Set("errnoList", func() goja.Value {
			var out []any
			for n := 1; n < maxErrno; n++ {
				e := syscall.Errno(n)
				if name := unix.ErrnoName(e); name != "" {
					out = append(out, vm.NewArray(-n, name, errnoMessage(e)))
				}
			}
			return vm.NewArray(out...)
		})
		return h, nil
	}
}
