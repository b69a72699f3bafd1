package trust

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func item(t *testing.T, dir string, command string) Item {
	t.Helper()
	var h Hasher
	h.File("podcode-plugin.json", filepath.Join(dir, "podcode-plugin.json"))
	h.Command(command, dir, dir, map[string]string{"DIR": dir})
	it, err := h.Item(KindManifest, "p")
	if err != nil {
		t.Fatal(err)
	}
	return it
}

func TestFingerprintCoversFilesAndCommands(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "podcode-plugin.json"), []byte(`{"id": "p"}`), 0o644)
	os.WriteFile(filepath.Join(dir, "run.sh"), []byte("exit 0"), 0o644)
	a := item(t, dir, "sh ./run.sh --flag")
	if !strings.Contains(strings.Join(a.Runs, "\n"), "run.sh") {
		t.Errorf("runs %v", a.Runs)
	}
	if b := item(t, dir, `sh "$DIR"/run.sh --flag`); !slices.Contains(b.Runs, "run.sh") {
		t.Errorf("a script named through a variable is not covered: %v", b.Runs)
	}
	if b := item(t, dir, "sh ./run.sh --flag"); b.Fingerprint != a.Fingerprint {
		t.Error("the same content gave two fingerprints")
	}
	if b := item(t, dir, "sh ./run.sh --other"); b.Fingerprint == a.Fingerprint {
		t.Error("a changed command line kept the fingerprint")
	}
	os.WriteFile(filepath.Join(dir, "run.sh"), []byte("rm -rf ~"), 0o644)
	if b := item(t, dir, "sh ./run.sh --flag"); b.Fingerprint == a.Fingerprint {
		t.Error("a changed script kept the fingerprint")
	}
	var d Hasher
	os.MkdirAll(filepath.Join(dir, "lib", "node_modules"), 0o755)
	os.WriteFile(filepath.Join(dir, "lib", "util.sh"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(dir, "lib", "node_modules", "big.js"), []byte("x"), 0o644)
	d.Dir(dir, dir)
	if di, _ := d.Item(KindManifest, "p"); strings.Join(di.Runs, " ") != "lib/util.sh podcode-plugin.json run.sh left out: lib/node_modules/" {
		t.Errorf("dir: %v", di.Runs)
	}
	// Parts are framed: moving bytes between two parts changes the hash.
	var x, y Hasher
	x.Hash("ab", "c")
	y.Hash("a", "bc")
	ix, _ := x.Item(KindPlugin, "n")
	iy, _ := y.Item(KindPlugin, "n")
	if ix.Fingerprint == iy.Fingerprint {
		t.Error("framing: two sequences hashed alike")
	}
}

func TestStoreAndGate(t *testing.T) {
	user, project := t.TempDir(), t.TempDir()
	st, err := Open(user)
	if err != nil {
		t.Fatal(err)
	}
	var logs bytes.Buffer
	g := &Gate{Project: project, Store: st, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	it := Item{Kind: KindPlugin, Name: ".podcode/plugins/a.ts", Fingerprint: "sha256:1"}
	if ok, why := g.Allow(it); ok || !strings.Contains(why, "never trusted") || !strings.Contains(why, "podcode trust") {
		t.Errorf("untrusted: %v %q", ok, why)
	}
	if !strings.Contains(logs.String(), "trust: project code skipped") || !strings.Contains(logs.String(), "name=.podcode/plugins/a.ts") {
		t.Errorf("log: %s", logs.String())
	}
	if err := st.Record(project, []Item{it}); err != nil {
		t.Fatal(err)
	}
	// A fresh read of the store, through a symlinked path to the project.
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(project, link)
	st2, err := Open(user)
	if err != nil {
		t.Fatal(err)
	}
	g2 := &Gate{Project: link, Store: st2}
	if ok, _ := g2.Allow(it); !ok {
		t.Error("trusted item refused")
	}
	it.Fingerprint = "sha256:2"
	if ok, why := g2.Allow(it); ok || !strings.Contains(why, "changed since it was trusted") {
		t.Errorf("changed: %v %q", ok, why)
	}
	if ok, _ := (&Gate{Project: project, Store: st2, All: true}).Allow(it); !ok {
		t.Error("trust-all refused")
	}
	if ok, why := (&Gate{Project: project, Store: st2, All: true, Disabled: true}).Allow(it); ok || !strings.Contains(why, "disable_project_plugins") {
		t.Errorf("disabled: %v %q", ok, why)
	}
	// An item is kept once, as it stands at the last question.
	if asked := g2.Asked(); len(asked) != 1 || asked[0].State != Changed {
		t.Errorf("asked %+v", asked)
	}
	if fi, err := os.Stat(filepath.Join(user, FileName)); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("store file: %v %v", fi, err)
	}
	os.WriteFile(filepath.Join(user, FileName), []byte("{not json"), 0o600)
	if _, err := Open(user); err == nil || !strings.Contains(err.Error(), FileName) {
		t.Errorf("a broken store: %v", err)
	}
}

// A watched item is checked again before each run: an edit stops it, and
// a `podcode trust` made meanwhile (another process writing the store)
// lets it run again, with no restart. Skipped follows.
func TestWatchChecksEachRun(t *testing.T) {
	user, project := t.TempDir(), tree(t, map[string]string{"guard.sh": "exit 2\n"})
	mk := func() (Item, error) {
		var h Hasher
		h.Command("sh ./guard.sh", project, project, nil)
		return h.Item(KindManifest, "guard")
	}
	st, _ := Open(user)
	g := &Gate{Project: project, Store: st}
	w, ok, why := g.Watch(mk)
	if ok || !strings.Contains(why, "never trusted") {
		t.Fatalf("never trusted: %v %q", ok, why)
	}
	if err := w.Check(); err == nil || !strings.Contains(err.Error(), "manifest guard never trusted") || !strings.Contains(err.Error(), "podcode trust") {
		t.Errorf("check: %v", err)
	}
	w.Guard("guard (sh ./guard.sh)")
	if s := g.Skipped(); len(s) != 1 || s[0].Effect != EffectDenying || s[0].State != NeverTrusted || !strings.Contains(s[0].Meaning, "guard (sh ./guard.sh)") {
		t.Errorf("skipped: %+v", s)
	}

	// `podcode trust`, from another process.
	other, _ := Open(user)
	it, _ := mk()
	if err := other.Record(project, []Item{it}); err != nil {
		t.Fatal(err)
	}
	if err := w.Check(); err != nil {
		t.Errorf("trusted meanwhile: %v", err)
	}
	if s := g.Skipped(); len(s) != 0 {
		t.Errorf("skipped once trusted: %+v", s)
	}

	os.WriteFile(filepath.Join(project, "guard.sh"), []byte("exit 0 # all fine\n"), 0o644)
	if err := w.Check(); err == nil || !strings.Contains(err.Error(), "changed since it was trusted") {
		t.Errorf("edited: %v", err)
	}
	if a := g.Asked(); len(a) != 1 || a[0].State != Changed {
		t.Errorf("asked: %+v", a)
	}

	all := &Gate{Project: project, Store: st, All: true}
	wa, ok, _ := all.Watch(mk)
	if !ok || wa.Check() != nil || len(all.Skipped()) != 0 {
		t.Error("trust-all refused")
	}
	off := &Gate{Project: project, Store: other, Disabled: true, All: true}
	wo, ok, _ := off.Watch(mk)
	if s := off.Skipped(); ok || wo.Check() == nil || len(s) != 1 || s[0].State != DisabledState || s[0].Effect != EffectSkipped {
		t.Errorf("disabled: %v %+v", ok, s)
	}
}
