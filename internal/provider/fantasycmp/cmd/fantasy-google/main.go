// Command fantasy-google makes one model call through fantasy's Google
// provider (the Gemini API): the smallest program that carries it, to
// measure its build time, binary size and start-up (README.md). With no
// arguments it only starts.
//
//	fantasy-google BASE_URL MODEL   (the key from $API_KEY)
package main

import (
	"context"
	"fmt"
	"os"

	"charm.land/fantasy"
	"charm.land/fantasy/providers/google"
)

func main() {
	if len(os.Args) != 3 {
		return
	}
	p, err := google.New(google.WithBaseURL(os.Args[1]), google.WithGeminiAPIKey(os.Getenv("API_KEY")))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := call(p, os.Args[2]); err != nil {
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
