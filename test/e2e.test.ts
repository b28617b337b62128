/**
 * End to end: the fake LLM server, a real `homed` subprocess and a real `waiter` subprocess.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { cliSocketPath } from "@homeagent/cli-protocol";
import { WaiterClient } from "../src/bin/waiter-client.js";
import { type FakeLLM, startFakeLLM } from "./fixtures/fake-llm.js";
import { type HomedProcess, startHomedOn } from "./fixtures/homed-process.js";
import { nodeArgs } from "./fixtures/node-entry.js";
import { tempDir } from "./fixtures/temp-dir.js";
import { waitFor } from "./fixtures/wait.js";
import { runWaiter } from "./fixtures/waiter-process.js";

/** A fresh data dir each time: these tests never reuse one. */
function startHomed(env: Record<string, string>): Promise<HomedProcess> {
  return startHomedOn(tempDir("ha-e2e-"), env, { timeoutMs: 20_000 });
}

const waiter = runWaiter;

describe("homed + waiter + fake LLM", () => {
  let fake: FakeLLM;
  let homed: HomedProcess;
  before(async () => {
    fake = await startFakeLLM();
    homed = await startHomed({
      HOMEAGENT_LLM_BASE_URL: fake.url,
      HOMEAGENT_LLM_MODEL: "fake-model",
      HOMEAGENT_LLM_API_KEY: "sk-test-secret-123456",
      HOMEAGENT_API_KEY: "letmein-0123456789",
    });
  });
  after(async () => {
    const code = await homed.stop();
    await fake.close();
    assert.equal(code, 0, "homed stops cleanly on SIGTERM");
  });

  test("a message makes the model call a tool; the reply reaches waiter; the second request has the result", async () => {
    fake.enqueue({ toolCalls: [{ name: "output_list_channels", arguments: {} }] }, { text: "No extra channels here." });
    const r = await waiter(["--socket", homed.socket, "--api-key", "letmein-0123456789", "-c", "which channels?"]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), "No extra channels here.");
    // The daemon also asked this local server for its model list at start (GET /v1/models).
    const chats = fake.requests.filter((r) => r.method === "POST");
    assert.equal(chats.length, 2);
    const first = chats[0].body as { model: string; tools: Array<{ function: { name: string } }> };
    assert.equal(first.model, "fake-model");
    assert.ok(first.tools.some((t) => t.function.name === "output_list_channels"));
    assert.equal(chats[0].headers.authorization, "Bearer sk-test-secret-123456");
    const messages = (chats[1].body as { messages: Array<Record<string, unknown>> }).messages;
    const call = messages.find((m) => m.role === "assistant") as { tool_calls: Array<{ id: string }> };
    const result = messages.find((m) => m.role === "tool");
    assert.equal(result?.tool_call_id, call.tool_calls[0].id);
    assert.deepEqual(
      (JSON.parse(String(result?.content)) as Array<{ name: string }>).map((c) => c.name),
      ["cli", "webui"],
    );
  });

  test("the socket is private and clients must authenticate", async () => {
    assert.equal(statSync(homed.socket).mode & 0o777, 0o600);
    const r = await waiter(["--socket", homed.socket, "-c", "hi"]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /unauthorized/);
  });

  test("/tools lists the registered tools, kernel and knowledge tools included", async () => {
    const r = await waiter(["--socket", homed.socket, "--api-key", "letmein-0123456789", "-c", "/tools"]);
    assert.equal(r.code, 0, r.stderr);
    for (const name of ["output_list_channels", "llm_list_sources", "knowledge_search", "knowledge_create"]) {
      assert.match(r.stdout, new RegExp(name));
    }
  });

  test("/status names the embedding tier in use", async () => {
    const r = await waiter(["--socket", homed.socket, "--api-key", "letmein-0123456789", "-c", "/status"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /embedding: lexical \(1024 dimensions\)/);
  });

  test("the model can file a note in the knowledge base and find it again", async () => {
    fake.enqueue(
      {
        toolCalls: [
          { name: "knowledge_create", arguments: { name: "recipes/番茄炒蛋", content: "先炒鸡蛋，再放番茄" } },
        ],
      },
      { text: "saved" },
      { toolCalls: [{ name: "knowledge_search", arguments: { query: "番茄" } }] },
      { text: "found it" },
    );
    const auth = ["--socket", homed.socket, "--api-key", "letmein-0123456789"];
    assert.equal((await waiter([...auth, "-c", "save my recipe"])).stdout.trim(), "saved");
    assert.ok(existsSync(join(homed.dir, "knowledge", "recipes", "番茄炒蛋", "content.md")));
    assert.equal((await waiter([...auth, "-c", "find my recipe"])).stdout.trim(), "found it");
    const chats = fake.requests.filter((r) => r.method === "POST");
    const messages = (chats[chats.length - 1].body as { messages: Array<{ role: string; content: string }> }).messages;
    assert.match(messages.findLast((m) => m.role === "tool")?.content ?? "", /先炒鸡蛋/);
  });

  test("/llm lists the sources; /llm use switches and is saved", async () => {
    const auth = ["--socket", homed.socket, "--api-key", "letmein-0123456789"];
    const list = await waiter([...auth, "-c", "/llm"]);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /env: openai fake-model, priority 0; ready/);
    const use = await waiter([...auth, "-c", "/llm use env"]);
    assert.equal(use.stdout.trim(), "LLM source env is now preferred");
    const after = await waiter([...auth, "-c", "/settings core.llm.provider"]);
    assert.match(after.stdout, /^core\.llm\.provider = env {2}\(string\) Preferred LLM source name/m);
    const json = await waiter([...auth, "--json", "-c", "/settings core.llm.provider"]);
    assert.match(json.stdout, /"key": "core\.llm\.provider",\s*"value": "env"/);
  });

  test("killing waiter mid-reply cancels the LLM request it was waiting for", async () => {
    fake.enqueue({ text: "a very slow answer", delayMs: 15_000 });
    const before = fake.requests.length;
    const proc = spawn(
      process.execPath,
      nodeArgs("src/bin/waiter.ts", "--socket", homed.socket, "--api-key", "letmein-0123456789", "-c", "slow"),
      { env: { ...process.env, HOMEAGENT_API_KEY: "" }, stdio: "ignore" },
    );
    await fake.waitForRequests(before + 1, 15_000);
    proc.kill("SIGKILL");
    await waitFor(() => fake.requests[before].aborted, "the LLM request to be cancelled");
  });

  test("the LLM API key never appears in the log", () => {
    assert.ok(!homed.stderr().includes("sk-test-secret-123456"));
    assert.ok(!homed.stderr().includes("letmein-0123456789"));
  });
});

describe("homed without an LLM source", () => {
  test("still runs and says how to configure one", async () => {
    const homed = await startHomed({});
    try {
      const r = await waiter(["-c", "hello"], { HOMEAGENT_DATA: homed.dir });
      assert.equal(r.code, 1, "an unanswerable message is an error for scripts");
      assert.match(r.stderr, /no LLM source configured/);
      assert.match(r.stderr, /HOMEAGENT_LLM_BASE_URL/);
    } finally {
      assert.equal(await homed.stop(), 0);
    }
    assert.ok(!existsSync(homed.socket), "socket removed on stop");
  });
});

describe("homed stopping with messages in flight", () => {
  test("SIGTERM with one turn running and two queued: each waiter prints the daemon's reason and exits 1", async () => {
    const fake = await startFakeLLM();
    fake.enqueue({ text: "too late", delayMs: 30_000 });
    const homed = await startHomed({ HOMEAGENT_LLM_BASE_URL: fake.url, HOMEAGENT_LLM_MODEL: "fake-model" });
    try {
      const asking = [waiter(["--socket", homed.socket, "-c", "first"])];
      await fake.waitForRequests(fake.requests.length + 1, 20_000);
      asking.push(waiter(["--socket", homed.socket, "-c", "second"]));
      asking.push(waiter(["--socket", homed.socket, "-c", "third"]));
      const watcher = await WaiterClient.connect(homed.socket);
      await waitFor(
        async () => {
          const frame = await watcher.request("/status");
          return frame.type === "response" && frame.status?.busy && frame.status.queued === 2;
        },
        "one turn running and two queued",
        { timeoutMs: 20_000, intervalMs: 50 },
      );
      const code = await homed.stop();
      const results = await Promise.all(asking);
      assert.equal(code, 0);
      for (const r of results) {
        assert.equal(r.code, 1, r.stderr);
        assert.match(r.stderr, /shutting down/);
        assert.doesNotMatch(r.stderr, /closed unexpectedly/);
      }
      // The watcher was idle: the daemon's last frame told it why the connection ends.
      const lost = await watcher.lost;
      assert.equal(lost.idle, true);
      assert.equal(lost.error.message, "homed: homed is shutting down");
    } finally {
      if (homed.proc.exitCode === null) await homed.stop();
      await fake.close();
    }
  });
});

test("waiter with no daemon exits 2 with a clear message", async () => {
  const r = await waiter(["--socket", cliSocketPath(tempDir("ha-e2e-nodaemon-")), "-c", "hi"]);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /homed is not running/);
});
