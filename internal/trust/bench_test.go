package trust

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// benchProject writes n files of 4 KiB in 20 folders.
func benchProject(b *testing.B, n int) string {
	dir := b.TempDir()
	data := []byte(strings.Repeat("x", 4096))
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%20), fmt.Sprintf("f%04d.txt", i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	return dir
}

// The check made before each run of a hook whose files cannot be known:
// its whole directory, 2000 files of 4 KiB. Warm, the files' sums come
// from the cache (a stat each); cold, every file is read.
func BenchmarkReadsItem2000Files(b *testing.B) {
	dir := benchProject(b, 2000)
	for _, cold := range []bool{false, true} {
		b.Run(map[bool]string{false: "warm", true: "cold"}[cold], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if cold {
					sums.Lock()
					clear(sums.m)
					sums.Unlock()
				}
				if _, err := ReadsItem(KindClaude, "x", dir, dir); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// The check of a hook that names its script and what it sources.
func BenchmarkCommandScript(b *testing.B) {
	dir := b.TempDir()
	os.WriteFile(filepath.Join(dir, "check.sh"), []byte("#!/bin/sh\nDIR=$(dirname \"$0\")\n. \"$DIR/lib.sh\"\ninput=$(cat)\ncase \"$input\" in *rm*) exit 2;; esac\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib.sh"), []byte("log() { echo \"$@\" >&2; }\n"), 0o644)
	b.ReportAllocs()
	for b.Loop() {
		var h Hasher
		h.Command(`sh "$DIR"/check.sh`, dir, dir, map[string]string{"DIR": dir})
		if _, err := h.Item(KindClaude, "x"); err != nil {
			b.Fatal(err)
		}
	}
}

// benchStore writes a trust.json of n items of one project, each with a
// guard (legacy: plain fingerprint strings, as written before guards were
// recorded), and returns the user folder and the project.
func benchStore(b *testing.B, n int, legacy bool) (string, string) {
	user, project := b.TempDir(), b.TempDir()
	m := map[string]any{}
	for i := range n {
		fp := fmt.Sprintf("sha256:%064d", i)
		if legacy {
			m[fmt.Sprintf("manifest:.podcode/plugins/p%03d", i)] = fp
			continue
		}
		m[fmt.Sprintf("manifest:.podcode/plugins/p%03d", i)] = map[string]any{"fingerprint": fp, "guards": []Guard{
			{Event: "PreToolUse", Matcher: "bash|write", Source: fmt.Sprintf("p%03d (sh ./guard.sh)", i), Plugin: fmt.Sprintf("p%03d", i)}}}
	}
	data, _ := json.Marshal(map[string]any{"projects": map[string]any{ProjectKey(project): m}})
	if err := os.WriteFile(filepath.Join(user, FileName), data, 0o600); err != nil {
		b.Fatal(err)
	}
	return user, project
}

// Start-up: reading a trust store of 100 items, in the shape with guards
// and in the old one.
func BenchmarkOpenStore100(b *testing.B) {
	for _, legacy := range []bool{false, true} {
		b.Run(map[bool]string{false: "guards", true: "legacy"}[legacy], func(b *testing.B) {
			user, _ := benchStore(b, 100, legacy)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Open(user); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Start-up: asking the gate about 100 trusted items with a guard each,
// then listing the recorded guards that do not stand (none here): what
// recording guards adds to each start.
func BenchmarkGateRecorded100(b *testing.B) {
	user, project := benchStore(b, 100, false)
	st, err := Open(user)
	if err != nil {
		b.Fatal(err)
	}
	items := make([]Item, 100)
	for i := range items {
		items[i] = Item{Kind: KindManifest, Name: fmt.Sprintf(".podcode/plugins/p%03d", i), Fingerprint: fmt.Sprintf("sha256:%064d", i),
			Declared: []Guard{{Event: "PreToolUse", Matcher: "bash|write", Source: fmt.Sprintf("p%03d (sh ./guard.sh)", i), Plugin: fmt.Sprintf("p%03d", i)}}}
	}
	b.ReportAllocs()
	for b.Loop() {
		g := &Gate{Project: project, Store: st}
		for _, it := range items {
			if ok, _ := g.Allow(it); !ok {
				b.Fatal("refused")
			}
		}
		if r := g.Recorded(); len(r) != 0 {
			b.Fatal(r)
		}
	}
}

// A call a recorded guard of a removed item matches: the trust store is
// read again (100 items) to see whether it was trusted meanwhile.
func BenchmarkRecordedDeniesMissing(b *testing.B) {
	user, project := benchStore(b, 100, false)
	st, _ := Open(user)
	g := &Gate{Project: project, Store: st}
	r := g.Recorded()
	if len(r) != 100 {
		b.Fatalf("recorded %d", len(r))
	}
	denies := r[0].Denies(r[0].Guards[0])
	b.ReportAllocs()
	for b.Loop() {
		if denies() == nil {
			b.Fatal("does not deny")
		}
	}
}
