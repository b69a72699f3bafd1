package bus

import (
	"bytes"
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
