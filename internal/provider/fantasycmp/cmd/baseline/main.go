// Command baseline posts a JSON body and prints the answer with the
// standard library alone: the floor under the other programs' build time,
// size and start-up (README.md). With no arguments it only starts.
//
//	baseline URL
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		return
	}
	body, _ := json.Marshal(map[string]any{"messages": []map[string]string{{"role": "user", "content": "hi"}}, "stream": true})
	res, err := http.Post(os.Args[1], "application/json", bytes.NewReader(body))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer res.Body.Close()
	io.Copy(os.Stdout, res.Body)
}
