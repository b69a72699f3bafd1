package jsrt

import (
	"reflect"
	"strings"
	"sync"
	"unsafe"

	"github.com/dop251/goja"
)

// sizer estimates the memory a runtime retains: it walks the Go values
// reachable from the runtime (goja's objects, scopes, stacks and queues,
// and the values the host keeps: see Keep) and adds up their sizes, each
// allocation once.
//
// What it counts: structs, slices (their capacity), maps, strings and
// boxed values of goja and of this package, and of the plain Go types they
// hold. What it does not: compiled code (a goja.Program is shared by every
// runtime that runs it, and a function's source text is a slice of it),
// Go functions (a host function's captured variables cannot be seen),
// channels, and the insides of other packages' structs (only their own
// size). It is an estimate: within 10 to 35 % of what the Go heap holds for
// the same values on the shapes TestMemoryEstimate tries.
//
// Cost: 100 to 150 ns per value visited (BenchmarkMeasure); a fresh
// runtime is about 9,000 values, one with zod loaded about 230,000 (3.7 MiB
// estimated, where the Go heap grows by 4.4 MiB per such plugin). The
// walk stops as soon as the total passes the limit it is given, and counts
// every large container's own size before visiting any one's elements, so
// a runtime far over its budget costs little more than one at its budget.
// It must run on the loop goroutine, between jobs: it reads goja's maps and
// slices, which only the loop writes.
type sizer struct {
	seen  addrSet
	total int64
	limit int64 // stop once total exceeds it; 0: no limit
	nodes int   // values visited, for the benchmarks
	work  []sizeItem
	// Large slices and maps, whose elements are visited once work is
	// empty, oldest first: every large container's own size is counted
	// before the elements of any, so a runtime over its limit with a few
	// huge arrays is found without visiting their millions of elements.
	large []sizeItem
	next  int // the first of large not yet visited

	// planOf's answers, kept here: sync.Map was a third of the walk.
	plans map[reflect.Type]*typePlan
	lastT reflect.Type
	lastP *typePlan
}

// plan is planOf, cached for the walk.
func (s *sizer) plan(t reflect.Type) *typePlan {
	if t == s.lastT {
		return s.lastP
	}
	p := s.plans[t]
	if p == nil {
		if s.plans == nil {
			s.plans = map[reflect.Type]*typePlan{}
		}
		p = planOf(t)
		s.plans[t] = p
	}
	s.lastT, s.lastP = t, p
	return p
}

// largeLen is the length from which a slice's or map's elements wait in large.
const largeLen = 64

// sizeItem is a value to visit, or (each set) a slice or array whose
// elements from next on are still to visit, or a map's iterator.
type sizeItem struct {
	v     reflect.Value
	elems bool
	next  int
	iter  *reflect.MapIter
}

// typePlan says how to walk a type: whether it can hold anything to count
// beyond its own size, and for a struct which fields to follow.
type typePlan struct {
	walk   bool
	fields []int
}

var (
	plans sync.Map // reflect.Type → *typePlan

	// Shared, immutable or not ours to count: see sizer.
	typeProgram = reflect.TypeFor[*goja.Program]()
	gojaPkg     = reflect.TypeFor[goja.Runtime]().PkgPath()
	ownPkg      = reflect.TypeFor[sizer]().PkgPath()
)

// ours reports whether the sizer looks inside a named type's fields: goja's
// types (the engine's objects) and this package's (views of host data).
func ours(t reflect.Type) bool {
	p := t.PkgPath()
	return p == "" || strings.HasPrefix(p, gojaPkg) || p == ownPkg
}

func planOf(t reflect.Type) *typePlan {
	if p, ok := plans.Load(t); ok {
		return p.(*typePlan)
	}
	p := &typePlan{}
	switch t.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map, reflect.String:
		p.walk = t != typeProgram
	case reflect.Array:
		p.walk = planOf(t.Elem()).walk
	case reflect.Struct:
		if ours(t) {
			// No cycle to fear: a struct reaches itself only through a
			// pointer, slice, map or interface, whose plans need no recursion.
			for i := range t.NumField() {
				f := t.Field(i)
				if f.Name == "src" && f.Type.Kind() == reflect.String && t.PkgPath() == gojaPkg {
					continue // a function's source: a slice of its program's
				}
				if planOf(f.Type).walk {
					p.fields = append(p.fields, i)
				}
			}
			p.walk = len(p.fields) > 0
		}
	}
	actual, _ := plans.LoadOrStore(t, p)
	return actual.(*typePlan)
}

// add counts what v reaches; false once the total is past the limit.
func (s *sizer) add(v reflect.Value) bool {
	s.push(v)
	for {
		if s.limit > 0 && s.total > s.limit {
			clear(s.work)
			clear(s.large)
			s.work, s.large, s.next = s.work[:0], s.large[:0], 0
			return false
		}
		if len(s.work) == 0 {
			if s.next == len(s.large) {
				clear(s.large)
				s.large, s.next = s.large[:0], 0
				return true
			}
			s.work = append(s.work, s.large[s.next])
			s.large[s.next] = sizeItem{}
			s.next++
			continue
		}
		it := &s.work[len(s.work)-1]
		switch {
		case it.iter != nil:
			if !it.iter.Next() {
				s.pop()
				continue
			}
			k, e := it.iter.Key(), it.iter.Value()
			s.push(k)
			s.push(e)
		case it.elems:
			if it.next >= it.v.Len() {
				s.pop()
				continue
			}
			e := it.v.Index(it.next)
			it.next++
			s.push(e)
		default:
			v := it.v
			s.pop()
			s.visit(v)
		}
	}
}

// iterate queues the elements of a slice, array or map (it) to visit.
func (s *sizer) iterate(it sizeItem, n int) {
	if n >= largeLen {
		s.large = append(s.large, it)
	} else {
		s.work = append(s.work, it)
	}
}

func (s *sizer) push(v reflect.Value) {
	if s.plan(v.Type()).walk {
		s.work = append(s.work, sizeItem{v: v})
	}
}

func (s *sizer) pop() {
	s.work[len(s.work)-1] = sizeItem{}
	s.work = s.work[:len(s.work)-1]
}

// visit counts v's own memory and queues what it refers to.
func (s *sizer) visit(v reflect.Value) {
	s.nodes++
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || v.Type() == typeProgram || !s.seen.add(v.Pointer()) {
			return
		}
		e := v.Elem()
		s.total += int64(e.Type().Size())
		s.push(e)
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		e := v.Elem()
		switch e.Kind() {
		case reflect.Pointer, reflect.Map, reflect.Func, reflect.Chan, reflect.UnsafePointer:
		default:
			s.total += int64(e.Type().Size()) // a value boxed in the interface
		}
		s.push(e)
	case reflect.Struct:
		for _, i := range s.plan(v.Type()).fields {
			s.push(v.Field(i))
		}
	case reflect.Slice:
		if v.Cap() == 0 || !s.seen.add(uintptr(v.UnsafePointer())) {
			return
		}
		s.total += int64(uintptr(v.Cap()) * v.Type().Elem().Size())
		if s.plan(v.Type().Elem()).walk {
			s.iterate(sizeItem{v: v, elems: true}, v.Len())
		}
	case reflect.Array:
		if s.plan(v.Type().Elem()).walk {
			s.iterate(sizeItem{v: v, elems: true}, v.Len())
		}
	case reflect.Map:
		if v.IsNil() || !s.seen.add(v.Pointer()) {
			return
		}
		t := v.Type()
		// Go's maps: groups of eight slots, kept at most 7/8 full, each
		// slot a key and an element, plus a control word per group.
		slots := (v.Len()*8/7 + 7) &^ 7
		s.total += 48 + int64(slots)*int64(t.Key().Size()+t.Elem().Size()) + int64(slots)
		if s.plan(t.Key()).walk || s.plan(t.Elem()).walk {
			s.iterate(sizeItem{v: v, iter: v.MapRange()}, v.Len())
		}
	case reflect.String:
		if v.Len() == 0 {
			return
		}
		str := v.String()
		if s.seen.add(uintptr(unsafe.Pointer(unsafe.StringData(str)))) {
			s.total += int64(len(str))
		}
	}
}

// addrSet is a set of addresses at 8-byte granularity: a bitmap per 64 MiB
// of address space touched, so that a walk over millions of values costs
// 1/64 of the span it visits instead of a map entry per value.
type addrSet struct {
	regions map[uintptr]*[regionWords]uint64
	lastKey uintptr
	last    *[regionWords]uint64
}

const (
	regionShift = 26 // 64 MiB
	regionWords = 1 << regionShift >> 3 >> 6
)

var regionPool = sync.Pool{New: func() any { return new([regionWords]uint64) }}

func (a *addrSet) add(p uintptr) bool {
	key := p >> regionShift
	if a.last == nil || key != a.lastKey {
		b := a.regions[key]
		if b == nil {
			if a.regions == nil {
				a.regions = map[uintptr]*[regionWords]uint64{}
			}
			b = regionPool.Get().(*[regionWords]uint64)
			a.regions[key] = b
		}
		a.lastKey, a.last = key, b
	}
	off := (p & (1<<regionShift - 1)) >> 3
	w, bit := off>>6, uint64(1)<<(off&63)
	if a.last[w]&bit != 0 {
		return false
	}
	a.last[w] |= bit
	return true
}

// release gives the bitmaps back, cleared.
func (a *addrSet) release() {
	for k, b := range a.regions {
		clear(b[:])
		regionPool.Put(b)
		delete(a.regions, k)
	}
	a.last = nil
}
