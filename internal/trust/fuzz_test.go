package trust

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A command line, the script it may run and a Makefile are the project's,
// so an attacker's: following them must end, within the project, without
// a panic, whatever they hold.
func FuzzCommand(f *testing.F) {
	f.Add("sh ./s.sh --flag", ". ./lib.sh\nDIR=$(cd \"$(dirname \"$0\")\" && pwd)\nsource \"$DIR/s.sh\"\nsh \"${BASH_SOURCE%/*}\"/s.sh\n", "include Makefile\n")
	f.Add("make -s check", "X=a; if y; then X=b; fi; . ./$X.sh", "V := s.sh\ncheck:\n\t@sh $(V) $$HOME\ninclude $(V)\nx: ; sh s.sh\n")
	f.Add(`bash -c "sh -c 'sh s.sh'" < s.sh`, "for f in a b c d e f g h i j k l m n o p q; do . ./$f$f$f$f; done", "$(shell rm -rf ~)\n")
	f.Add("env -i A=1 timeout 3 nice -n 2 python3 -u s.sh", "#!/usr/bin/env -S node --x\n", "define X\nendef\n")
	f.Add("cd .. && cd - && ./s.sh", "case $x in *) eval $y;; esac; f() { f; }; f", "-include *.mk\n")
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, command, script, makefile string) {
		if err := os.WriteFile(filepath.Join(dir, "s.sh"), []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "Makefile"), []byte(makefile), 0o644); err != nil {
			t.Fatal(err)
		}
		var h Hasher
		reads := h.Command(command, dir, dir, map[string]string{"DIR": dir})
		reads = append(reads, h.Exec(command, strings.Fields(script), dir, dir, nil)...)
		it, _ := h.Item(KindClaude, "fuzz")
		if !strings.HasPrefix(it.Fingerprint, "sha256:") {
			t.Fatalf("fingerprint %q", it.Fingerprint)
		}
		for _, r := range reads {
			if _, ok := within(dir, r); !ok {
				t.Fatalf("a directory outside the project: %s", r)
			}
		}
	})
}
