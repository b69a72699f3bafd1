package trust

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A store written before guards were recorded holds plain fingerprint
// strings: it loads, its items stay trusted, and written back (by a
// `podcode trust` of something else) nothing of it is lost: an entry
// whose guards are unknown stays so, and is completed at the first start
// that finds its item as trusted.
//
// covers the promise "a trust store written before guards were recorded still loads" (docs/security.md)
func TestStoreReadsOldEntries(t *testing.T) {
	user, project := t.TempDir(), t.TempDir()
	old := `{"projects": {"` + project + `": {"manifest:g": "sha256:1", "plugin:a.ts": "sha256:2"}, "/elsewhere": {"plugin:b.ts": "sha256:3"}}}`
	if err := os.WriteFile(filepath.Join(user, FileName), []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := Open(user)
	if err != nil {
		t.Fatal(err)
	}
	guard := Guard{Event: "PreToolUse", Matcher: "bash", Source: "g (sh ./d.sh)", Plugin: "g"}
	g := Item{Kind: KindManifest, Name: "g", Fingerprint: "sha256:1", Declared: []Guard{guard}}
	a := Item{Kind: KindPlugin, Name: "a.ts", Fingerprint: "sha256:2"}
	if st.State(project, g) != Trusted || st.State(project, a) != Trusted {
		t.Fatalf("old entries: %q %q", st.State(project, g), st.State(project, a))
	}
	c := Item{Kind: KindPlugin, Name: "c.ts", Fingerprint: "sha256:4"}
	if err := st.Record(project, []Item{c}); err != nil {
		t.Fatal(err)
	}
	st, err = Open(user)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Entry{"manifest:g": {Fingerprint: "sha256:1"}, "plugin:a.ts": {Fingerprint: "sha256:2"}, "plugin:c.ts": {Fingerprint: "sha256:4", GuardsKnown: true}}
	for k, e := range want {
		if got := st.Projects[ProjectKey(project)][k]; got.Fingerprint != e.Fingerprint || got.GuardsKnown != e.GuardsKnown || len(got.Guards) != 0 {
			t.Errorf("%s: %+v, want %+v", k, got, e)
		}
	}
	if st.Projects["/elsewhere"]["plugin:b.ts"].Fingerprint != "sha256:3" {
		t.Errorf("another project's entry was lost: %+v", st.Projects)
	}

	// Found as trusted, its guards are recorded; an item without guards
	// is left as it was.
	var logs bytes.Buffer
	gate := &Gate{Project: project, Store: st, Log: slog.New(slog.NewTextHandler(&logs, nil))}
	if ok, _ := gate.Allow(g); !ok {
		t.Fatal("an old entry is no longer trusted")
	}
	gate.Allow(a)
	st, _ = Open(user)
	if e := st.Projects[ProjectKey(project)]["manifest:g"]; !e.GuardsKnown || len(e.Guards) != 1 || e.Guards[0] != guard {
		t.Errorf("the guards of an old entry found as trusted: %+v", e)
	}
	if e := st.Projects[ProjectKey(project)]["plugin:a.ts"]; e.GuardsKnown {
		t.Errorf("an old entry without guards was rewritten: %+v", e)
	}
	if !strings.Contains(logs.String(), "recorded the guards of an item trusted before guards were recorded") {
		t.Errorf("log: %s", logs.String())
	}
	data, _ := os.ReadFile(filepath.Join(user, FileName))
	var raw struct {
		Projects map[string]map[string]json.RawMessage
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	for k, v := range raw.Projects[ProjectKey(project)] {
		if !bytes.HasPrefix(v, []byte("{")) {
			t.Errorf("%s is written in the old shape: %s", k, v)
		}
	}
}

// The guards an item declared when it was trusted are listed while it
// does not stand as trusted: changed (less the guards it still declares
// as they were) or missing (all of them). Each check denies with a message
// naming the guard, the item and `podcode trust`, until the item is
// trusted again (by another process) or forgotten; the gate shows it.
//
// covers the promise "a guard the project changed denies as trusted" (docs/security.md)
func TestRecordedGuards(t *testing.T) {
	user, project := t.TempDir(), tree(t, map[string]string{"guard.sh": "exit 2\n"})
	kept := Guard{Event: "PreToolUse", Matcher: "read", Source: "g (sh ./read.sh)", Plugin: "g"}
	lost := Guard{Event: "PreToolUse", Matcher: "bash", Source: "g (sh ./guard.sh)", Plugin: "g"}
	gone := Guard{Event: "PreToolUse", Matcher: "Bash", Source: "claude: ./c.sh (.claude/settings.json)"}
	declared := []Guard{kept, lost}
	mk := func() (Item, error) {
		var h Hasher
		h.Command("sh ./guard.sh", project, project, nil)
		it, err := h.Item(KindManifest, "g")
		it.Declared = declared
		return it, err
	}
	st, _ := Open(user)
	it, _ := mk()
	if err := st.Record(project, []Item{it, {Kind: KindClaude, Name: ".claude/settings.json", Fingerprint: "sha256:1", Declared: []Guard{gone}}}); err != nil {
		t.Fatal(err)
	}
	if r := (&Gate{Project: project, Store: st, All: true}).Recorded(); r != nil {
		t.Errorf("with trust-all: %+v", r)
	}

	// The manifest drops its guard on bash, and its script changes; the
	// .claude settings are gone.
	declared = []Guard{kept, {Event: "PreToolUse", Matcher: "nothing", Source: lost.Source, Plugin: "g"}}
	os.WriteFile(filepath.Join(project, "guard.sh"), []byte("exit 0\n"), 0o644)
	g := &Gate{Project: project, Store: st}
	w, ok, _ := g.Watch(mk)
	if ok {
		t.Fatal("a changed item was allowed")
	}
	rec := g.Recorded()
	if len(rec) != 2 || rec[0].Name != ".claude/settings.json" || !rec[0].Missing || len(rec[0].Guards) != 1 || rec[0].Guards[0] != gone ||
		rec[1].Name != "g" || rec[1].Missing || rec[1].State != Changed || len(rec[1].Guards) != 1 || rec[1].Guards[0] != lost {
		t.Fatalf("recorded: %+v", rec)
	}
	if l := w.Lost(); len(l) != 1 || l[0] != lost {
		t.Errorf("lost: %+v", l)
	}
	for _, r := range rec {
		r.Denying(r.Guards[0])
		err := r.Denies(r.Guards[0])()
		if err == nil {
			t.Fatalf("%s does not deny", r.Name)
		}
		for _, want := range []string{r.Guards[0].Source, r.Kind + " " + r.Name, "is a guard you trusted, and the project changed it since", "podcode trust"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("the deny does not say %q: %v", want, err)
			}
		}
	}
	skipped := map[string]Skip{}
	for _, s := range g.Skipped() {
		skipped[s.Name] = s
	}
	if s := skipped[".claude/settings.json"]; s.State != Changed || s.Effect != EffectDenying || !strings.Contains(s.Meaning, "removed from the project") || len(s.Guards) != 1 {
		t.Errorf("the missing item is shown as %+v", s)
	}
	if s := skipped["g"]; s.Effect != EffectDenying || !strings.Contains(s.Meaning, "it no longer declares g (sh ./guard.sh) as you trusted it") {
		t.Errorf("the changed item is shown as %+v", s)
	}
	if a := g.Asked(); len(a) != 2 || !a[1].Missing || len(a[0].Lost) != 1 {
		t.Errorf("asked: %+v", a)
	}

	// `podcode trust` from another process: the change trusted, the
	// missing item forgotten.
	other, _ := Open(user)
	now, _ := mk()
	if err := other.Update(project, []Item{now}, []string{KindClaude + ":.claude/settings.json"}); err != nil {
		t.Fatal(err)
	}
	for _, r := range rec {
		if err := r.Denies(r.Guards[0])(); err != nil {
			t.Errorf("%s still denies once trusted: %v", r.Name, err)
		}
	}
	if e, _ := other.entry(project, now.Key()); len(e.Guards) != 2 || e.Guards[1].Matcher != "nothing" {
		t.Errorf("the new content's guards were not recorded in place of the old: %+v", e)
	}
}
