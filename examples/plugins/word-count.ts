/// <reference path="../../internal/jsplugin/podcode-plugin.d.ts" />
// word-count: a custom tool, word_count, that counts the lines, words and
// characters of a text file in the project, and optionally its distinct
// words.
//
// Shows: a tool hook; a zod schema as parameters (Podcode derives the JSON
// Schema the model reads from it, and validates arguments with it, so
// `unique` arrives with its default); node:fs/promises; paths relative to
// ctx.cwd, kept inside the project; honouring ctx.abort.
//
// Needs zod: run `npm ci` in examples/plugins.

import { z } from "zod"
import { readFile } from "node:fs/promises"
import { isAbsolute, relative, resolve } from "node:path"

const parameters = z.object({
  path: z.string().min(1).describe("the file to count, relative to the project"),
  unique: z.boolean().default(false).describe("also count distinct words, ignoring case and punctuation"),
})

// Punctuation trimmed from both ends of a word before comparing words.
const EDGES = /^[.,;:!?"'`()[\]{}<>«»“”‘’*_-]+|[.,;:!?"'`()[\]{}<>«»“”‘’*_-]+$/g

/** abortable settles like work, or rejects as soon as signal is aborted: the host's readFile takes no signal. */
function abortable<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason)
    signal.addEventListener("abort", onAbort, { once: true })
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort))
  })
}

function countLines(text: string): number {
  if (text === "") return 0
  const newlines = text.split("\n").length - 1
  return text.endsWith("\n") ? newlines : newlines + 1
}

// ToolDef<typeof parameters>: execute's args are inferred from the schema.
const wordCount: Podcode.ToolDef<typeof parameters> = {
  id: "word_count",
  description: "Count the lines, words and characters of a text file in the project. " +
    "Set unique to also count distinct words.",
  parameters,
  async execute(args, ctx) {
    const file = resolve(ctx.cwd, args.path)
    const rel = relative(ctx.cwd, file)
    if (rel === ".." || rel.startsWith("../") || isAbsolute(rel)) {
      throw new Error(`word_count: ${args.path} is outside the project`)
    }
    let text: string
    try {
      text = await abortable(readFile(file, "utf8"), ctx.abort)
    } catch (e) {
      if (ctx.abort.aborted) throw new Error(`word_count: cancelled while reading ${rel}`)
      throw new Error(`word_count: cannot read ${rel}: ${(e as Error).message}`)
    }

    const words = text.split(/\s+/).filter((w) => w !== "")
    const counts: Record<string, number> = {
      lines: countLines(text),
      words: words.length,
      characters: [...text].length, // code points, not UTF-16 units
    }
    if (args.unique) {
      const distinct = new Set(words.map((w) => w.replace(EDGES, "").toLowerCase()).filter((w) => w !== ""))
      counts.unique = distinct.size
    }
    const summary = Object.entries(counts).map(([k, n]) => `${n} ${k}`).join(", ")
    return { title: rel, output: `${rel}: ${summary}`, metadata: counts }
  },
}

export default Podcode.plugin({
  id: "word-count",
  server() {
    return { tool: () => [wordCount] }
  },
})
