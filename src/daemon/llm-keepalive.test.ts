/**
 * Hostile review, finding 4, as a user meets it: one source answers with keep-alives only. Turns run one at
 * a time, so that source used to hold every chat until core.llm.call_timeout (10 min); with
 * core.llm.first_content_timeout it fails over like a hung source and the next client's chat goes on.
 * How each content limit behaves per wire format is tested in src/llm/content-limits.test.ts.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type FakeLLM, startFakeLLM } from "../../test/fixtures/fake-llm.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { type Daemon, startDaemon } from "./bootstrap.js";

let a: FakeLLM;
let b: FakeLLM;
let d: Daemon;

before(async () => {
  a = await startFakeLLM();
  b = await startFakeLLM();
  d = await startDaemon({
    dataDir: tempDir("ha-llm-keepalive-"),
    env: {},
    plugins: [],
    ollamaUrl: "",
    logWrite: () => {},
  });
});
after(async () => {
  await d.stop();
  await a.close();
  await b.close();
});

test("a source that only sends keep-alives holds no chat hostage: both clients are answered by the next source", {
  timeout: 20_000,
}, async () => {
  d.config.set("core.llm.first_content_timeout", "1s");
  d.config.set("core.llm.retry_delay", "10ms");
  d.config.set("core.llm.sources.a.base_url", a.url);
  d.config.set("core.llm.sources.b.base_url", b.url);
  d.config.set("core.llm.sources.b.priority", "1");
  await waitFor(() => d.llm.sources().length === 2, "both sources");
  a.enqueue({ text: "never", keepAliveMs: 20 });
  b.enqueue({ text: "answer for alice" }, { text: "answer for bob" });

  const [alice, bob] = await Promise.all([
    d.agent.injectInputSync("cli", "alice", "hi"),
    d.agent.injectInputSync("webui", "bob", "hello"),
  ]);
  assert.equal(alice.content, "answer for alice");
  assert.equal(bob.content, "answer for bob");
  // Loopback sources are also asked about their model; only the chats count here.
  const chats = a.requests.filter((r) => r.path.endsWith("/chat/completions"));
  assert.equal(chats.length, 1, "the keep-alive source is asked once, then cools down");
  await waitFor(() => chats[0].aborted, "source a's connection closed by the daemon");
  const [source] = d.llm.sources();
  assert.equal(source.state, "cooling_down");
  assert.match(source.lastError ?? "", /within 1000 ms of the request.*\(core\.llm\.first_content_timeout\)/);
});
