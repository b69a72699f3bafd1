package jsplugin

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"sort"
	"strings"
)

// The inline source map of a plugin bundle (esbuild writes it; goja reads
// it for stack traces). goja looks positions up with a 1-based column in a
// map whose columns are 0-based, and reports the original column 0-based;
// fixSourceMap shifts the map's columns so that goja finds the right
// mapping and stack traces give 1-based columns, as esbuild's errors and
// editors do.

const sourceMapPrefix = "//# sourceMappingURL=data:application/json;base64,"

// sourceMap is the part of a source map Podcode reads or rewrites.
type sourceMap struct {
	raw      map[string]json.RawMessage
	sources  []string
	mappings [][]segment // by generated line (0-based)
}

// A segment maps a generated column to a source position; src < 0 for a
// segment with no source.
type segment struct {
	genCol, src, line, col, name int
	fields                       int // 1, 4 or 5
}

// splitSourceMap returns code without its inline source map, and the map
// (nil when there is none or it cannot be read).
func splitSourceMap(code string) (string, *sourceMap) {
	i := strings.LastIndex(code, sourceMapPrefix)
	if i < 0 {
		return code, nil
	}
	enc := strings.TrimSpace(code[i+len(sourceMapPrefix):])
	data, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return code, nil
	}
	sm := &sourceMap{}
	if json.Unmarshal(data, &sm.raw) != nil {
		return code, nil
	}
	var mappings string
	if json.Unmarshal(sm.raw["sources"], &sm.sources) != nil || json.Unmarshal(sm.raw["mappings"], &mappings) != nil {
		return code, nil
	}
	if sm.mappings, err = decodeMappings(mappings); err != nil {
		return code, nil
	}
	return code[:i], sm
}

// shift moves every generated column by one, and those of the first line by
// first more (the text put before the bundle on its line), and every
// source column by one (see above).
func (sm *sourceMap) shift(first int) {
	for l, segs := range sm.mappings {
		for i := range segs {
			segs[i].genCol++
			if l == 0 {
				segs[i].genCol += first
			}
			if segs[i].fields >= 4 {
				segs[i].col++
			}
		}
	}
}

// inline is the map as the comment that ends a bundle.
func (sm *sourceMap) inline() string {
	enc, _ := json.Marshal(encodeMappings(sm.mappings))
	sm.raw["mappings"] = enc
	data, _ := json.Marshal(sm.raw)
	return sourceMapPrefix + base64.StdEncoding.EncodeToString(data) + "\n"
}

// lookup returns the source position of a generated 1-based line and
// column, with the map's column convention (after shift: 1-based); ok is
// false when no mapping covers it.
func (sm *sourceMap) lookup(line, col int) (source string, srcLine, srcCol int, ok bool) {
	if sm == nil || line < 1 || line > len(sm.mappings) {
		return "", 0, 0, false
	}
	segs := sm.mappings[line-1]
	i := sort.Search(len(segs), func(i int) bool { return segs[i].genCol > col }) - 1
	for ; i >= 0; i-- {
		if s := segs[i]; s.fields >= 4 && s.src >= 0 && s.src < len(sm.sources) {
			return sm.sources[s.src], s.line + 1, s.col, true
		}
	}
	return "", 0, 0, false
}

const vlqChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

var errBadMappings = errors.New("source map: bad mappings")

// decodeMappings reads a source map's mappings into absolute positions.
func decodeMappings(s string) ([][]segment, error) {
	var out [][]segment
	var src, line, col, name int
	for _, l := range strings.Split(s, ";") {
		var segs []segment
		genCol := 0
		for _, part := range strings.Split(l, ",") {
			if part == "" {
				continue
			}
			var vals [5]int
			n := 0
			for j := 0; j < len(part); {
				if n == 5 {
					return nil, errBadMappings
				}
				v, used, ok := decodeVLQ(part[j:])
				if !ok {
					return nil, errBadMappings
				}
				vals[n], n, j = v, n+1, j+used
			}
			if n != 1 && n != 4 && n != 5 {
				return nil, errBadMappings
			}
			genCol += vals[0]
			seg := segment{genCol: genCol, src: -1, fields: n}
			if n >= 4 {
				src, line, col = src+vals[1], line+vals[2], col+vals[3]
				seg.src, seg.line, seg.col = src, line, col
			}
			if n == 5 {
				name += vals[4]
				seg.name = name
			}
			segs = append(segs, seg)
		}
		out = append(out, segs)
	}
	return out, nil
}

// encodeMappings is decodeMappings' inverse.
func encodeMappings(lines [][]segment) string {
	var b strings.Builder
	var src, line, col, name int
	for i, segs := range lines {
		if i > 0 {
			b.WriteByte(';')
		}
		genCol := 0
		for j, s := range segs {
			if j > 0 {
				b.WriteByte(',')
			}
			encodeVLQ(&b, s.genCol-genCol)
			genCol = s.genCol
			if s.fields >= 4 {
				encodeVLQ(&b, s.src-src)
				encodeVLQ(&b, s.line-line)
				encodeVLQ(&b, s.col-col)
				src, line, col = s.src, s.line, s.col
			}
			if s.fields == 5 {
				encodeVLQ(&b, s.name-name)
				name = s.name
			}
		}
	}
	return b.String()
}

// decodeVLQ reads one base64 VLQ value from the start of s.
func decodeVLQ(s string) (v, used int, ok bool) {
	shift, acc := 0, 0
	for used < len(s) {
		d := strings.IndexByte(vlqChars, s[used])
		if d < 0 || shift > 30 {
			return 0, 0, false
		}
		used++
		acc |= (d & 31) << shift
		if d&32 == 0 {
			if acc&1 != 0 {
				return -(acc >> 1), used, true
			}
			return acc >> 1, used, true
		}
		shift += 5
	}
	return 0, 0, false
}

func encodeVLQ(b *strings.Builder, v int) {
	u := v << 1
	if v < 0 {
		u = (-v << 1) | 1
	}
	for {
		d := u & 31
		u >>= 5
		if u != 0 {
			d |= 32
		}
		b.WriteByte(vlqChars[d])
		if u == 0 {
			return
		}
	}
}
