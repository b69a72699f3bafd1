/// <reference path="../podcode-plugin.d.ts" />
// What the declarations must reject, because it fails in Podcode's runtime.
// Each line that must be an error ends with the TypeScript error code
// expected on it ("want TSnnnn"); a type-check must report exactly those.

import { z } from "zod"
import { readFileSync } from "node:fs" // want TS2307
import { execSync } from "node:child_process" // want TS2307
import { existsSync } from "node:fs/promises" // want TS2305

export const bytes = Buffer.from("no Buffer in Podcode") // want TS2591
export const title = document.title // want TS2584
export const req = new Request("https://example.com") // want TS2304
export const fsSync = require("fs") // want TS2591
export const later = setImmediate(() => undefined) // want TS2304
export const latin = new TextDecoder("latin1") // want TS2345

const schema = z.object({ path: z.string() })
export const tool: Podcode.ToolDef<typeof schema> = {
  id: "misuse",
  description: "args are inferred",
  parameters: schema,
  execute(args) {
    const n: number = args.path // want TS2322
    return { title: String(args.missing), output: String(n) } // want TS2339
  },
}

export async function base64(p: string) {
  return [readFileSync, execSync, existsSync, await import("node:fs/promises").then((fs) => fs.readFile(p, "base64"))] // want TS2769
}

// A key of the hooks that is no hook, beside one that is: never called, so
// an error of the type-check (Podcode.plugin; SPEC P10 keeps it silent at load).
export const typo = Podcode.plugin({ id: "typo", server: () => ({ "tool.before": () => undefined, "chat.params": (p) => p }) }) // want TS2322
export const typoAsync = Podcode.plugin({ id: "typo-async", async server() { return { "tool.exec.after": () => undefined, tool: () => [] } } }) // want TS2322
