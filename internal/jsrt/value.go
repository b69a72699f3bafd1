package jsrt

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"sync/atomic"

	"github.com/dop251/goja"
	"github.com/dop251/goja/unistring"
)

// Values cross between Go and plugins as data: Go holds JSON-shaped values
// (map[string]any, []any, string, float64, bool, nil, and Undefined), which
// are never modified once made. ToValue shows such data to JavaScript as
// copy-on-write views: creating one costs almost nothing, reading a property
// converts only that property, and a plugin that changes its input changes
// only its own view, never the data the host or another plugin holds. Export
// turns a result back into data, reusing every part the plugin did not change.

// Undefined stands for JavaScript's undefined in Go data. It is distinct
// from nil, which stands for null: a key whose value is Undefined is present
// but undefined (SPEC H13), which is not the same as a missing key.
type Undefined struct{}

// MarshalJSON writes null; use StripUndefined first to drop such keys the
// way JSON.stringify does.
func (Undefined) MarshalJSON() ([]byte, error) { return []byte("null"), nil }

// IsUndefined reports whether v is Undefined.
func IsUndefined(v any) bool {
	_, ok := v.(Undefined)
	return ok
}

// StripUndefined returns v without Undefined values in objects (as
// JSON.stringify drops them) and with Undefined array elements as nil.
func StripUndefined(v any) any {
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			if !IsUndefined(x) {
				out[k] = StripUndefined(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, x := range t {
			if !IsUndefined(x) {
				out[i] = StripUndefined(x)
			}
		}
		return out
	}
	return v
}

// Same reports whether a and b are the very same data: the same map or
// slice (not merely equal), or equal scalars. Export returns the data a view
// was made from when the plugin did not change it, so Same tells a result
// that is the input from a new one without comparing contents.
func Same(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		return ok && reflect.ValueOf(x).UnsafePointer() == reflect.ValueOf(y).UnsafePointer()
	case []any:
		y, ok := b.([]any)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0])
	}
	switch b.(type) {
	case map[string]any, []any:
		return false
	}
	if (a != nil && !reflect.TypeOf(a).Comparable()) || (b != nil && !reflect.TypeOf(b).Comparable()) {
		return false
	}
	return a == b
}

// Describe names the kind of a data value for messages: "undefined",
// "null", "a string", "a number", "an object", "an array", "true or false".
func Describe(v any) string {
	switch v.(type) {
	case Undefined:
		return "undefined"
	case nil:
		return "null"
	case string:
		return "a string"
	case float64, int, int64:
		return "a number"
	case bool:
		return "true or false"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("a Go %T", v)
}

// Limits on data crossing a plugin boundary. Converting is Go code, which
// the runtime's watchdog cannot interrupt, so a value too deep, too long or
// too large (a DAG that doubles at every level) is an error rather than a
// stalled loop or an exhausted memory.
const (
	maxDepth       = 64
	maxArrayLen    = 1 << 20 // elements in one array
	maxExportParts = 1 << 20 // values in one export
	// MaxExportBytes is how many bytes of strings (values and keys) one
	// export makes. A JavaScript string referenced n times is converted n
	// times: 40 references to one string of 4M non-ASCII characters would
	// be 3.4 GB of Go strings from 8 MB of JavaScript.
	MaxExportBytes = 64 << 20
)

// exportBudget is what one export may still make.
type exportBudget struct {
	parts int   // values
	bytes int64 // of strings
}

// str converts the string s, within the budget: what it will take is
// checked before converting (a UTF-8 string has at least as many bytes as
// its UTF-16 code units), what it took after.
func (b *exportBudget) str(s goja.Value) (string, error) {
	if gs, ok := s.(goja.String); ok && int64(gs.Length()) > b.bytes {
		return "", b.tooBig()
	}
	str := s.String()
	return str, b.take(len(str))
}

// take counts n bytes of strings already converted (object keys).
func (b *exportBudget) take(n int) error {
	if b.bytes -= int64(n); b.bytes < 0 {
		return b.tooBig()
	}
	return nil
}

func (b *exportBudget) tooBig() error {
	return fmt.Errorf("value has more than %d MiB of strings (a string counts each time it is referenced)", MaxExportBytes>>20)
}

// ToValue shows Go data to JavaScript (see the top of this file). It accepts
// JSON-shaped data plus ints, json.Number, json.RawMessage, []string and
// goja values. Objects and arrays become views; v must not be modified
// afterwards.
func ToValue(vm *goja.Runtime, v any) (goja.Value, error) {
	switch t := v.(type) {
	case nil:
		return goja.Null(), nil
	case Undefined:
		return goja.Undefined(), nil
	case bool, string, float64, int, int64, int32, uint32, float32:
		return vm.ToValue(t), nil
	case json.Number:
		f, err := t.Float64()
		if err != nil {
			return nil, err
		}
		return vm.ToValue(f), nil
	case json.RawMessage:
		var x any
		if err := json.Unmarshal(t, &x); err != nil {
			return nil, err
		}
		return ToValue(vm, x)
	case map[string]any:
		return vm.NewDynamicObject(&objectView{vm: vm, src: t}), nil
	case []any:
		return vm.NewDynamicArray(&arrayView{vm: vm, src: t}), nil
	case []string:
		items := make([]any, len(t))
		for i, s := range t {
			items[i] = s
		}
		return vm.NewDynamicArray(&arrayView{vm: vm, src: items}), nil
	case goja.Value:
		return t, nil
	}
	return nil, fmt.Errorf("cannot pass a Go %T to JavaScript", v)
}

// mustValue converts data that came out of a view; it cannot fail because
// only ToValue-accepted data gets there.
func mustValue(vm *goja.Runtime, v any) goja.Value {
	x, err := ToValue(vm, v)
	if err != nil {
		panic(vm.NewTypeError(err.Error()))
	}
	return x
}

// objectView is a copy-on-write JavaScript object over a Go map. Keys
// enumerate in sorted order, then added keys in the order they were added.
type objectView struct {
	vm      *goja.Runtime
	src     map[string]any
	vals    map[string]goja.Value // converted or assigned values
	set     map[string]bool       // keys assigned by the plugin
	deleted map[string]bool
	added   []string
	sorted  []string
	changed bool // a key was set or deleted on this object itself
}

func (o *objectView) Get(k string) goja.Value {
	if v, ok := o.vals[k]; ok {
		return v
	}
	if o.deleted[k] {
		return nil
	}
	x, ok := o.src[k]
	if !ok {
		return nil
	}
	v := mustValue(o.vm, x)
	switch x.(type) {
	case map[string]any, []any, []string, json.RawMessage:
		if o.vals == nil {
			o.vals = make(map[string]goja.Value, len(o.src))
		}
		o.vals[k] = v // so that input.args === input.args
	}
	// A primitive is converted again at each read: it compares by value,
	// and a view that is only read allocates no map.
	return v
}

func (o *objectView) Set(k string, v goja.Value) bool {
	if o.vals == nil {
		o.vals = make(map[string]goja.Value, len(o.src)+1)
	}
	_, inSrc := o.src[k]
	_, had := o.vals[k]
	if !inSrc && !had {
		o.added = append(o.added, k) // a key of src keeps its sorted place, even after a delete
	}
	delete(o.deleted, k)
	o.vals[k] = v
	if o.set == nil {
		o.set = map[string]bool{}
	}
	o.set[k] = true
	o.changed = true
	return true
}

func (o *objectView) Has(k string) bool {
	if _, ok := o.vals[k]; ok {
		return true
	}
	_, ok := o.src[k]
	return ok && !o.deleted[k]
}

func (o *objectView) Delete(k string) bool {
	if !o.Has(k) {
		return true
	}
	delete(o.vals, k)
	if i := slices.Index(o.added, k); i >= 0 {
		o.added = slices.Delete(o.added, i, i+1)
	}
	if _, ok := o.src[k]; ok {
		if o.deleted == nil {
			o.deleted = map[string]bool{}
		}
		o.deleted[k] = true
	}
	o.changed = true
	return true
}

func (o *objectView) Keys() []string {
	if o.sorted == nil {
		o.sorted = make([]string, 0, len(o.src))
		for k := range o.src {
			o.sorted = append(o.sorted, k)
		}
		slices.Sort(o.sorted)
	}
	if len(o.deleted) == 0 && len(o.added) == 0 {
		return o.sorted
	}
	keys := make([]string, 0, len(o.sorted)+len(o.added))
	for _, k := range o.sorted {
		if !o.deleted[k] {
			keys = append(keys, k)
		}
	}
	return append(keys, o.added...)
}

// export returns the view's data and whether it differs from src.
func (o *objectView) export(depth int, budget *exportBudget) (any, bool, error) {
	if !o.changed && len(o.vals) == 0 {
		return o.src, false, nil
	}
	out := make(map[string]any, len(o.src)+len(o.added))
	differs := o.changed
	for _, k := range o.Keys() {
		v, ok := o.vals[k]
		if !ok || !o.set[k] && !isView(v) {
			out[k] = o.src[k] // never assigned: a primitive read is unchanged
			continue
		}
		x, changed, err := exportValue(v, depth+1, budget)
		if err != nil {
			return nil, false, fmt.Errorf("%s: %w", k, err)
		}
		differs = differs || changed
		out[k] = x
	}
	if !differs {
		return o.src, false, nil
	}
	return out, true, nil
}

// arrayView is a copy-on-write JavaScript array over a Go slice.
type arrayView struct {
	vm      *goja.Runtime
	src     []any
	vals    []goja.Value // nil until first read or write
	n       int
	changed bool
}

func (a *arrayView) init() {
	if a.vals == nil {
		a.vals = make([]goja.Value, len(a.src))
		a.n = len(a.src)
	}
}

func (a *arrayView) Len() int {
	if a.vals == nil {
		return len(a.src)
	}
	return a.n
}

func (a *arrayView) Get(i int) goja.Value {
	a.init()
	if i < 0 || i >= a.n {
		return nil
	}
	if a.vals[i] == nil && i < len(a.src) {
		a.vals[i] = mustValue(a.vm, a.src[i])
	}
	return a.vals[i]
}

func (a *arrayView) Set(i int, v goja.Value) bool {
	a.init()
	if i < 0 || i >= maxArrayLen {
		return false
	}
	if i >= a.n {
		a.SetLen(i + 1)
	}
	a.vals[i] = v
	a.changed = true
	return true
}

func (a *arrayView) SetLen(n int) bool {
	a.init()
	if n < 0 || n > maxArrayLen {
		return false
	}
	for len(a.vals) < n {
		a.vals = append(a.vals, goja.Undefined())
	}
	for i := n; i < a.n && i < len(a.vals); i++ {
		a.vals[i] = goja.Undefined()
	}
	a.n = n
	a.changed = true
	return true
}

func (a *arrayView) export(depth int, budget *exportBudget) (any, bool, error) {
	if a.vals == nil {
		return a.src, false, nil
	}
	out := make([]any, a.n)
	differs := a.changed
	for i := 0; i < a.n; i++ {
		v := a.vals[i]
		if v == nil || !a.changed && !isView(v) {
			out[i] = a.src[i]
			continue
		}
		x, changed, err := exportValue(v, depth+1, budget)
		if err != nil {
			return nil, false, fmt.Errorf("[%d]: %w", i, err)
		}
		differs = differs || changed
		out[i] = x
	}
	if !differs {
		return a.src, false, nil
	}
	return out, true, nil
}

var (
	typeString     = reflect.TypeFor[string]()
	typeBool       = reflect.TypeFor[bool]()
	typeInt        = reflect.TypeFor[int64]()
	typeFloat      = reflect.TypeFor[float64]()
	typeObjectView = reflect.TypeFor[*objectView]()
	typeArrayView  = reflect.TypeFor[*arrayView]()
)

func isView(v goja.Value) bool {
	t := v.ExportType()
	return t == typeObjectView || t == typeArrayView
}

// Export converts a JavaScript value into Go data: objects become
// map[string]any (own enumerable string keys), arrays []any, numbers
// float64, undefined Undefined, null nil. Functions, symbols and cycles are
// errors: values cross plugin boundaries as data. Dates become their ISO
// string, as JSON.stringify would write them. Parts of a view the plugin did
// not change are returned as the very data the view was made from.
func Export(vm *goja.Runtime, v goja.Value) (out any, err error) {
	budget := exportBudget{parts: maxExportParts, bytes: MaxExportBytes}
	if _, isObj := v.(*goja.Object); !isObj {
		out, _, err = exportValue(v, 0, &budget) // no getter to run: no Try (and its closure)
		return out, err
	}
	// Reading a property can run a getter that throws: Try turns that into
	// an error and leaves the runtime as it was.
	if ex := vm.Try(func() { out, _, err = exportValue(v, 0, &budget) }); ex != nil {
		return nil, &ThrowError{Message: describe(ex.Value())}
	}
	return out, err
}

// genericOnly turns the fast path of layout.go off; tests compare the two
// paths.
var genericOnly atomic.Bool

func exportValue(v goja.Value, depth int, budget *exportBudget) (any, bool, error) {
	if depth > maxDepth {
		return nil, true, fmt.Errorf("value nested deeper than %d levels (a cycle?)", maxDepth)
	}
	if budget.parts--; budget.parts < 0 {
		return nil, true, fmt.Errorf("value has more than %d parts", maxExportParts)
	}
	if v == nil || goja.IsUndefined(v) {
		return Undefined{}, true, nil
	}
	if goja.IsNull(v) {
		return nil, true, nil
	}
	switch v.ExportType() {
	case typeString:
		str, err := budget.str(v)
		if err != nil {
			return nil, true, err
		}
		return str, true, nil
	case typeBool:
		return v.ToBoolean(), true, nil
	case typeInt, typeFloat:
		f := v.ToFloat()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, true, nil // JSON.stringify writes null for these
		}
		return f, true, nil
	case typeObjectView:
		return v.Export().(*objectView).export(depth, budget)
	case typeArrayView:
		return v.Export().(*arrayView).export(depth, budget)
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		return nil, true, fmt.Errorf("cannot pass a JavaScript %s across a plugin boundary", v.ExportType())
	}
	if l := gojaFields(); l.ok && !genericOnly.Load() {
		if vals, keys, ok := l.plainObject(obj); ok {
			return exportPlain(vals, keys, depth, budget)
		}
		if elems, ok := l.denseArray(obj); ok {
			return exportDense(elems, depth, budget)
		}
	}
	if _, isFn := goja.AssertFunction(v); isFn {
		return nil, true, fmt.Errorf("cannot pass a function across a plugin boundary")
	}
	switch obj.ClassName() {
	case "Array":
		n := obj.Get("length").ToInteger()
		if n > maxArrayLen {
			return nil, true, fmt.Errorf("array of %d elements (at most %d)", n, maxArrayLen)
		}
		out := make([]any, n)
		for i := 0; i < int(n); i++ {
			x, _, err := exportValue(obj.Get(strconv.Itoa(i)), depth+1, budget)
			if err != nil {
				return nil, true, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = x
		}
		return out, true, nil
	case "Date":
		if iso, ok := goja.AssertFunction(obj.Get("toISOString")); ok {
			s, err := iso(obj)
			if err != nil {
				return nil, true, err
			}
			return s.String(), true, nil
		}
	}
	keys := obj.Keys()
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		if err := budget.take(len(k)); err != nil {
			return nil, true, err
		}
		x, _, err := exportValue(obj.Get(k), depth+1, budget)
		if err != nil {
			return nil, true, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = x
	}
	return out, true, nil
}

// exportPlain is the export of a plain object read from goja's fields (see
// layout.go): the same result as the generic path, without its iterators.
func exportPlain(vals map[unistring.String]goja.Value, keys []unistring.String, depth int, budget *exportBudget) (any, bool, error) {
	out := make(map[string]any, len(keys))
	for _, k := range keys {
		v, ok := vals[k]
		if !ok {
			continue
		}
		name := k.String()
		if err := budget.take(len(name)); err != nil {
			return nil, true, err
		}
		x, _, err := exportValue(v, depth+1, budget)
		if err != nil {
			return nil, true, fmt.Errorf("%s: %w", name, err)
		}
		out[name] = x
	}
	return out, true, nil
}

// exportDense is the export of an array without holes read from goja's
// fields (see layout.go).
func exportDense(elems []goja.Value, depth int, budget *exportBudget) (any, bool, error) {
	if len(elems) > maxArrayLen {
		return nil, true, fmt.Errorf("array of %d elements (at most %d)", len(elems), maxArrayLen)
	}
	out := make([]any, len(elems))
	for i, e := range elems {
		x, _, err := exportValue(e, depth+1, budget)
		if err != nil {
			return nil, true, fmt.Errorf("[%d]: %w", i, err)
		}
		out[i] = x
	}
	return out, true, nil
}
