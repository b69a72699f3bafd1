// Command podcode is the Podcode agent server and its command-line tools.
package main

import "github.com/podcode/podcode"

func main() { podcode.Main() }
