package pipeline

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/jsonw"
	"github.com/podcode/podcode/internal/jsrt"
)

// What a step records of its input and output (Step.Input, Step.Output).
// It runs on the hook's path, once per value (the run's input and each
// changed value), so JSON-shaped data is written without reflection into
// a pooled buffer; anything else goes through encoding/json.

var recordBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// record returns the JSON of v as a step records it: without its "ctx"
// (the call's context, the same for every step, and not a hook's to
// change: the timeline shows the call's once), map keys sorted,
// undefined as null, HTML characters not escaped (so that a secret holding
// one is found as it is); secrets replaced by the Runner's Redact over the
// whole text (before the cut, so that no part of a secret is kept); then
// at most chat.MaxRunData bytes, cut at a character boundary with a note
// giving the full length.
func (r *Runner) record(v any) string {
	bp := recordBufs.Get().(*[]byte)
	var b []byte
	var err error
	if m, ok := v.(map[string]any); ok {
		b, err = appendObject((*bp)[:0], m, "ctx")
	} else {
		b, err = appendJSON((*bp)[:0], v)
	}
	var s string
	if err != nil {
		s = fmt.Sprintf("(not JSON: %s)", err)
	} else {
		s = string(b)
	}
	if cap(b) <= 64<<10 { // a huge value's buffer is not kept
		*bp = b[:0]
		recordBufs.Put(bp)
	}
	if r.Redact != nil {
		s = r.Redact.String(s)
	}
	return bound(s, chat.MaxRunData)
}

// bound keeps at most n bytes of s, note included.
func bound(s string, n int) string {
	if len(s) <= n {
		return s
	}
	note := fmt.Sprintf("… [cut: %d bytes in all]", len(s))
	cut := max(n-len(note), 0)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + note
}

// appendJSON appends the JSON of v to b.
func appendJSON(b []byte, v any) ([]byte, error) {
	switch t := v.(type) {
	case nil, jsrt.Undefined:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, t), nil
	case string:
		return jsonw.AppendString(b, t), nil
	case float64:
		return appendFloat(b, t)
	case int:
		return strconv.AppendInt(b, int64(t), 10), nil
	case int64:
		return strconv.AppendInt(b, t, 10), nil
	case map[string]any:
		return appendObject(b, t, "")
	case []any:
		b = append(b, '[')
		for i, x := range t {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, x); err != nil {
				return b, err
			}
		}
		return append(b, ']'), nil
	}
	j, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, j...), nil
}

// appendObject appends the JSON of m, keys sorted, without the key skip
// ("" skips none).
func appendObject(b []byte, m map[string]any, skip string) ([]byte, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != skip || skip == "" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendString(b, k)
		b = append(b, ':')
		var err error
		if b, err = appendJSON(b, m[k]); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// appendFloat writes f as encoding/json does.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, fmt.Errorf("unsupported number %v", f)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.AppendInt(b, int64(f), 10), nil
	}
	j, _ := json.Marshal(f) // rarer than integers; keeps encoding/json's format
	return append(b, j...), nil
}
