// An MCP client made with the official TypeScript SDK, driving a Podcode
// MCP server; it prints one JSON line per step for the Go test to check.
//
//   node client.mjs stdio <podcode binary> <project directory>
//   node client.mjs http <url of /mcp> <token>
//
// Steps: list the tools; call bash with a destructive command (a guard
// denies it); call read of notes.txt (it works, a plugin redacts it); then
// close. The packages come from the MCP tests' node_modules, which
// scripts/test installs.
import { Client } from "../../mcpclient/testdata/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js"
import { StdioClientTransport } from "../../mcpclient/testdata/node_modules/@modelcontextprotocol/sdk/dist/esm/client/stdio.js"
import { StreamableHTTPClientTransport } from "../../mcpclient/testdata/node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js"

const [mode, target, extra] = process.argv.slice(2)

function print(step, value) {
  process.stdout.write(JSON.stringify({ step, ...value }) + "\n")
}

function textOf(result) {
  return result.content.filter((c) => c.type === "text").map((c) => c.text).join("")
}

let transport
if (mode === "stdio") {
  transport = new StdioClientTransport({ command: target, args: ["mcp", "serve"], cwd: extra, env: { ...process.env }, stderr: "inherit" })
} else if (mode === "http") {
  transport = new StreamableHTTPClientTransport(new URL(target), { requestInit: { headers: { Authorization: `Bearer ${extra}` } } })
} else {
  console.error(`usage: node client.mjs stdio|http ...: unknown mode ${mode}`)
  process.exit(2)
}

const client = new Client({ name: "podcode-e2e", version: "1.0.0" })
try {
  await client.connect(transport)
  const info = client.getServerVersion()
  print("connected", { server: info?.name, listChanged: client.getServerCapabilities()?.tools?.listChanged === true })
  const { tools } = await client.listTools()
  print("tools", { names: tools.map((t) => t.name).sort(), read: tools.find((t) => t.name === "read") })
  const denied = await client.callTool({ name: "bash", arguments: { command: "rm -rf victim" } })
  print("denied", { isError: denied.isError === true, text: textOf(denied) })
  const read = await client.callTool({ name: "read", arguments: { path: "notes.txt" } })
  print("read", { isError: read.isError === true, text: textOf(read) })
  await client.close()
  print("closed", {})
} catch (e) {
  print("error", { message: String(e?.stack ?? e) })
  process.exit(1)
}
