/// <reference path="../podcode-plugin.d.ts" />
// What the declarations must accept: the web and Node APIs Podcode provides,
// and tools whose execute args are inferred from a zod 4 (classic or mini) or
// zod 3 schema. A type-check of this file fails when they regress.

import { z } from "zod"
import * as zm from "zod/mini"
import { z as z3 } from "zod/v3"
import { readFile, readdir, stat, writeFile } from "node:fs/promises"
import * as fs from "fs/promises"
import path, { join, relative } from "node:path"
import { basename } from "path/posix"

/** true exactly when A and B are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false

const classic = z.object({ path: z.string(), unique: z.boolean().default(false), limit: z.number().optional() })
const mini = zm.object({ path: zm.string(), tags: zm.array(zm.string()) })
const legacy = z3.object({ path: z3.string(), depth: z3.number().default(1) })

const classicTool: Podcode.ToolDef<typeof classic> = {
  id: "classic",
  description: "zod 4",
  parameters: classic,
  execute(args, ctx) {
    const same: Equal<typeof args, { path: string; unique: boolean; limit?: number | undefined }> = true
    return { title: args.path + ctx.cwd, output: String(same && !ctx.abort.aborted) }
  },
}

const miniTool: Podcode.ToolDef<typeof mini> = {
  id: "mini",
  description: "zod 4 mini",
  parameters: mini,
  execute: (args) => {
    const same: Equal<typeof args, { path: string; tags: string[] }> = true
    return { title: args.tags.join(","), output: String(same) }
  },
}

const legacyTool: Podcode.ToolDef<typeof legacy> = {
  id: "legacy",
  description: "zod 3",
  parameters: legacy,
  async execute(args) {
    const same: Equal<typeof args, { path: string; depth: number }> = true
    return { title: args.path, output: String(same && args.depth) }
  },
}

// A JSON Schema: the type argument is the arguments' type.
const jsonTool: Podcode.ToolDef<{ pattern: string }> = {
  id: "json",
  description: "JSON Schema",
  parameters: { type: "object", properties: { pattern: { type: "string" } }, required: ["pattern"] },
  execute: (args) => ({ title: args.pattern, output: "" }),
}

async function web(signal: AbortSignal): Promise<string> {
  const url = new URL("/v1/items?q=1", "https://example.com")
  url.search = new URLSearchParams({ q: "1", page: String(url.searchParams.get("page") ?? 2) }).toString()
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ a: 1 }),
    signal: AbortSignal.timeout(1000),
  })
  const h = new Headers([["x", "1"]])
  h.append("y", String(res.headers.get("content-type")))
  const text: string = res.ok ? await res.text() : res.statusText
  const bytes: Uint8Array = new TextEncoder().encode(text)
  const back: string = new TextDecoder().decode(bytes)
  const copy = structuredClone({ when: new Date(), tags: new Set(["a"]) })
  const ctrl = new AbortController()
  signal.addEventListener("abort", () => ctrl.abort(signal.reason), { once: true })
  const t = setTimeout((n: number) => console.debug("tick", n), 10, 1)
  clearTimeout(t)
  const i = setInterval(() => undefined, 1000)
  clearInterval(i)
  queueMicrotask(() => console.log(process.env.HOME, process.cwd(), process.platform))
  return back + copy.tags.size + [1, 2, 3].at(-1) + "x".replaceAll("x", "y") + Object.hasOwn(copy, "when")
}

async function files(dir: string): Promise<number> {
  const text: string = await readFile(join(dir, "a.txt"), "utf8")
  const raw: Uint8Array = await fs.readFile(join(dir, "a.txt"))
  await writeFile(path.resolve(dir, "b.txt"), text + raw.length)
  const names: string[] = await readdir(dir)
  const st = await stat(dir)
  return names.length + st.size + (st.isDirectory() ? 1 : 0) + relative(dir, "/").length + basename(dir, ".ts").length
}

export default Podcode.plugin({
  id: "usage",
  async server({ bus, cwd }) {
    await files(cwd)
    bus.subscribe("tool.call.finished", (event) => console.info(event.properties.tool))
    return {
      tool: () => [classicTool, miniTool, legacyTool, jsonTool],
      "chat.params": (p) => ({ ...p, temperature: 0.2 }),
      lifecycle: { PreToolUse: async (payload) => (payload.tool_name === "bash" ? { decision: "ask", message: await web(new AbortController().signal) } : undefined) },
    }
  },
})
