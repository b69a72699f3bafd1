package jsplugin

import (
	_ "embed"
	"strings"
)

// TypesFile is the name of the plugin API's TypeScript declarations.
const TypesFile = "podcode-plugin.d.ts"

// Types is the content of TypesFile.
//
//go:embed podcode-plugin.d.ts
var Types string

// Starter is a starter plugin named name that uses Types from
// .podcode/podcode-plugin.d.ts.
func Starter(name string) string {
	return strings.ReplaceAll(`/// <reference path="../podcode-plugin.d.ts" />
// A Podcode plugin. Docs: docs/plugins.md. Types: .podcode/podcode-plugin.d.ts.

const plugin: Podcode.Plugin = {
  id: "NAME",
  async server({ bus, cwd }, { config }) {
    bus.subscribe("tool.call.finished", (event) => {
      console.debug("tool finished", event.properties.tool)
    })
    return {
      "tool.execute.before": (input) => {
        if (input.toolID !== "bash") return undefined // no change
        const args = input.args as { command: string; timeout?: number }
        return { ...input, args: { ...args, timeout: args.timeout ?? 60_000 } }
      },
    }
  },
}

export default plugin
`, "NAME", name)
}
