/// <reference path="../../internal/jsplugin/podcode-plugin.d.ts" />
// redact-secrets: a tool.execute.after hook that replaces secrets in a tool's
// output with [REDACTED] before the model reads it, and counts them in
// result.metadata.redacted.
//
// Shows: rewriting a result whatever tool produced it; returning the whole
// payload (a hook's return value replaces the payload, so spread what you
// keep); returning undefined for "no change".
//
// Only result.output is scrubbed: it is what the model reads. The title (for
// bash, the command) was written by the model, so it holds nothing new.
// A tool that fails runs this hook too: its error text is result.output
// (with result.metadata.error true), so a secret in an error is scrubbed.

const REDACTED = "[REDACTED]"

// Whole-token patterns, tried in this order. The private key block comes
// first so that its body is replaced as one secret.
const TOKENS: RegExp[] = [
  // PEM private keys: RSA, EC, OPENSSH, ENCRYPTED, or plain PKCS#8.
  /-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?-----END ([A-Z0-9]+ )*PRIVATE KEY-----/g,
  // AWS access key ids.
  /\b(AKIA|ASIA)[0-9A-Z]{16}\b/g,
  // OpenAI-style API keys: sk-..., sk-proj-...
  /\bsk-[A-Za-z0-9_-]{20,}/g,
  // GitHub tokens: personal (ghp_), OAuth (gho_), user (ghu_), server (ghs_),
  // refresh (ghr_), and fine-grained personal tokens.
  /\bgh[pousr]_[A-Za-z0-9]{36,}\b/g,
  /\bgithub_pat_[A-Za-z0-9_]{22,}\b/g,
]

// NAME=value assignments whose name says it holds a secret (DB_PASSWORD=,
// export GITHUB_TOKEN=, client_secret=), anywhere in a line: the read tool
// numbers lines, a shell prefixes `export`. The name and the = stay; the rest
// of the line goes.
const ASSIGNMENT = /\b([A-Za-z_][A-Za-z0-9_.-]*(?:SECRET|TOKEN|PASSWORD|PASSWD)[A-Za-z0-9_.-]*\s*=\s*)(\S.*)$/gim

/** redact returns text with every secret replaced, and how many there were. */
function redact(text: string): { text: string; count: number } {
  let count = 0
  let out = text.replace(TOKENS[0], () => {
    count++
    return REDACTED
  })
  out = out.replace(ASSIGNMENT, (_line: string, name: string, value: string) => {
    if (value.trim() === REDACTED) return name + value // already gone
    count++
    return name + REDACTED
  })
  for (const pattern of TOKENS.slice(1)) {
    out = out.replace(pattern, () => {
      count++
      return REDACTED
    })
  }
  return { text: out, count }
}

export default Podcode.plugin({
  id: "redact-secrets",
  server() {
    return {
      "tool.execute.after": (input) => {
        const { output } = input.result
        if (typeof output !== "string") return undefined
        const { text, count } = redact(output)
        if (count === 0) return undefined // no change: the original result goes on
        const before = input.result.metadata?.redacted
        const earlier = typeof before === "number" ? before : 0 // another redactor ran first
        return {
          ...input,
          result: {
            ...input.result,
            output: text,
            metadata: { ...input.result.metadata, redacted: earlier + count },
          },
        }
      },
    }
  },
})
