// The end-to-end test's editor: the official TypeScript ACP client
// (@agentclientprotocol/sdk) starts `podcode acp` in a project and drives
// it: a prompt whose bash call asks permission (allowed once), a second
// prompt cancelled while its bash call sleeps, then session/load. It
// prints what it sees, one JSON object a line, for the Go test to assert.
//
// Usage: node client.mjs <podcode binary> <project directory>
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import * as acp from "@agentclientprotocol/sdk";

const [bin, project] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");

const child = spawn(bin, ["acp"], { cwd: project, stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));

const textOf = (u) => {
  if (u.content?.type === "text") return u.content.text;
  if (Array.isArray(u.content)) {
    return u.content.map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : c.type)).join("|");
  }
  return undefined;
};

let watch = () => {};
const app = acp
  .client({ name: "podcode-e2e" })
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    out({ event: "permission", session: params.sessionId, toolCallId: params.toolCall.toolCallId, title: params.toolCall.title,
      options: params.options.map((o) => o.kind) });
    const allow = params.options.find((o) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    const u = params.update;
    out({ event: "update", session: params.sessionId, update: u.sessionUpdate, status: u.status, toolCallId: u.toolCallId,
      kind: u.kind, title: u.title, locations: u.locations, text: textOf(u) });
    watch(u);
  });

try {
  await app.connectWith(stream, async (ctx) => {
    const init = await ctx.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: {} });
    out({ event: "initialized", protocolVersion: init.protocolVersion, loadSession: init.agentCapabilities?.loadSession, agent: init.agentInfo?.name });

    const { sessionId } = await ctx.request(acp.methods.agent.session.new, { cwd: project, mcpServers: [] });
    out({ event: "session", session: sessionId });

    const first = await ctx.request(acp.methods.agent.session.prompt,
      { sessionId, prompt: [{ type: "text", text: '/tool bash {"command": "echo from-bash"}' }] });
    out({ event: "stop", stopReason: first.stopReason });

    // The second prompt's call is cancelled once it runs.
    const running = new Promise((resolve) => {
      watch = (u) => u.sessionUpdate === "tool_call_update" && u.status === "in_progress" && resolve();
    });
    const second = ctx.request(acp.methods.agent.session.prompt,
      { sessionId, prompt: [{ type: "text", text: '/tool bash {"command": "sleep 30"}' }] });
    await running;
    watch = () => {};
    out({ event: "cancel" });
    await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
    out({ event: "stop", stopReason: (await second).stopReason });

    out({ event: "load" });
    await ctx.request(acp.methods.agent.session.load, { sessionId, cwd: project, mcpServers: [] });
    out({ event: "loaded" });
  });
} catch (err) {
  out({ event: "error", message: String(err?.message ?? err) });
}
try {
  child.stdin.end(); // the end of its input ends podcode acp
} catch {}
out({ event: "exit", ...(await exited) });
