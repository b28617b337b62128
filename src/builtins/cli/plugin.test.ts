/** The cli plugin against the mock SDK over its real Unix socket: framing, auth, commands, stale sockets. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { afterEach, beforeEach, describe, it } from "node:test";
import { cliSocketPath, LINE_TOO_LONG, MAX_LINE_BYTES } from "@homeagent/cli-protocol";
import type { LlmSourceStatus, Plugin } from "@homeagent/sdk";
import { createMockSDK, type MockResponder, type MockSDK } from "@homeagent/sdk/test";
import { RawCliClient } from "../../../test/fixtures/cli-client.js";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { waitFor } from "../../../test/fixtures/wait.js";
import { createCliPlugin } from "./plugin.js";
import { SocketInUseError } from "./socket.js";

const SOURCES: LlmSourceStatus[] = [
  {
    name: "main",
    model: "m",
    adapter: "openai",
    available: true,
    state: "ready",
    priority: 0,
    preferred: false,
    contextWindow: 8192,
    maxConcurrent: 8,
    inFlight: 0,
  },
  {
    name: "backup",
    model: "b",
    adapter: "ollama",
    available: false,
    state: "unavailable",
    lastError: "HTTP 401 Unauthorized",
    priority: 1,
    preferred: false,
    contextWindow: 0,
    supportsTools: false,
    maxConcurrent: 0,
    inFlight: 0,
  },
];

/** Just enough of the kernel: echoes messages and publishes a few events for each on the way. */
const echoWithEvents: MockResponder = async ({ requestId, text }, sdk) => {
  await tick();
  if (text === "throw") throw new Error("kernel exploded");
  if (text === "fail") return { error: "provider down" };
  sdk.emit("content_delta", { requestId: "someone-else", content: "not yours" });
  sdk.emit("tool_call", { phase: "start", requestId, toolCallId: "c1", name: "shell", arguments: {} });
  sdk.emit("tool_call", {
    phase: "end",
    requestId,
    toolCallId: "c1",
    name: "shell",
    status: "ok",
    result: "x".repeat(5000),
  });
  await tick();
  sdk.emit("content_delta", { requestId, content: "echo: " });
  sdk.emit("content_delta", { requestId, content: text });
  await tick();
  return `echo: ${text}`;
};

function mockSDK(dir: string): MockSDK {
  return createMockSDK({
    pluginName: "cli",
    daemonDataDir: dir,
    respond: echoWithEvents,
    config: [
      { key: "core.agent.max_tool_turns", value: "10", type: "int", description: "tool rounds" },
      { key: "core.llm.api_key", value: "sk-****", type: "password", description: "key" },
    ],
    status: {
      version: "0.1.0",
      uptimeS: 5,
      processed: 1,
      tools: 2,
      outputChannels: ["cli"],
      embedding: {
        active: "lexical",
        fingerprint: "lexical:hash-v1:d1024",
        dimension: 1024,
        degraded: [{ tier: "http", reason: "not configured" }],
      },
    },
    toolNames: ["memory_search", "shell"],
    llmSources: SOURCES,
  });
}

/** The mock kernel's own latency, so that requests on different connections overlap as they do for real. */
const tick = () => new Promise<void>((resolve) => setTimeout(resolve, 5));

describe("cli plugin", () => {
  let dir: string;
  let sdk: MockSDK;
  let plugin: Plugin;
  let sockPath: string;
  const clients: RawCliClient[] = [];

  const open = async () => {
    const c = await RawCliClient.open(sockPath);
    clients.push(c);
    return c;
  };

  beforeEach(async () => {
    dir = tempDir("hacli-");
    sockPath = cliSocketPath(dir);
    sdk = mockSDK(dir);
    plugin = createCliPlugin();
  });

  afterEach(async () => {
    for (const c of clients.splice(0)) c.destroy();
    await plugin.stop();
  });

  it("listens on <daemonDataDir>/cli.sock with mode 0600 and removes it on stop", async () => {
    await plugin.start(sdk);
    assert.equal(statSync(sockPath).mode & 0o777, 0o600);
    await plugin.stop();
    assert.equal(existsSync(sockPath), false);
  });

  it("a client that disconnects cancels the message it is being answered", async () => {
    // A kernel that answers only when the message is cancelled.
    sdk = createMockSDK({
      pluginName: "cli",
      daemonDataDir: dir,
      respond: (input) =>
        new Promise((resolve) => input.opts?.signal?.addEventListener("abort", () => resolve("cancelled"))),
    });
    await plugin.start(sdk);
    const c = await open();
    c.send("hello\n");
    await waitFor(() => sdk.inputs.length === 1, "the message to run");
    const signal = sdk.inputs[0].opts?.signal;
    assert.equal(signal?.aborted, false);
    c.socket.destroy();
    await waitFor(() => signal?.aborted, "the message's signal to abort");
    assert.match(String((signal?.reason as Error | undefined)?.message), /cli client disconnected/);
  });

  it("streams this request's frames before the response, and only this request's", async () => {
    await plugin.start(sdk);
    const a = await open();
    const b = await open();
    a.send("hello\n");
    b.send("other\n");
    const [reply] = await a.waitForFinals(1);
    await b.waitForFinals(1);
    assert.deepEqual(reply, { type: "response", content: "echo: hello" });
    assert.deepEqual(
      a.frames.map((f) => f.type),
      ["tool_call", "content_delta", "content_delta", "response"],
    );
    assert.deepEqual(
      a.frames.filter((f) => f.type === "content_delta").map((f) => f.content),
      ["echo: ", "hello"],
    );
    const tool = a.frames[0];
    assert.equal(tool.tool, "shell");
    assert.equal(tool.status, "ok");
    assert.equal((tool.result as string).length, 2000);
    const seen = JSON.stringify(a.frames);
    assert.ok(!seen.includes("other"), "frames of b's request leaked to a");
    assert.ok(!seen.includes("not yours"), "frames of an unrelated request leaked to a");
  });

  it("answers pipelined messages in order, handling partial lines and CRLF", async () => {
    await plugin.start(sdk);
    const c = await open();
    c.send("one\r\ntw");
    // "one" reaching the kernel means the half line "tw" was read too, so the rest arrives as a new chunk.
    await waitFor(() => sdk.inputs.length === 1, "the first line to reach the kernel");
    c.send("o\n\nfail\nthrow\nlast\n");
    const finals = await c.waitForFinals(5);
    assert.deepEqual(finals, [
      { type: "response", content: "echo: one" },
      { type: "response", content: "echo: two" },
      { type: "error", error: "provider down" },
      { type: "error", error: "kernel exploded" },
      { type: "response", content: "echo: last" },
    ]);
  });

  it("keeps a multi-byte character that is split across chunks intact", async () => {
    await plugin.start(sdk);
    const c = await open();
    const bytes = Buffer.from("first\n你好\n");
    const split = "first\n".length + 2;
    c.socket.write(bytes.subarray(0, split));
    // "first" reaching the kernel means the two bytes after it were read too, the character's third comes later.
    await waitFor(() => sdk.inputs.length === 1, "the first line to reach the kernel");
    c.socket.write(bytes.subarray(split));
    assert.deepEqual(await c.waitForFinals(2), [
      { type: "response", content: "echo: first" },
      { type: "response", content: "echo: 你好" },
    ]);
  });

  it("requires /auth <key> first when a key is configured", async () => {
    sdk.apiKey = "s3cret";
    await plugin.start(sdk);

    const wrong = await open();
    wrong.send("/auth nope\nhello\n");
    await wrong.waitForClose();
    assert.deepEqual(wrong.frames, [{ type: "error", error: "unauthorized" }]);

    const skipped = await open();
    skipped.send("hello\n");
    await skipped.waitForClose();
    assert.deepEqual(skipped.frames, [{ type: "error", error: "unauthorized" }]);

    const right = await open();
    right.send("/auth s3cret\nhi\n");
    const finals = await right.waitForFinals(2);
    assert.deepEqual(finals, [
      { type: "response", content: "authenticated" },
      { type: "response", content: "echo: hi" },
    ]);
    assert.equal(right.closed, false);
  });

  it("answers /auth when no key is configured", async () => {
    await plugin.start(sdk);
    const c = await open();
    c.send("/auth anything\n");
    assert.deepEqual(await c.waitForFinals(1), [{ type: "response", content: "authenticated" }]);
  });

  it("serves /help, /status, /tools and unknown commands", async () => {
    await plugin.start(sdk);
    const c = await open();
    c.send("/help\n/status\n/tools\n/bogus\n");
    const [help, status, tools, unknown] = await c.waitForFinals(4);
    assert.match(help.content as string, /\/settings set <key> <value>/);
    assert.equal(status.type, "response");
    assert.match(status.content as string, /homed 0\.1\.0/);
    assert.equal((status.status as { version: string }).version, "0.1.0");
    assert.deepEqual(tools, { type: "tools", tools: ["memory_search", "shell"] });
    assert.equal(unknown.type, "error");
    assert.match(unknown.error as string, /\/help/);
  });

  it("lists and sets settings", async () => {
    await plugin.start(sdk);
    const c = await open();
    c.send("/settings core.agent\n/settings set core.agent.max_tool_turns 25\n/settings set nope 1\n/settings\n");
    const [listed, set, bad, all] = await c.waitForFinals(4);
    assert.deepEqual(listed, {
      type: "settings",
      settings: [{ key: "core.agent.max_tool_turns", value: "10", type: "int", description: "tool rounds" }],
    });
    assert.deepEqual(set, { type: "response", content: "core.agent.max_tool_turns updated" });
    assert.deepEqual(bad, { type: "error", error: "unknown config key nope" });
    const entries = all.settings as Array<{ key: string; value: string }>;
    assert.deepEqual(
      entries.map((e) => e.value),
      ["25", "sk-****"],
    );
  });

  it("lists LLM sources with /llm and switches with /llm use", async () => {
    await plugin.start(sdk);
    const c = await open();
    c.send("/llm\n/llm use backup\n/llm use nope\n/llm\n/llm use auto\n/llm bogus\n");
    const [before, use, unknown, afterUse, auto, bad] = await c.waitForFinals(6);
    assert.deepEqual(before, {
      type: "response",
      content:
        "  main: openai m, priority 0, 8192 tokens; ready\n" +
        "  backup: ollama b, priority 1, no tools; unavailable (HTTP 401 Unauthorized)",
    });
    assert.deepEqual(use, { type: "response", content: "LLM source backup is now preferred" });
    assert.equal(unknown.type, "error");
    assert.match(unknown.error as string, /no LLM source named "nope"/);
    assert.match(afterUse.content as string, /^\* backup: /m);
    assert.deepEqual(auto, { type: "response", content: "LLM sources back in priority order" });
    assert.equal(sdk.preferredSource, "");
    assert.deepEqual(bad, { type: "error", error: "usage: /llm or /llm use <name>" });
  });

  it("rejects an oversized line and keeps serving the connection", async () => {
    await plugin.start(sdk);
    const c = await open();
    c.send(`${"a".repeat(MAX_LINE_BYTES + 10)}\nafter\n`);
    const finals = await c.waitForFinals(2);
    assert.deepEqual(finals, [
      { type: "error", error: LINE_TOO_LONG },
      { type: "response", content: "echo: after" },
    ]);
    assert.equal(LINE_TOO_LONG, "line too long (max 1048576 bytes)");
  });

  it("replaces a stale socket file left by a crashed daemon", async () => {
    await leaveStaleSocket(sockPath);
    assert.ok(statSync(sockPath).isSocket());
    await plugin.start(sdk);
    const c = await open();
    c.send("hi\n");
    assert.deepEqual(await c.waitForFinals(1), [{ type: "response", content: "echo: hi" }]);
  });

  it("refuses to start when a live daemon answers on the socket", async () => {
    await plugin.start(sdk);
    const second = createCliPlugin({ socketPath: sockPath });
    await assert.rejects(async () => second.start(mockSDK(dir)), SocketInUseError);
    assert.ok(statSync(sockPath).isSocket(), "the live daemon's socket must survive");
  });
});

/** A process killed with SIGKILL cannot unlink its socket: exactly what a crashed homed leaves behind. */
async function leaveStaleSocket(path: string): Promise<void> {
  const code = `require("net").createServer().listen(${JSON.stringify(path)}, () => console.log("up"))`;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGKILL");
  await exited;
}
