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
// a pooled buffer; anything else goes through encoding/json. Only the
// start of a value is written (about chat.MaxRunData bytes and a margin):
// a string past it is counted, not copied, so a tool result of megabytes
// costs a scan of its text, not a copy, a redaction and a cut.

var recordBufs = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// recordMargin is what a record writes past chat.MaxRunData: room for the
// redaction to shorten the text and still fill the record.
const recordMargin = 1 << 10

// record returns the JSON of v as a step records it: without its "ctx"
// (the call's context, the same for every step, and not a hook's to
// change: the timeline shows the call's once), map keys sorted,
// undefined as null, HTML characters not escaped (so that a secret holding
// one is found as it is); secrets replaced by the Runner's Redact (before
// the cut, and a secret that the end of what was written cuts in two is
// left out, so that no part of a secret is kept); then at most
// chat.MaxRunData bytes, cut at a character boundary with a note giving
// the full length.
func (r *Runner) record(v any) string {
	bp := recordBufs.Get().(*[]byte)
	w := recorder{b: (*bp)[:0], limit: chat.MaxRunData + recordMargin}
	var err error
	if m, ok := v.(map[string]any); ok {
		err = w.object(m, "ctx")
	} else {
		err = w.value(v)
	}
	var s string
	total := -1 // the redacted text's own length
	switch {
	case err != nil:
		s = fmt.Sprintf("(not JSON: %s)", err)
	case w.skipped == 0:
		s = r.Redact.String(string(w.b))
	default:
		// The text ends inside a string: an end that may be the start of
		// a secret is left out.
		s, total = r.Redact.Stream().Next(string(w.text())), len(w.b)+w.skipped
	}
	if cap(w.b) <= 64<<10 { // a huge value's buffer is not kept
		*bp = w.b[:0]
		recordBufs.Put(bp)
	}
	return bound(s, chat.MaxRunData, total)
}

// bound keeps at most n bytes of s, note included; total, when it is not
// -1, is the length of the whole of which s is the start.
func bound(s string, n, total int) string {
	if total < 0 {
		if len(s) <= n {
			return s
		}
		total = len(s)
	}
	note := fmt.Sprintf("… [cut: %d bytes in all]", total)
	cut := min(max(n-len(note), 0), len(s))
	for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + note
}

// recorder writes the JSON of a value up to about limit bytes: a string
// that does not fit is written in part (from a character boundary on, it
// is counted in skipped), which gives the full length without the copy.
type recorder struct {
	b       []byte
	limit   int
	skipped int // bytes of the JSON not written
	// end is where the record's text ends: the first string cut; what
	// comes after it (punctuation, numbers) is written only to be counted.
	end int
}

// text is what the record shows of the JSON written.
func (w *recorder) text() []byte {
	if w.skipped == 0 {
		return w.b
	}
	return w.b[:w.end]
}

func (w *recorder) str(s string) {
	room := w.limit - len(w.b)
	if room >= len(s) {
		w.b = jsonw.AppendString(w.b, s)
		return
	}
	k := max(room, 0)
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	n := len(w.b)
	w.b = jsonw.AppendString(w.b, s[:k])
	w.b = w.b[:len(w.b)-1] // the string goes on: no closing quote
	if w.skipped == 0 {
		w.end = len(w.b)
	}
	w.skipped += jsonw.QuotedLen(s) - (len(w.b) - n)
}

// value writes the JSON of v.
func (w *recorder) value(v any) error {
	switch t := v.(type) {
	case nil, jsrt.Undefined:
		w.b = append(w.b, "null"...)
	case bool:
		w.b = strconv.AppendBool(w.b, t)
	case string:
		w.str(t)
	case float64:
		var err error
		w.b, err = appendFloat(w.b, t)
		return err
	case int:
		w.b = strconv.AppendInt(w.b, int64(t), 10)
	case int64:
		w.b = strconv.AppendInt(w.b, t, 10)
	case map[string]any:
		return w.object(t, "")
	case []any:
		w.b = append(w.b, '[')
		for i, x := range t {
			if i > 0 {
				w.b = append(w.b, ',')
			}
			if err := w.value(x); err != nil {
				return err
			}
		}
		w.b = append(w.b, ']')
	default:
		j, err := json.Marshal(v)
		if err != nil {
			return err
		}
		w.b = append(w.b, j...)
	}
	return nil
}

// object writes the JSON of m, keys sorted, without the key skip ("" skips
// none).
func (w *recorder) object(m map[string]any, skip string) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != skip || skip == "" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	w.b = append(w.b, '{')
	for i, k := range keys {
		if i > 0 {
			w.b = append(w.b, ',')
		}
		w.str(k)
		w.b = append(w.b, ':')
		if err := w.value(m[k]); err != nil {
			return err
		}
	}
	w.b = append(w.b, '}')
	return nil
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
