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
