// A small MCP server built on the official TypeScript SDK, for the tests of
// what the SDK's own example servers do not show: a tool list that changes
// while connected, a flood of notifications that it changed, a call that
// waits until cancelled, a server that dies, tools of any name (PROBE_TOOLS,
// comma-separated). Every event the tests look for is appended, one JSON
// object a line, to the file named by PROBE_LOG; each tools/list request
// is one ({"list": true}).
import { appendFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const log = (event) => {
  if (process.env.PROBE_LOG) appendFileSync(process.env.PROBE_LOG, JSON.stringify({ pid: process.pid, ...event }) + "\n");
};

const server = new McpServer({ name: "probe", version: "1.0.0" });

server.registerTool("shout", {
  description: "Upper-cases its text and says which process answered",
  inputSchema: { text: z.string() },
}, async ({ text }) => {
  log({ call: "shout", text });
  return { content: [{ type: "text", text: `${text.toUpperCase()} (pid ${process.pid})` }] };
});

server.registerTool("wait", {
  description: "Waits until cancelled, or for ms milliseconds",
  inputSchema: { ms: z.number() },
}, async ({ ms }, extra) => {
  log({ call: "wait", ms });
  await new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    extra.signal.addEventListener("abort", () => {
      clearTimeout(t);
      log({ cancelled: "wait" });
      resolve();
    });
  });
  return { content: [{ type: "text", text: "waited" }] };
});

server.registerTool("grow", {
  description: "Adds a tool named added",
  inputSchema: {},
}, async () => {
  server.registerTool("added", { description: "Added while connected", inputSchema: {} },
    async () => ({ content: [{ type: "text", text: "added answers" }] }));
  return { content: [{ type: "text", text: "grown" }] };
});

server.registerTool("fail", {
  description: "Answers with an error result",
  inputSchema: {},
}, async () => ({ isError: true, content: [{ type: "text", text: "the probe failed on purpose" }] }));

server.registerTool("die", {
  description: "Exits the process",
  inputSchema: {},
}, async () => {
  log({ call: "die" });
  process.exit(3);
});

// flood sends notifications/tools/list_changed n times, then pings the
// client: the client answers a request only after handling what came
// before it, so when the ping returns the client has handled every
// notification. Until then tools/list requests are held, unanswered, so
// that the client's handling of the flood and its lists do not overlap.
let holding = false;
const held = [];
server.registerTool("flood", {
  description: "Sends notifications/tools/list_changed n times, as fast as it can",
  inputSchema: { n: z.number() },
}, async ({ n }) => {
  holding = true;
  // Straight to the transport: the SDK's own sendToolListChanged may be
  // debounced, and the flood is the point.
  for (let i = 0; i < n; i++) transport.send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
  await server.server.ping();
  log({ call: "flood", n });
  holding = false;
  for (const [message, extra] of held.splice(0)) handle(message, extra);
  return { content: [{ type: "text", text: `sent ${n}` }] };
});

for (const name of (process.env.PROBE_TOOLS ?? "").split(",").filter(Boolean)) {
  server.registerTool(name, { description: `The tool ${name}`, inputSchema: {} },
    async () => ({ content: [{ type: "text", text: `${name} answers` }] }));
}

if (process.env.PROBE_STDERR) {
  for (let i = 0; i < Number(process.env.PROBE_STDERR); i++) console.error(`probe stderr line ${i}`);
}
log({ started: true, env: process.env.PROBE_VALUE ?? null });
const transport = new StdioServerTransport();
await server.connect(transport);
const handle = transport.onmessage;
transport.onmessage = (message, extra) => {
  if (message.method === "tools/list") {
    log({ list: true });
    if (holding) {
      held.push([message, extra]);
      return;
    }
  }
  handle(message, extra);
};
