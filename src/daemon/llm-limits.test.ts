/**
 * The limits of LLM calls (`core.llm.stream_idle_timeout`, `core.llm.call_timeout`,
 * `core.llm.max_response_bytes`) reach the daemon's providers and apply from the next call, without a
 * restart. How each limit behaves is tested in src/llm/call-limits.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type FakeLLM, startFakeLLM } from "../../test/fixtures/fake-llm.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { type Daemon, startDaemon } from "./bootstrap.js";

let fake: FakeLLM;
let d: Daemon;
const req = { model: "", messages: [{ role: "user" as const, content: "hi" }] };
/** A config change rebuilds the sources in a microtask; one turn of the event loop lets it run. */
const settled = () => new Promise((resolve) => setImmediate(resolve));

before(async () => {
  fake = await startFakeLLM();
  d = await startDaemon({
    dataDir: tempDir("ha-llm-limits-"),
    env: {},
    plugins: [],
    ollamaUrl: "",
    logWrite: () => {},
  });
  d.config.set("core.llm.sources.a.base_url", fake.url);
  await waitFor(() => d.llm.hasSources(), "source a");
});
after(async () => {
  await d.stop();
  await fake.close();
});

test("core.llm.max_response_bytes applies from the next call", { timeout: 30_000 }, async () => {
  d.config.set("core.llm.max_response_bytes", "1024");
  await settled();
  fake.enqueue({ text: "x".repeat(4096), pieceChars: 512 });
  const cut = await d.llm.stream(req);
  assert.equal(cut.content, `${"x".repeat(1024)}\n\n[reply cut: larger than 1 KiB (core.llm.max_response_bytes)]`);
  assert.equal(cut.finish_reason, "length");

  d.config.set("core.llm.max_response_bytes", "8192");
  await settled();
  fake.enqueue({ text: "x".repeat(4096), pieceChars: 512 });
  assert.equal((await d.llm.stream(req)).content, "x".repeat(4096));
});

test("a reply cut at max_response_bytes runs none of its tool calls and ends the turn with its note", {
  timeout: 30_000,
}, async () => {
  d.config.set("core.llm.max_response_bytes", "1024");
  await settled();
  let runs = 0;
  d.agent.tools.register(
    "test",
    { name: "note_down", description: "notes something down", parameters: { type: "object" } },
    () => {
      runs++;
      return "noted";
    },
  );
  const asked = fake.requests.length;
  try {
    fake.enqueue({
      text: "Saving it now.",
      toolCalls: [
        { name: "note_down", arguments: { x: 1 } },
        { name: "note_down", arguments: { big: "a".repeat(3000) } },
      ],
    });
    const reply = await d.agent.injectInputSync("test", "test", "note this down");
    assert.equal(reply.error, undefined);
    assert.equal(reply.content, "Saving it now.\n\n[reply cut: larger than 1 KiB (core.llm.max_response_bytes)]");
    assert.equal(runs, 0, "no call of a cut reply runs, not even a complete one");
    assert.equal(fake.requests.length - asked, 1, "the model is not asked again");
  } finally {
    d.agent.tools.unregisterPlugin("test");
    d.config.set("core.llm.max_response_bytes", String(4 * 1024 * 1024));
    await settled();
  }
});

test("core.llm.stream_idle_timeout and core.llm.call_timeout reach the providers", { timeout: 30_000 }, async () => {
  d.config.set("core.llm.stream_idle_timeout", "1s");
  await settled();
  fake.enqueue({ text: "never", stallAfterChars: 0 });
  await assert.rejects(d.llm.stream(req), /a sent nothing for 1000 ms in the middle of its reply/);
  d.llm.resetSource("a");

  d.config.set("core.llm.call_timeout", "1s");
  await settled();
  fake.enqueue({ text: "more ", endless: true, frameIntervalMs: 10 });
  const reply = await d.llm.stream(req);
  assert.ok(reply.content.endsWith("[reply cut: a did not finish its reply within 1000 ms (core.llm.call_timeout)]"));
});
