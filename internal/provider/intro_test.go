package provider

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/podcode/podcode/internal/chat"
)

// The offline model's first echo in a session of `podcode run` says what
// it is and where the page is that says how to configure a provider;
// later echoes, and other channels (programs using the API), get the echo
// alone.
func TestOfflineEchoIntroducesItself(t *testing.T) {
	on := func(Event) {}
	user := chat.Message{Role: chat.RoleUser, Text: "hello"}
	res, err := OfflineModel{}.Stream(context.Background(), Request{Channel: "cli", Messages: []chat.Message{user}}, on)
	if err != nil || res.Text != "You said: hello\n\n"+Intro {
		t.Errorf("first answer: %q %v", res.Text, err)
	}
	later := []chat.Message{user, {Role: chat.RoleAssistant, Text: "You said: hello"}, {Role: chat.RoleUser, Text: "again"}}
	if res, _ := (OfflineModel{}).Stream(context.Background(), Request{Channel: "cli", Messages: later}, on); res.Text != "You said: again" {
		t.Errorf("later answer: %q", res.Text)
	}
	if res, _ := (OfflineModel{}).Stream(context.Background(), Request{Channel: "api", Messages: []chat.Message{user}}, on); res.Text != "You said: hello" {
		t.Errorf("api: %q", res.Text)
	}
	// The page it names exists and says how.
	page := regexp.MustCompile(`docs/[a-z-]+\.md`).FindString(Intro)
	doc, err := os.ReadFile(filepath.Join("..", "..", page))
	if err != nil {
		t.Fatalf("the intro names %q: %v", page, err)
	}
	for _, want := range []string{`"baseURL"`, `"apiKey": "{env:`, `"model"`} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("%s does not show %s", page, want)
		}
	}
}
