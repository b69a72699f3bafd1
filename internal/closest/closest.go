// Package closest finds the names closest to one that is not known: for
// the "did you mean" of an error or a warning.
package closest

import (
	"cmp"
	"slices"
)

// Names returns up to n of names closest to s: those that start with the
// longest part of s first, then by edit distance.
func Names(s string, names []string, n int) []string {
	type scored struct {
		name   string
		prefix int
		dist   int
	}
	var all []scored
	for _, name := range names {
		p := 0
		for p < len(s) && p < len(name) && s[p] == name[p] {
			p++
		}
		all = append(all, scored{name, p, Distance(s, name)})
	}
	slices.SortFunc(all, func(a, b scored) int {
		return cmp.Or(cmp.Compare(b.prefix, a.prefix), cmp.Compare(a.dist, b.dist), cmp.Compare(a.name, b.name))
	})
	var out []string
	for _, x := range all[:min(n, len(all))] {
		out = append(out, x.name)
	}
	return out
}

// Distance is the Levenshtein distance of a and b, in bytes.
func Distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
