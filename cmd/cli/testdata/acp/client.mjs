// An editor as the official TypeScript ACP SDK's client: it starts
// `ollm acp`, runs the session TestACPTypeScriptClient scripts the fake
// model for (new, prompts, cancel; load; list and resume; a config option
// and a fork), and prints
// what it saw as one JSON object.
//
//   node client.mjs NPM_DIR OLLM WORKSPACE
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import { join } from "node:path";

const [npmDir, ollm, ws] = process.argv.slice(2);
const require = createRequire(join(npmDir, "package.json"));
const acp = await import(pathToFileURL(require.resolve("@agentclientprotocol/sdk")).href);
// session/fork is in the SDK's unstable methods only.
const unstable = await import(pathToFileURL(require.resolve("@agentclientprotocol/sdk/unstable")).href);

const seen = { updates: [], permissions: [], writes: [], reads: [], stops: [], replayUsers: [], pid: 0 };
let answers = [];
let onUpdate = () => {};

function start() {
  const child = spawn(ollm, ["acp"], { cwd: ws, stdio: ["pipe", "pipe", "inherit"] });
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  const app = acp
    .client({ name: "ollm-test" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      seen.updates.push(params.update);
      onUpdate(params.update);
    })
    .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
      seen.permissions.push({
        toolCallId: params.toolCall.toolCallId,
        options: params.options.map((o) => o.kind),
        diff: (params.toolCall.content || []).some((c) => c.type === "diff"),
      });
      return { outcome: { outcome: "selected", optionId: answers.shift() } };
    })
    .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => {
      seen.reads.push(params.path);
      const { readFile } = await import("node:fs/promises");
      return { content: await readFile(params.path, "utf8") };
    })
    .onRequest(acp.methods.client.fs.writeTextFile, async ({ params }) => {
      seen.writes.push({ path: params.path, content: params.content });
      const { writeFile } = await import("node:fs/promises");
      await writeFile(params.path, params.content); // the editor saves the buffer
      return {};
    });
  return { child, stream, app };
}

async function initialize(ctx) {
  const init = await ctx.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
  });
  if (!init.agentCapabilities.loadSession) throw new Error("no loadSession capability");
}

const prompt = async (ctx, sessionId, text) => {
  const r = await ctx.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
  seen.stops.push(r.stopReason);
  return r;
};

// One connection: a new session, a write allowed once, a write rejected,
// then a shell command cancelled while it runs (in yolo mode).
let sessionId;
{
  const { child, stream, app } = start();
  await app.connectWith(stream, async (ctx) => {
    await initialize(ctx);
    const created = await ctx.request(acp.methods.agent.session.new, { cwd: ws, mcpServers: [] });
    sessionId = created.sessionId;
    seen.newConfig = (created.configOptions || []).map((o) => `${o.id}=${o.currentValue} [${o.options.map((v) => v.value).join(" ")}]`);
    answers = ["allow_once"];
    await prompt(ctx, sessionId, "write a.txt");
    answers = ["deny"];
    await prompt(ctx, sessionId, "write b.txt");
    await ctx.request(acp.methods.agent.session.setMode, { sessionId, modeId: "yolo" });
    const running = new Promise((resolve) => {
      onUpdate = (u) => {
        if (u.sessionUpdate !== "tool_call_update" || !Array.isArray(u.content)) return; // message chunks carry one block
        const text = u.content.map((c) => (c.type === "content" ? c.content.text : "")).join("");
        const m = u.sessionUpdate === "tool_call_update" && /pid (\d+)/.exec(text);
        if (m) resolve(Number(m[1]));
      };
    });
    const turn = prompt(ctx, sessionId, "wait a minute");
    seen.pid = await running;
    await ctx.notify(acp.methods.agent.session.cancel, { sessionId });
    await turn;
    onUpdate = () => {};
  });
  child.stdin.end();
  await new Promise((r) => child.on("exit", r));
}

// The editor restarts: the session is loaded with its history and goes on.
{
  const { child, stream, app } = start();
  const before = (seen.firstCount = seen.updates.length);
  await app.connectWith(stream, async (ctx) => {
    await initialize(ctx);
    await ctx.request(acp.methods.agent.session.load, { sessionId, cwd: ws, mcpServers: [] });
    seen.replayUsers = seen.updates.slice(before).filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text);
    await prompt(ctx, sessionId, "still there?");
  });
  child.stdin.end();
  await new Promise((r) => child.on("exit", r));
}

// A third start: the editor lists the workspace's sessions and resumes
// this one, which goes on without a replay.
{
  const { child, stream, app } = start();
  const before = (seen.secondCount = seen.updates.length);
  await app.connectWith(stream, async (ctx) => {
    await initialize(ctx);
    const list = await ctx.request(acp.methods.agent.session.list, { cwd: ws });
    seen.listed = list.sessions.map((s) => ({ id: s.sessionId, title: s.title || "", cwd: s.cwd }));
    await ctx.request(acp.methods.agent.session.resume, { sessionId, cwd: ws });
    seen.resumeReplayed = seen.updates.slice(before).filter((u) => u.sessionUpdate === "user_message_chunk").length;
    await prompt(ctx, sessionId, "resumed");
    // The config options and a fork, as this SDK reads them.
    const set = await ctx.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: "mode", value: "plan" });
    seen.configMode = set.configOptions.find((o) => o.id === "mode").currentValue;
    const fork = await ctx.request(unstable.methods.agent.session.fork, { sessionId, cwd: ws });
    seen.fork = { different: fork.sessionId !== sessionId, mode: fork.modes.currentModeId, options: fork.configOptions.map((o) => o.id) };
    seen.listedAfterFork = (await ctx.request(acp.methods.agent.session.list, { cwd: ws })).sessions.length;
  });
  child.stdin.end();
  await new Promise((r) => child.on("exit", r));
}

const first = seen.updates.slice(0, seen.firstCount);
const summary = {
  sessionId,
  stops: seen.stops,
  pid: seen.pid,
  replayUsers: seen.replayUsers,
  listed: seen.listed,
  resumeReplayed: seen.resumeReplayed,
  newConfig: seen.newConfig,
  configMode: seen.configMode,
  fork: seen.fork,
  listedAfterFork: seen.listedAfterFork,
  replayText: seen.updates.slice(seen.firstCount, seen.secondCount).filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join(""),
  permissions: seen.permissions,
  writes: seen.writes,
  text: first.filter((u) => u.sessionUpdate === "agent_message_chunk").map((u) => u.content.text).join(""),
  toolCalls: first
    .filter((u) => u.sessionUpdate === "tool_call")
    .map((u) => ({ id: u.toolCallId, kind: u.kind, status: u.status, diff: (u.content || []).find((c) => c.type === "diff") || null, locations: u.locations || [] })),
  finalStatus: Object.fromEntries(
    first.filter((u) => u.sessionUpdate.startsWith("tool_call") && u.status).map((u) => [u.toolCallId, u.status]),
  ),
};
process.stdout.write(JSON.stringify(summary) + "\n");
