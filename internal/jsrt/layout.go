package jsrt

import (
	"reflect"
	"sync"
	"unsafe"

	"github.com/dop251/goja"
	"github.com/dop251/goja/unistring"
)

// Reading plain objects and arrays straight from goja's structures.
//
// Why: Export runs after every hook that returns a value. Through goja's
// public API, listing an object's keys ((*goja.Object).Keys) allocates a
// closure per property at each of its iterator layers, and each Get looks
// the name up again: exporting `{...input, args: {...}}` cost about 30
// allocations, a third of a rewriting hook's round trip. goja keeps a
// plain object's own properties as a map and a slice of names, and an
// array's elements as a slice; read there, exporting allocates only the
// result.
//
// How: the unexported fields are found once, with reflect, on objects made
// by a throw-away runtime; the dynamic type of an object's implementation
// (an itab, the first word of the interface) tells a plain object or a
// dense array from every other kind. A goja upgrade that renames or retypes
// one of them turns the fast path off (Export then takes the public path;
// TestExportFastPath fails, so that it is noticed).
//
// What is left to the public path: any property that is not a plain data
// property (an accessor, a non-enumerable or frozen property: goja stores
// those as a *valueProperty), arrays with holes or with such elements,
// sparse arrays, and every other kind of object. No JavaScript runs on the
// fast path, so a getter never sees half an export.
type gojaLayout struct {
	ok                 bool
	selfOff            uintptr        // goja.Object.self, an interface
	objectItab         unsafe.Pointer // the itab of a plain object's self
	arrayItab          unsafe.Pointer // … and of an array's
	objValues, objKeys uintptr        // baseObject.values, baseObject.propNames
	arrValues, arrLen  uintptr        // arrayObject.values, arrayObject.length
	propType           reflect.Type   // *goja.valueProperty
}

// gojaFields is the layout, learned on first use.
var gojaFields = sync.OnceValue(learnLayout)

func learnLayout() (l *gojaLayout) {
	l = &gojaLayout{}
	defer func() {
		if recover() != nil {
			l = &gojaLayout{} // a layout reflect cannot read: the public path
		}
	}()
	vm := goja.New()
	obj, err := vm.RunString(`({get a() { return 1 }})`)
	if err != nil {
		return l
	}
	arr := vm.NewArray(1)
	objT := reflect.TypeFor[goja.Object]()
	self, ok := objT.FieldByName("self")
	if !ok || self.Type.Kind() != reflect.Interface {
		return l
	}
	l.selfOff = self.Offset
	implOf := func(o *goja.Object) reflect.Type {
		t := reflect.ValueOf(o).Elem().FieldByIndex(self.Index).Elem().Type()
		if t.Kind() != reflect.Pointer || t.Elem().Kind() != reflect.Struct {
			return nil
		}
		return t.Elem()
	}
	plain, dense := implOf(obj.(*goja.Object)), implOf(arr)
	if plain == nil || dense == nil {
		return l
	}
	field := func(t reflect.Type, name string, want reflect.Type) (uintptr, bool) {
		f, ok := t.FieldByName(name)
		return f.Offset, ok && f.Type == want && len(f.Index) == 1
	}
	var ok1, ok2, ok3, ok4 bool
	l.objValues, ok1 = field(plain, "values", reflect.TypeFor[map[unistring.String]goja.Value]())
	l.objKeys, ok2 = field(plain, "propNames", reflect.TypeFor[[]unistring.String]())
	l.arrValues, ok3 = field(dense, "values", reflect.TypeFor[[]goja.Value]())
	l.arrLen, ok4 = field(dense, "length", reflect.TypeFor[uint32]())
	if !ok1 || !ok2 || !ok3 || !ok4 {
		return l
	}
	l.objectItab, l.arrayItab = l.itab(obj.(*goja.Object)), l.itab(arr)
	// The accessor's property is the one value of that object.
	for _, v := range *(*map[unistring.String]goja.Value)(unsafe.Add(l.impl(obj.(*goja.Object)), l.objValues)) {
		l.propType = reflect.TypeOf(v)
	}
	if l.propType == nil || l.objectItab == l.arrayItab {
		return l
	}
	// The layout must read back what the runtime wrote.
	probe := vm.NewObject()
	_ = probe.Set("k", 7)
	if vals, keys, ok := l.plainObject(probe); !ok || len(keys) != 1 || keys[0] != "k" || vals["k"].ToInteger() != 7 {
		return l
	}
	if vals, ok := l.denseArray(vm.NewArray(3, 4)); !ok || len(vals) != 2 || vals[1].ToInteger() != 4 {
		return l
	}
	l.ok = true
	return l
}

func (l *gojaLayout) itab(o *goja.Object) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(o), l.selfOff))
}

func (l *gojaLayout) impl(o *goja.Object) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Add(unsafe.Pointer(o), l.selfOff+unsafe.Sizeof(uintptr(0))))
}

// plainObject returns a plain object's own properties (its values by name,
// and its names), or false when o is another kind of object or has a
// property that is not a plain enumerable data property.
func (l *gojaLayout) plainObject(o *goja.Object) (map[unistring.String]goja.Value, []unistring.String, bool) {
	if l.objectItab == nil || l.itab(o) != l.objectItab {
		return nil, nil, false
	}
	p := l.impl(o)
	vals := *(*map[unistring.String]goja.Value)(unsafe.Add(p, l.objValues))
	for _, v := range vals {
		if reflect.TypeOf(v) == l.propType {
			return nil, nil, false
		}
	}
	return vals, *(*[]unistring.String)(unsafe.Add(p, l.objKeys)), true
}

// denseArray returns an array's elements, or false when o is another kind
// of object, or an array with holes or with an element that is not a
// plain data property.
func (l *gojaLayout) denseArray(o *goja.Object) ([]goja.Value, bool) {
	if l.arrayItab == nil || l.itab(o) != l.arrayItab {
		return nil, false
	}
	p := l.impl(o)
	vals := *(*[]goja.Value)(unsafe.Add(p, l.arrValues))
	if int64(len(vals)) != int64(*(*uint32)(unsafe.Add(p, l.arrLen))) {
		return nil, false
	}
	for _, v := range vals {
		if v == nil || reflect.TypeOf(v) == l.propType {
			return nil, false
		}
	}
	return vals, true
}
