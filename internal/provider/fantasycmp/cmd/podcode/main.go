// Command podcode makes one model call through Podcode's providers: the
// smallest program that carries them, to measure their build time, binary
// size and start-up (README.md). With no arguments it only starts.
//
//	podcode API BASE_URL MODEL   (the key from $API_KEY)
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/podcode/podcode/internal/chat"
	"github.com/podcode/podcode/internal/provider"
)

func main() {
	if len(os.Args) != 4 {
		return
	}
	m := provider.Model{ProviderID: os.Args[1], ModelID: os.Args[3],
		Connection: provider.Connection{API: os.Args[1], BaseURL: os.Args[2], APIKey: os.Getenv("API_KEY")}}
	p, err := provider.For(m, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	req := provider.Request{Model: m, Params: provider.Params{MaxOutputTokens: 1024}, Messages: []chat.Message{{Role: chat.RoleUser, Text: "hi"}}}
	res, err := p.Stream(context.Background(), req, func(provider.Event) {})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(res.Text)
}
