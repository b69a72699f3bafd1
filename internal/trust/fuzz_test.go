package trust

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
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

// The trust store is the user's file, but any version of Podcode, or a
// hand edit, may have written it: decoding whatever it holds ends without
// a panic, an entry is read the same once written back (plain fingerprint
// strings included, which stay without known guards), and a gate going by
// it lists what it records without a panic.
func FuzzStore(f *testing.F) {
	f.Add([]byte(`{"projects": {"/p": {"manifest:.podcode/plugins/g": "sha256:1", "plugin:a.ts": "sha256:2"}}}`))
	f.Add([]byte(`{"projects": {"/p": {"manifest:g": {"fingerprint": "sha256:1", "guards": [{"event": "PreToolUse", "matcher": "bash", "source": "g (sh ./d.sh)", "plugin": "g"}]},
		"claude-hooks:.claude/settings.json": {"fingerprint": "sha256:2", "guards": [{"event": "PreToolUse", "matcher": "Bash", "if": "Bash(rm *)", "source": "claude: x"}]},
		"plugin:a.ts": {"fingerprint": "sha256:3", "guards": []}, "plugin:b.ts": {"fingerprint": "sha256:4"}}}}`))
	f.Add([]byte(`{"projects": {"/p": {"k": null, "x": 1, "y": {"guards": null}}}}`))
	f.Add([]byte(`{"projects": {"/p": {":": {"fingerprint": "", "guards": [{}], "extra": true}}}, "more": 1}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s Store
		if err := json.Unmarshal(data, &s); err != nil {
			return
		}
		out, err := json.Marshal(&s)
		if err != nil {
			t.Fatalf("a store read cannot be written: %v", err)
		}
		var again Store
		if err := json.Unmarshal(out, &again); err != nil {
			t.Fatalf("a store written cannot be read: %v\n%s", err, out)
		}
		if !reflect.DeepEqual(s.Projects, again.Projects) {
			t.Fatalf("written and read again, the store differs:\n%+v\n%+v", s.Projects, again.Projects)
		}
		for project := range s.Projects {
			if s.Projects[project] == nil {
				continue
			}
			g := &Gate{Project: project, Store: &Store{Projects: s.Projects}}
			for _, r := range g.Recorded() {
				if !r.Missing || len(r.Guards) == 0 {
					t.Fatalf("nothing was asked, yet %+v", r)
				}
				for _, guard := range r.Guards {
					r.Denying(guard)
				}
			}
			g.Skipped()
		}
	})
}
