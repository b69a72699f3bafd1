package trust

import (
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
