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

// TSConfigFile is the name of the TypeScript project `plugin init` writes
// next to TypesFile, in .podcode.
const TSConfigFile = "tsconfig.json"

// TSConfig is a TypeScript project for the plugins in .podcode/plugins: what
// the plugin runtime has and nothing more. The library is ECMAScript without
// DOM (the runtime's web globals are declared in Types), types is empty so an
// installed @types/node cannot declare Buffer or node:fs for it, and modules
// resolve as esbuild bundles them. noEmit: Podcode compiles the plugins
// itself; tsc only checks them.
const TSConfig = `{
  "compilerOptions": {
    "target": "ES2022",
    "lib": ["ES2020", "ES2021.Promise", "ES2021.String", "ES2022.Array", "ES2022.Error", "ES2022.Object", "ES2022.String", "ES2023.Array"],
    "types": [],
    "module": "ESNext",
    "moduleResolution": "Bundler",
    "strict": true,
    "noEmit": true,
    "esModuleInterop": true,
    "isolatedModules": true,
    "skipLibCheck": true
  },
  "include": ["podcode-plugin.d.ts", "plugins/**/*.ts"]
}
`

// Starter is a starter plugin named name that uses Types from
// .podcode/podcode-plugin.d.ts.
func Starter(name string) string {
	return strings.ReplaceAll(`/// <reference path="../podcode-plugin.d.ts" />
// A Podcode plugin. Docs: docs/plugins.md. Types: .podcode/podcode-plugin.d.ts.

export default Podcode.plugin({
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
})
`, "NAME", name)
}
