/**
 * The stdio runtime as the daemon meets it: a real child process (`node runner.ts <plugin.js>`, the
 * installed echo-ts fixture) driven by an RpcPeer playing the daemon — handshake, init, start with its
 * registrations, every kind of call, cancellation, deadlines, stop, EOF and the parent-death watchdog.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import test from "node:test";
import { entryPath, NODE_FLAGS } from "../../../../test/fixtures/node-entry.js";
import { installFixturePlugin } from "../../../../test/fixtures/plugins.js";
import { tempDir } from "../../../../test/fixtures/temp-dir.js";
import { waitFor } from "../../../../test/fixtures/wait.js";
import { PROTOCOL_VERSION } from "../protocol/index.js";
import { RpcPeer } from "../protocol/peer.js";
import { RPC_DEADLINE, RpcError } from "../protocol/rpc-error.js";
import type { StageSnapshot } from "../protocol/stage-patch.js";

const RUNNER = entryPath("packages/sdk/src/stdio/runner.ts");
/** The child loads the SDK the way this test does (compiled, or from source through tsx). */
const NODE_ARGS = NODE_FLAGS;

type CoreHandler = (method: string, params: unknown[]) => unknown;

interface Child {
  proc: ChildProcess;
  peer: RpcPeer;
  /** core.* requests, in arrival order. */
  calls: Array<{ method: string; params: unknown[] }>;
  /** Notifications (core.log.*), in arrival order. */
  notes: Array<{ method: string; params: unknown }>;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: string | null }>;
}

function runPlugin(entry: string, onCore: CoreHandler = () => null): Child {
  const proc = spawn(process.execPath, [...NODE_ARGS, RUNNER, entry], {
    cwd: join(entry, ".."),
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  proc.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    proc.once("exit", (code, signal) => resolve({ code, signal })),
  );
  test.after(() => {
    if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGKILL");
  });
  const calls: Child["calls"] = [];
  const notes: Child["notes"] = [];
  const peer = new RpcPeer({
    input: proc.stdout as NodeJS.ReadableStream,
    output: proc.stdin as NodeJS.WritableStream,
    onRequest: (method, params) => {
      calls.push({ method, params: params as unknown[] });
      return onCore(method, params as unknown[]);
    },
    onNotification: (method, params) => void notes.push({ method, params }),
  });
  return { proc, peer, calls, notes, stderr: () => stderr, exited };
}

function installEcho(): string {
  return join(installFixturePlugin(tempDir("ha-stdio-"), "echo-ts"), "plugin.js");
}

async function startEcho(onCore?: CoreHandler): Promise<Child> {
  const child = runPlugin(installEcho(), onCore);
  await child.peer.call("handshake", { protocol: PROTOCOL_VERSION, coreVersion: "0.1.0", pluginName: "echo-ts" });
  await child.peer.call("plugin.init", initParams());
  await child.peer.call("plugin.start", {});
  return child;
}

function initParams(settings: Record<string, string> = {}) {
  return { name: "echo-ts", dataDir: "/tmp/d", daemonDataDir: "/tmp", capabilities: ["core"], settings };
}

function snapshot(over: Partial<StageSnapshot> = {}): StageSnapshot {
  return {
    stage: "pre_action",
    requestId: "r1",
    source: "cli",
    channel: "main",
    rawMessage: "hello",
    userId: "",
    groupId: "",
    contextMsgs: [{ role: "user", content: "earlier" }],
    llmText: "",
    reasoningContent: "",
    tokenUsage: null,
    toolCalls: [],
    toolResults: [],
    finalText: "",
    response: null,
    phase: "",
    memory: [],
    noMemory: false,
    extra: { kept: 1 },
    errors: [],
    ...over,
  };
}

test("handshake, init, and start that answers only once the daemon accepted every registration", async () => {
  let admit: () => void = () => {};
  const admitted = new Promise<void>((resolve) => {
    admit = resolve;
  });
  const child = runPlugin(installEcho(), (method) => (method === "core.registerStage" ? admitted : null));
  const hello = await child.peer.call<Record<string, unknown>>("handshake", {
    protocol: PROTOCOL_VERSION,
    coreVersion: "0.1.0",
    pluginName: "echo-ts",
  });
  const sdkPackage = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8"));
  assert.deepEqual(hello, {
    protocol: PROTOCOL_VERSION,
    sdkVersion: sdkPackage.version,
    pluginName: "echo-ts",
    pid: child.proc.pid,
    attachments: true,
  });
  assert.deepEqual(await child.peer.call("plugin.init", initParams()), {});

  let started = false;
  const start = child.peer.call("plugin.start", {}).then(() => {
    started = true;
  });
  await waitFor(() => child.calls.some((c) => c.method === "core.registerStage"), "the stage registration");
  assert.equal(started, false, "start waits for the registrations' answers");
  admit();
  await start;

  const echo = child.calls.find((c) => c.method === "core.registerTool")?.params;
  assert.deepEqual(echo, [
    {
      name: "echo",
      description: "Returns its text argument unchanged.",
      parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
      cleaner: true,
    },
  ]);
  assert.deepEqual(
    child.calls.map((c) => c.method),
    [
      "core.registerTool",
      "core.registerTool",
      "core.registerStage",
      "core.registerOutputChannel",
      "core.settings.define",
      "core.registerTool",
    ],
  );
  assert.deepEqual(child.calls[2].params, ["pre_action", "global", "pre_action#1"]);
  assert.deepEqual(child.calls[3].params, ["echo-out", ["text"], "Echoes what it is sent", {}]);
  await child.peer.call("plugin.stop", {});
  assert.deepEqual(await child.exited, { code: 0, signal: null });
});

test("tool, cleaner, output and stage calls reach the plugin's handlers and answer in the protocol's shapes", async () => {
  const child = await startEcho();
  const call = { requestId: "r1", source: "cli", channel: "main", deadlineMs: 5000 };
  assert.deepEqual(await child.peer.call("tool.invoke", { name: "echo", args: { text: "héllo 你好" }, ...call }), {
    result: "héllo 你好",
  });
  assert.deepEqual(await child.peer.call("cleaner.invoke", { scope: "tool", name: "echo", text: "  padded  " }), {
    text: "padded",
  });
  const message = { payload: "to the user", meta: {}, type: "text", requestId: "r1" };
  assert.deepEqual(await child.peer.call("output.invoke", { channel: "echo-out", message }), {
    result: { status: "sent", echoed: "to the user" },
  });
  const stage = await child.peer.call("stage.invoke", {
    stage: "pre_action",
    handlerId: "pre_action#1",
    snapshot: snapshot(),
    deadlineMs: 5000,
  });
  assert.deepEqual(stage, {
    patch: [
      { op: "appendContext", message: { role: "system", content: "echo-ts was here" } },
      { op: "mergeExtra", values: { echoTs: "hello" } },
    ],
  });
  const unknown = await child.peer.call("tool.invoke", { name: "nope", args: {}, ...call }).catch((e: unknown) => e);
  assert.ok(unknown instanceof RpcError && /no tool named "nope"/.test(unknown.message), String(unknown));
});

for (const daemonReads of [true, false]) {
  test(`a long tool result comes back intact, as an attachment only to a daemon that reads them (${daemonReads})`, async () => {
    const child = runPlugin(installEcho());
    const written: Buffer[] = [];
    child.proc.stdout?.on("data", (chunk: Buffer) => written.push(chunk));
    const hello = await child.peer.call<Record<string, unknown>>("handshake", {
      protocol: PROTOCOL_VERSION,
      coreVersion: "0.1.0",
      pluginName: "echo-ts",
      ...(daemonReads ? { attachments: true } : {}),
    });
    child.peer.sendAttachments = hello.attachments === true;
    await child.peer.call("plugin.init", initParams());
    await child.peer.call("plugin.start", {});
    const text = `"quoted" é 你好 😀\n`.repeat(20_000);
    const call = { requestId: "r1", source: "cli", channel: "main", deadlineMs: 5000 };
    assert.deepEqual(await child.peer.call("tool.invoke", { name: "echo", args: { text }, ...call }), { result: text });
    const headers = Buffer.concat(written)
      .toString("utf8")
      .split("\n")
      .filter((line) => line.startsWith("@"));
    assert.deepEqual(
      headers,
      daemonReads ? [`@[{"path":["result","result"],"bytes":${Buffer.byteLength(text)}}]`] : [],
    );
  });
}

test("a registration the daemon refuses fails plugin.start with its message and code", async () => {
  const child = runPlugin(installEcho(), (method) => {
    if (method !== "core.registerOutputChannel") return null;
    const refusal = 'plugin "echo-ts" may not call registerOutputChannel: it needs the "io" capability';
    throw new RpcError(-32000, refusal, { code: "capability_denied" });
  });
  await child.peer.call("handshake", { protocol: PROTOCOL_VERSION, coreVersion: "0.1.0", pluginName: "echo-ts" });
  await child.peer.call("plugin.init", initParams());
  const err = await child.peer.call("plugin.start", {}).catch((e: unknown) => e);
  assert.ok(err instanceof RpcError, String(err));
  assert.match(err.message, /may not call registerOutputChannel/);
  assert.equal(err.data?.code, "capability_denied");
});

test("stage-writer's concurrent handlers each answer with their own append and extra key", async () => {
  const entry = join(installFixturePlugin(tempDir("ha-stdio-"), "stage-writer", "writer-b"), "plugin.js");
  const child = runPlugin(entry);
  await child.peer.call("handshake", { protocol: PROTOCOL_VERSION, coreVersion: "0.1.0", pluginName: "writer-b" });
  await child.peer.call("plugin.init", { ...initParams({ handlers: "3" }), name: "writer-b" });
  await child.peer.call("plugin.start", {});
  const ids = child.calls.map((c) => c.params[2] as string);
  assert.deepEqual(ids, ["pre_action#1", "pre_action#2", "pre_action#3"]);
  const patches = await Promise.all(
    ids.map((handlerId) =>
      child.peer.call("stage.invoke", { stage: "pre_action", handlerId, snapshot: snapshot(), deadlineMs: 5000 }),
    ),
  );
  assert.deepEqual(
    patches,
    [0, 1, 2].map((i) => ({
      patch: [
        { op: "appendContext", message: { role: "system", content: `writer-b#${i} r1` } },
        { op: "mergeExtra", values: { [`writer-b#${i}`]: "r1" } },
      ],
    })),
  );
});

test("$/cancel aborts the signal of the tool call it names", async () => {
  const child = await startEcho();
  const controller = new AbortController();
  const waiting = child.peer.call("tool.invoke", { name: "wait", args: {} }, { signal: controller.signal });
  controller.abort(new Error("the user interrupted"));
  await assert.rejects(waiting, /the user interrupted/);
  await waitFor(
    () => child.notes.some((n) => n.method === "core.log.info" && /wait aborted: cancelled/.test(String(n.params))),
    "the plugin to log that its tool's signal was aborted",
  );
});

test("a tool past its deadlineMs is aborted and answered with the deadline error", async () => {
  const child = await startEcho();
  const err = await child.peer.call("tool.invoke", { name: "wait", args: {}, deadlineMs: 50 }).catch((e: unknown) => e);
  assert.ok(err instanceof RpcError && err.rpcCode === RPC_DEADLINE, String(err));
  assert.match(err.message, /tool wait did not finish within 50 ms/);
  await waitFor(() => child.notes.some((n) => /wait aborted/.test(String(n.params))), "the tool's signal to abort");
});

test("the plugin exits when the daemon closes its stdin", async () => {
  const child = await startEcho();
  child.proc.stdin?.end();
  assert.deepEqual(await child.exited, { code: 0, signal: null });
});

test("console output of the plugin goes to stderr, never between the frames on stdout", async () => {
  const dir = tempDir("ha-stdio-");
  const entry = join(dir, "plugin.js");
  writeFileSync(
    entry,
    'console.log("top-level log");\n' +
      'export default { name: "chatty", start(sdk) { console.log("start log"); console.info("info log"); } };\n',
  );
  const child = runPlugin(entry);
  await child.peer.call("handshake", { protocol: PROTOCOL_VERSION, coreVersion: "0.1.0", pluginName: "chatty" });
  await child.peer.call("plugin.init", { ...initParams(), name: "chatty" });
  await child.peer.call("plugin.start", {});
  await waitFor(() => child.stderr().includes("info log"), "the console output on stderr");
  assert.match(child.stderr(), /top-level log[\s\S]*start log/);
});

test("a plugin.js without a default export makes the runner exit with code 2 and say what to write", async () => {
  const dir = tempDir("ha-stdio-");
  const entry = join(dir, "plugin.js");
  writeFileSync(entry, "export const name = 'half-done';\n");
  const child = runPlugin(entry);
  assert.deepEqual(await child.exited, { code: 2, signal: null });
  assert.match(child.stderr(), /has no plugin as its default export; end it with `export default definePlugin/);
});

/** Whether `pid` still runs (a zombie waiting for init to reap it counts as gone). */
function alive(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0] !== "Z";
  } catch {
    return false;
  }
}

test("a plugin whose main thread is stuck in a loop dies when its parent is killed", async () => {
  const dir = tempDir("ha-stdio-");
  const entry = join(dir, "plugin.js");
  writeFileSync(entry, 'process.stderr.write("busy\\n");\nfor (;;) {}\n');
  // The parent: starts the plugin with a stdin pipe it keeps open, tells us the plugin's pid, then waits.
  const parentScript = `
    const { spawn } = require("node:child_process");
    const [args] = JSON.parse(process.argv[1]);
    const child = spawn(process.execPath, args, { stdio: ["pipe", "ignore", "inherit"] });
    process.stdout.write(child.pid + "\\n");
    setInterval(() => {}, 1000);
  `;
  const parent = spawn(process.execPath, ["-e", parentScript, JSON.stringify([[...NODE_ARGS, RUNNER, entry]])], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  parent.stdout.on("data", (c: Buffer) => {
    out += c.toString();
  });
  parent.stderr.on("data", (c: Buffer) => {
    err += c.toString();
  });
  let pid = 0;
  test.after(() => {
    if (pid && alive(pid)) process.kill(pid, "SIGKILL");
    parent.kill("SIGKILL");
  });
  await waitFor(() => out.includes("\n") && err.includes("busy"), "the plugin to start looping", { timeoutMs: 15000 });
  pid = Number(out.trim());
  assert.ok(alive(pid));
  parent.kill("SIGKILL");
  await waitFor(() => !alive(pid), "the orphaned plugin to be killed by its watchdog", { timeoutMs: 5000 });
});
