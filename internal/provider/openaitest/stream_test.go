package openaitest_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/provider"
	"github.com/podcode/podcode/internal/provider/openaitest"
)

// A tool call, then the text once the call is answered, read by Podcode's
// own client over one kept-alive connection; the gap between the two is
// measured from the model's side.
func TestStreamServerToolLoop(t *testing.T) {
	srv, err := openaitest.NewStreamServer(func(msgs []openaitest.Brief) openaitest.Answer {
		if msgs[len(msgs)-1].Role == "tool" {
			return openaitest.Answer{Text: "done reading"}
		}
		return openaitest.Answer{Calls: []openaitest.Call{{Name: "read", Args: `{"path": "a.txt"}`}}}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	m := provider.Model{ProviderID: "fake", ModelID: "m", Connection: provider.Connection{BaseURL: srv.URL, Timeout: 10 * time.Second}}
	o := &provider.OpenAI{}
	msgs := []chat.Message{{Role: chat.RoleUser, Text: "read a.txt"}}
	res, err := o.Stream(context.Background(), provider.Request{Model: m, Messages: msgs}, func(provider.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if res.StopReason != "tool_calls" || len(res.ToolCalls) != 1 || res.ToolCalls[0].Tool != "read" || string(res.ToolCalls[0].Args) != `{"path": "a.txt"}` {
		t.Fatalf("first answer %+v", res)
	}
	call := res.ToolCalls[0]
	msgs = append(msgs, chat.Message{Role: chat.RoleAssistant, ToolCalls: res.ToolCalls},
		chat.Message{Role: chat.RoleTool, Result: &chat.Result{CallID: call.ID, Output: "some text"}})
	res, err = o.Stream(context.Background(), provider.Request{Model: m, Messages: msgs}, func(provider.Event) {})
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "done reading" || res.StopReason != "stop" {
		t.Fatalf("second answer %+v", res)
	}
	ex := srv.Exchanges()
	if len(ex) != 2 || ex[0].Replied != "" || len(ex[0].Calls) != 1 || ex[0].Calls[0] != call.ID || ex[1].Replied != call.ID {
		t.Fatalf("exchanges %+v", ex)
	}
	gaps, err := openaitest.Gaps(ex)
	if err != nil || len(gaps) != 1 || gaps[0] <= 0 || gaps[0] != ex[1].Arrived.Sub(ex[0].Answered) {
		t.Fatalf("gaps %v %v", gaps, err)
	}
	if srv.Accepted() != 1 {
		t.Errorf("%d connections for two requests in a row", srv.Accepted())
	}
	srv.Reset()
	if len(srv.Exchanges()) != 0 {
		t.Fatal("Reset kept exchanges")
	}
}

// Two requests on one raw connection: each answer is a complete HTTP/1.1
// response with a Content-Length, so a client needs nothing after it; an
// unknown path is a 404 and the connection stays usable.
func TestStreamServerKeepAlive(t *testing.T) {
	srv, err := openaitest.NewStreamServer(func([]openaitest.Brief) openaitest.Answer { return openaitest.Answer{Text: "hi"} })
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(srv.URL, "http://"), "/v1"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	body := `{"messages": [{"role": "user", "content": "hi"}]}`
	for _, path := range []string{"/v1/models", "/v1/chat/completions", "/v1/chat/completions"} {
		req, _ := http.NewRequest("POST", srv.URL[:len(srv.URL)-len("/v1")]+path, strings.NewReader(body))
		if err := req.Write(c); err != nil {
			t.Fatal(err)
		}
		res, err := http.ReadResponse(r, req)
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			sb.WriteString(sc.Text() + "\n")
		}
		res.Body.Close()
		if path == "/v1/models" {
			if res.StatusCode != 404 {
				t.Errorf("%s: %d", path, res.StatusCode)
			}
			continue
		}
		if res.StatusCode != 200 || res.ContentLength <= 0 || res.Header.Get("Content-Type") != "text/event-stream" || !strings.HasSuffix(sb.String(), "data: [DONE]\n\n") {
			t.Fatalf("%s: %d %d %q", path, res.StatusCode, res.ContentLength, sb.String())
		}
		var first map[string]any
		line, _, _ := strings.Cut(strings.TrimPrefix(sb.String(), "data: "), "\n")
		if err := json.Unmarshal([]byte(line), &first); err != nil || first["object"] != "chat.completion.chunk" {
			t.Fatalf("first chunk %q: %v", line, err)
		}
	}
}

// A body that is not JSON gets OpenAI's 400, not a crash.
func TestStreamServerBadBody(t *testing.T) {
	srv, err := openaitest.NewStreamServer(func([]openaitest.Brief) openaitest.Answer { return openaitest.Answer{Text: "hi"} })
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	res, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(`{"messages": [`))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 400 {
		t.Errorf("status %d", res.StatusCode)
	}
}

// Gaps refuses a request that answers a call nobody made.
func TestGapsUnknownCall(t *testing.T) {
	if _, err := openaitest.Gaps([]openaitest.Exchange{{Replied: "call_9"}}); err == nil {
		t.Error("no error")
	}
}

// Sessions that call the model at once keep their connections: a second
// round of 20 concurrent calls dials nothing new.
func TestConcurrentCallsKeepTheirConnections(t *testing.T) {
	// Each round's 20 calls are answered once all 20 have arrived, so that
	// they are in flight together, each on a connection of its own.
	var mu sync.Mutex
	arrived, all := 0, make(chan struct{})
	srv, err := openaitest.NewStreamServer(func([]openaitest.Brief) openaitest.Answer {
		mu.Lock()
		if arrived++; arrived == 20 {
			close(all)
		}
		wait := all
		mu.Unlock()
		<-wait
		return openaitest.Answer{Text: "ok"}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	m := provider.Model{ProviderID: "fake", ModelID: "m", Connection: provider.Connection{BaseURL: srv.URL, Timeout: 10 * time.Second}}
	round := func() {
		t.Helper()
		mu.Lock()
		arrived, all = 0, make(chan struct{})
		mu.Unlock()
		errs := make(chan error, 20)
		for range 20 {
			go func() {
				_, err := (&provider.OpenAI{}).Stream(context.Background(), provider.Request{Model: m, Messages: []chat.Message{{Role: chat.RoleUser, Text: "hi"}}}, func(provider.Event) {})
				errs <- err
			}()
		}
		for range 20 {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
	}
	round()
	first := srv.Accepted()
	if first != 20 {
		t.Fatalf("20 calls at once on %d connections", first)
	}
	round()
	if again := srv.Accepted() - first; again != 0 {
		t.Fatalf("the second round dialled %d new connections (the first %d)", again, first)
	}
}
