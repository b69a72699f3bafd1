package mcpclient

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/podcode/podcode/internal/tool"
)

// benchServerEnv makes this test binary an MCP server over stdio (the Go
// SDK's, with one tool, noop, that answers "ok"): the server of the
// benchmarks, as cheap as a server gets.
const benchServerEnv = "PODCODE_MCP_BENCH_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(benchServerEnv) == "1" {
		s := sdk.NewServer(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
		s.AddTool(&sdk.Tool{Name: "noop", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "ok"}}}, nil
		})
		if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func benchSpec(name string) Spec {
	return Spec{Name: name, Transport: Stdio, Command: os.Args[0], Env: map[string]string{benchServerEnv: "1"}}
}

// BenchmarkCallStdio is one call of an MCP tool through Podcode's client
// (Def.Execute: the SDK's client, the pipes, the server, the rendering).
// BenchmarkCallStdioRaw is the same call written and read as JSON lines by
// hand: the server and the pipes alone. The difference is what Podcode's
// side adds.
func BenchmarkCallStdio(b *testing.B) {
	reg := tool.NewRegistry(nil)
	set := Start(context.Background(), []Spec{benchSpec("bench")}, Options{Cwd: b.TempDir(), Tools: reg, Log: slog.New(slog.DiscardHandler)})
	defer set.Close()
	d, ok := reg.Get("bench_noop")
	if !ok {
		b.Fatalf("not ready: %+v", set.Servers()[0].Status())
	}
	ctx := context.Background()
	args := map[string]any{}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if res, err := d.Execute(ctx, tool.Call{}, args); err != nil || res.Output != "ok" {
			b.Fatalf("%+v %v", res, err)
		}
	}
}

func BenchmarkCallStdioRaw(b *testing.B) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), benchServerEnv+"=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	outPipe, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { in.Close(); cmd.Wait() }()
	out := bufio.NewReaderSize(outPipe, 1<<16)
	send := func(line string) {
		if _, err := in.Write([]byte(line + "\n")); err != nil {
			b.Fatal(err)
		}
	}
	recv := func() {
		if _, err := out.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	recv()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	b.ReportAllocs()
	b.ResetTimer()
	id := 0
	for b.Loop() {
		id++
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"noop","arguments":{}}}`, id))
		recv()
	}
}

// BenchmarkStartServers is the start of five MCP servers at once, to ready:
// they start in parallel, so five cost about what one does.
func BenchmarkStartServers(b *testing.B) {
	for _, n := range []int{1, 5} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			specs := make([]Spec, n)
			for i := range specs {
				specs[i] = benchSpec(fmt.Sprintf("s%d", i))
			}
			for b.Loop() {
				reg := tool.NewRegistry(nil)
				began := time.Now()
				set := Start(context.Background(), specs, Options{Cwd: b.TempDir(), Tools: reg, Log: slog.New(slog.DiscardHandler)})
				for _, s := range set.Servers() {
					if st := s.Status(); st.State != StateReady {
						b.Fatalf("%+v", st)
					}
				}
				b.ReportMetric(float64(time.Since(began).Microseconds())/1000, "ms/start")
				set.Close()
			}
		})
	}
}

// BenchmarkCallStdioSDK is the same call through the SDK's client alone,
// without Podcode's Execute around it.
func BenchmarkCallStdioSDK(b *testing.B) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), benchServerEnv+"=1")
	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "noop", Arguments: map[string]any{}}); err != nil {
			b.Fatal(err)
		}
	}
}
