package provider

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"sync"

	"github.com/podcode/podcode/internal/chat"
)

// Replay is the offline model answering from a recorded conversation, so
// that a plugin can be tested against fixed turns: each model call takes
// the next answer of the recording. Name the file in the config:
//
//	"provider": {"offline": {"options": {"replay": "testdata/turn.jsonl"}}}
//
// The file has one JSON answer a line:
//
//	{"text": "Let me look.", "toolCalls": [{"tool": "read", "args": {"path": "a.txt"}}]}
//	{"text": "It says hello.", "usage": {"input": 120, "output": 8}}
//
// When the recording runs out, the model says so (an error).
type Replay struct {
	file    string
	mu      sync.Mutex
	answers []recorded
	next    int
}

type recorded struct {
	Text      string `json:"text"`
	ToolCalls []struct {
		Tool string          `json:"tool"`
		Args json.RawMessage `json:"args"`
	} `json:"toolCalls"`
	Usage *chat.Usage `json:"usage"`
}

// LoadReplay reads a recording; a bad line is an error naming the file and
// the line. With sum (Connection.ReplaySum), a recording whose SHA-256 is
// another is refused: it is not what the user trusted.
func LoadReplay(file, sum string) (*Replay, error) {
	data, err := os.ReadFile(file)
	if err != nil && (sum == "" || !errors.Is(err, fs.ErrNotExist)) {
		return nil, fmt.Errorf("offline replay: %w", err)
	}
	if got := sha256.Sum256(data); sum != "" && hex.EncodeToString(got[:]) != sum {
		return nil, fmt.Errorf("offline replay %s: changed since the project's configuration was trusted at start-up; review it, run `podcode trust` and start again", file)
	}
	if err != nil {
		return nil, fmt.Errorf("offline replay: %w", err)
	}
	r := &Replay{file: file}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for n := 1; sc.Scan(); n++ {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var a recorded
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			return nil, fmt.Errorf("offline replay %s:%d: %w", file, n, err)
		}
		for i, c := range a.ToolCalls {
			if c.Tool == "" {
				return nil, fmt.Errorf("offline replay %s:%d: tool call %d has no tool", file, n, i)
			}
		}
		r.answers = append(r.answers, a)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("offline replay %s: %w", file, err)
	}
	return r, nil
}

// Stream implements Provider.
func (r *Replay) Stream(ctx context.Context, req Request, onEvent func(Event)) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, err
	}
	r.mu.Lock()
	if r.next >= len(r.answers) {
		r.mu.Unlock()
		return Response{}, fmt.Errorf("offline replay %s: the recording has no answer %d (it has %d)", r.file, r.next+1, len(r.answers))
	}
	a := r.answers[r.next]
	r.next++
	r.mu.Unlock()
	res := Response{Text: a.Text, StopReason: "stop"}
	if a.Text != "" {
		onEvent(Event{TextDelta: a.Text})
	}
	for _, c := range a.ToolCalls {
		args := c.Args
		if len(args) == 0 {
			args = json.RawMessage(`{}`)
		}
		call := chat.ToolCall{ID: chat.NewID("call"), Tool: c.Tool, Args: args}
		res.ToolCalls = append(res.ToolCalls, call)
		onEvent(Event{ToolCall: &call})
		res.StopReason = "tool_calls"
	}
	if a.Usage != nil {
		res.Usage = *a.Usage
	} else {
		res.Usage = chat.Usage{Input: estimateTokens(req), Output: int64(len(a.Text) / 4)}
	}
	return res, nil
}
