// Command fantasy-all makes one model call through one of fantasy's
// Anthropic, OpenAI (Responses API) and Google (Gemini API) providers: the
// smallest program that carries the three, as Podcode's provider package
// carries all of its APIs, to measure its build time, binary size and
// start-up (README.md). With no arguments it only starts.
//
//	fantasy-all anthropic|openai|google BASE_URL MODEL   (the key from $API_KEY)
package main

import (
	"context"
	"fmt"
	"os"

	"charm.land/fantasy"
	"charm.land/fantasy/providers/anthropic"
	"charm.land/fantasy/providers/google"
	"charm.land/fantasy/providers/openai"
)

func main() {
	if len(os.Args) != 4 {
		return
	}
	key := os.Getenv("API_KEY")
	var p fantasy.Provider
	var err error
	switch base := os.Args[2]; os.Args[1] {
	case "anthropic":
		p, err = anthropic.New(anthropic.WithBaseURL(base), anthropic.WithAPIKey(key))
	case "openai":
		p, err = openai.New(openai.WithBaseURL(base), openai.WithAPIKey(key), openai.WithUseResponsesAPI())
	case "google":
		p, err = google.New(google.WithBaseURL(base), google.WithGeminiAPIKey(key))
	default:
		err = fmt.Errorf("no provider %q", os.Args[1])
	}
	if err == nil {
		err = call(p, os.Args[3])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func call(p fantasy.Provider, model string) error {
	ctx := context.Background()
	lm, err := p.LanguageModel(ctx, model)
	if err != nil {
		return err
	}
	stream, err := lm.Stream(ctx, fantasy.Call{Prompt: fantasy.Prompt{fantasy.NewUserMessage("hi")}})
	if err != nil {
		return err
	}
	for part := range stream {
		switch part.Type {
		case fantasy.StreamPartTypeTextDelta:
			fmt.Print(part.Delta)
		case fantasy.StreamPartTypeError:
			return part.Error
		}
	}
	fmt.Println()
	return nil
}
