package tool

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigFile writes a text file of about size bytes of numbered lines.
func bigFile(b *testing.B, dir string, size int) string {
	b.Helper()
	path := filepath.Join(dir, "big.txt")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	line := strings.Repeat("x", 90)
	for n, i := 0, 0; n < size; i++ {
		k, _ := fmt.Fprintf(w, "%08d %s\n", i, line)
		n += k
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// The first 100 lines of a 200 MB file: the cost must not grow with the
// file.
func BenchmarkReadFirst100LinesOf200MB(b *testing.B) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	bigFile(b, root, 200<<20)
	read := Builtins(Options{Workspace: Workspace{Root: root}})[0]
	args := map[string]any{"path": "big.txt", "limit": 100}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := read.Execute(context.Background(), Call{}, args)
		if err != nil || !strings.Contains(res.Output, "00000099") {
			b.Fatalf("%v %.200q", err, res.Output)
		}
	}
}

// grep over a tree of 2000 small files, 40 directories deep in places.
func BenchmarkGrepTree(b *testing.B) {
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	for i := range 2000 {
		dir := filepath.Join(root, fmt.Sprintf("d%02d", i%40), fmt.Sprintf("e%02d", i%7))
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", i)), []byte(strings.Repeat("package x\nfunc f() {}\n", 50)), 0o644)
	}
	var grep *Def
	for _, d := range Builtins(Options{Workspace: Workspace{Root: root}}) {
		if d.ID == "grep" {
			grep = d
		}
	}
	args := map[string]any{"pattern": "needle"}
	b.ReportAllocs()
	for b.Loop() {
		res, err := grep.Execute(context.Background(), Call{}, args)
		if err != nil || res.Output != "no matches" {
			b.Fatalf("%v %q", err, res.Output)
		}
	}
}
