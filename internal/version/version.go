// Package version says which Podcode this is.
package version

import "runtime/debug"

// PluginRuntime is the version of the plugin contract (the hooks, their
// payloads and their rules) that plugins are given as `input.version`. It
// changes only when that contract does, not with every release.
const PluginRuntime = "1"

// version is set at link time by release builds:
//
//	go build -ldflags "-X github.com/podcode/podcode/internal/version.version=v1.2.3"
var version string

// App returns Podcode's release version: the link-time value, else the module
// version recorded by `go install`, else "dev".
func App() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
