package bus

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// covers P7
func TestSubscribeDeliverUnsubscribe(t *testing.T) {
	var logs bytes.Buffer
	b := New(slog.New(slog.NewTextHandler(&logs, nil)))
	var got []string
	stopOne := b.Subscribe(ToolCallFinished, "one", func(e Event) { got = append(got, "one:"+e.Type) })
	b.Subscribe("", "all", func(e Event) { got = append(got, "all:"+e.Type) })
	b.Subscribe("", "broken", func(Event) { panic("listener bug") })
	b.Subscribe("", "after", func(e Event) { got = append(got, "after:"+e.Type) })
	b.Publish(ToolCallStarted, map[string]any{"tool": "read"})
	b.Publish(ToolCallFinished, nil)
	stopOne()
	stopOne() // twice is harmless
	b.Publish(ToolCallFinished, nil)
	want := "all:tool.call.started after:tool.call.started one:tool.call.finished all:tool.call.finished after:tool.call.finished all:tool.call.finished after:tool.call.finished"
	if strings.Join(got, " ") != want {
		t.Errorf("got %q", strings.Join(got, " "))
	}
	if !strings.Contains(logs.String(), `msg="bus: listener failed" event=tool.call.started plugin=broken error="listener bug"`) {
		t.Errorf("logs: %s", logs.String())
	}
}

func TestConcurrentPublishAndSubscribe(t *testing.T) {
	b := New(nil)
	var mu sync.Mutex
	n := 0
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			stop := b.Subscribe("x", "l", func(Event) { mu.Lock(); n++; mu.Unlock() })
			defer stop()
		}()
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				b.Publish("x", map[string]any{"j": j})
			}
		}()
	}
	wg.Wait()
}

// Followers get every event they keep, in id order, even from concurrent
// publishers; ids are 1, 2, 3… in the order of publication.
func TestFollowersInIDOrder(t *testing.T) {
	b := New(nil)
	const publishers, each = 8, 200
	f := b.Follow(publishers*each, func(ev Event) bool { return ev.Type == "x" })
	defer f.Close()
	var wg sync.WaitGroup
	for i := 0; i < publishers; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < each; j++ {
				b.Publish("x", nil)
				b.Publish("y", nil)
			}
		}()
	}
	wg.Wait()
	var prev uint64
	for i := 0; i < publishers*each; i++ {
		ev := <-f.C
		if ev.ID <= prev || ev.Type != "x" {
			t.Fatalf("event %d: id %d (type %s) after %d", i, ev.ID, ev.Type, prev)
		}
		prev = ev.ID
	}
	if prev != 2*publishers*each && prev != 2*publishers*each-1 {
		t.Errorf("the last x has id %d of %d published", prev, 2*publishers*each)
	}
}

// A follower whose queue is full is dropped, never waited for; it resumes
// from the last event it took without a gap while the journal holds the
// rest.
func TestFollowerDroppedResumes(t *testing.T) {
	b := New(nil)
	all := func(Event) bool { return true }
	f := b.Follow(2, all)
	for i := 1; i <= 5; i++ {
		b.Publish("x", map[string]any{"i": i}) // returns although nobody reads
	}
	select {
	case <-f.Dropped:
	default:
		t.Fatal("a full follower was not dropped")
	}
	if b.Followers() != 0 {
		t.Errorf("%d followers after the drop", b.Followers())
	}
	var last Event
	for len(f.C) > 0 {
		last = <-f.C
	}
	if last.ID != 2 {
		t.Fatalf("the dropped follower's queue ends at id %d, want 2", last.ID)
	}
	f.Close() // after a drop: harmless
	g, replay, missed := b.Resume(last.ID, 2, all)
	defer g.Close()
	if missed || len(replay) != 3 || replay[0].ID != 3 || replay[2].ID != 5 || g.From != 5 {
		t.Errorf("resume: missed %v, replay %+v, from %d", missed, replay, g.From)
	}
	b.Publish("x", nil)
	if ev := <-g.C; ev.ID != 6 {
		t.Errorf("then live: id %d", ev.ID)
	}
}

// The journal keeps the latest events; resuming from before them, or
// from an id the bus never gave, is missed, with no replay.
func TestResumeBounds(t *testing.T) {
	b := New(nil)
	b.SetReplay(4)
	for i := 1; i <= 10; i++ {
		b.PublishFor(map[bool]string{true: "t1", false: "t2"}[i%2 == 0], "x", nil)
	}
	mine := func(ev Event) bool { return ev.Tenant == "t1" }
	for _, c := range []struct {
		after  uint64
		ids    []uint64
		missed bool
	}{
		{6, []uint64{8, 10}, false},
		{7, []uint64{8, 10}, false},
		{10, nil, false},
		{5, nil, true}, // 6 is gone
		{11, nil, true},
	} {
		f, replay, missed := b.Resume(c.after, 1, mine)
		f.Close()
		var ids []uint64
		for _, ev := range replay {
			ids = append(ids, ev.ID)
		}
		if missed != c.missed || fmt.Sprint(ids) != fmt.Sprint(c.ids) {
			t.Errorf("after %d: %v missed %v, want %v missed %v", c.after, ids, missed, c.ids, c.missed)
		}
	}
	b.SetReplay(2) // keeps the newest two
	if _, replay, missed := b.Resume(7, 1, func(Event) bool { return true }); !missed || replay != nil {
		t.Errorf("after shrinking, from 7: %v %v", replay, missed)
	}
	if _, replay, missed := b.Resume(8, 1, func(Event) bool { return true }); missed || len(replay) != 2 {
		t.Errorf("after shrinking, from 8: %v %v", replay, missed)
	}
	b.SetReplay(100) // growing keeps what there is
	if _, replay, missed := b.Resume(8, 1, func(Event) bool { return true }); missed || len(replay) != 2 || replay[1].ID != 10 {
		t.Errorf("after growing: %v %v", replay, missed)
	}
}

func TestIDs(t *testing.T) {
	b, other := New(nil), New(nil)
	for _, id := range []uint64{0, 1, 1 << 63} {
		got, ours, err := b.ParseID(b.FormatID(id))
		if err != nil || !ours || got != id {
			t.Errorf("%d: %d %v %v", id, got, ours, err)
		}
		if _, ours, err := b.ParseID(other.FormatID(id)); err != nil || ours {
			t.Errorf("another bus's id %s: ours %v, %v", other.FormatID(id), ours, err)
		}
	}
	for _, s := range []string{"", "12", "-1", "zzzzzzzz-1", b.FormatID(1) + "x", "0123456-1", b.FormatID(1)[:9] + "-1"} {
		if _, _, err := b.ParseID(s); err == nil || !strings.Contains(err.Error(), "is not an event id") {
			t.Errorf("%q: %v", s, err)
		}
	}
}

// Event ids come back from clients (Last-Event-ID): any text is an id of
// this bus, another bus's, or an error; never a panic.
func FuzzParseID(f *testing.F) {
	b := New(nil)
	f.Add(b.FormatID(42))
	f.Add("deadbeef-18446744073709551615")
	f.Add("deadbeef-18446744073709551616")
	f.Add("-")
	f.Fuzz(func(t *testing.T, s string) {
		id, ours, err := b.ParseID(s)
		if err != nil {
			if err.Error() == "" || ours {
				t.Fatal("an error without a message, or ours")
			}
			return
		}
		if ours != strings.HasPrefix(s, b.FormatID(0)[:9]) {
			t.Fatalf("%q: ours %v", s, ours)
		}
		if again, _, err := b.ParseID(b.FormatID(id)); err != nil || again != id {
			t.Fatalf("%q: %d does not round-trip", s, id)
		}
	})
}

// What Publish costs the publisher with no followers and with 100 (each
// drained by its own goroutine, as the HTTP stream's handlers do).
//
//	go test -run '^$' -bench Publish -benchmem ./internal/bus/
func BenchmarkPublish(b *testing.B) {
	for _, n := range []int{0, 100} {
		b.Run(fmt.Sprintf("followers=%d", n), func(b *testing.B) {
			bus := New(nil)
			done := make(chan struct{})
			defer close(done)
			for i := 0; i < n; i++ {
				f := bus.Follow(1024, func(Event) bool { return true })
				defer f.Close()
				go func() {
					for {
						select {
						case <-f.C:
						case <-done:
							return
						}
					}
				}()
			}
			props := map[string]any{"sessionID": "ses_1"}
			for b.Loop() {
				bus.PublishFor("1", "x", props)
			}
			b.StopTimer()
			if bus.Followers() != n {
				b.Fatalf("%d of %d followers were dropped", n-bus.Followers(), n)
			}
		})
	}
}

// A joined bus's journal begins where the node began, and holds the
// stream's ids with their gaps (events the stream dropped before this node
// took them): a replay skips the gaps, and an id from before the node
// began is missed.
func TestJournalWithGaps(t *testing.T) {
	b := New(nil)
	b.SetReplay(3)
	b.rebase(randomEpoch(), 4, nil)
	for _, id := range []uint64{5, 7, 8} {
		if !b.take(Event{ID: id, Type: "x"}) {
			t.Fatalf("event %d left out", id)
		}
	}
	if b.take(Event{ID: 8, Type: "again"}) {
		t.Error("an id the bus has passed was taken")
	}
	for _, c := range []struct {
		after  uint64
		ids    string
		missed bool
	}{
		{5, "[7 8]", false}, // 6 is a gap, not an event
		{6, "[7 8]", false},
		{4, "", true}, // 5 is no longer in the journal of 3
		{3, "", true},
	} {
		f, replay, missed := b.Resume(c.after, 1, func(Event) bool { return true })
		f.Close()
		var ids []uint64
		for _, ev := range replay {
			ids = append(ids, ev.ID)
		}
		if missed != c.missed || (!missed && fmt.Sprint(ids) != c.ids) {
			t.Errorf("after %d: %v missed %v, want %s missed %v", c.after, ids, missed, c.ids, c.missed)
		}
	}
	fresh := New(nil)
	fresh.rebase(randomEpoch(), 9, nil)
	if f, _, missed := fresh.Resume(8, 1, func(Event) bool { return true }); !missed {
		t.Error("an id from before the bus began was not missed")
	} else {
		f.Close()
	}
}
