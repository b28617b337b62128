/**
 * The LLM side of the settings API as the running daemon serves it: `core.llm.*` written through the
 * config center applies to the next turn without a restart, and `llm.test` tries one source alone, with a
 * result for every outcome, a time limit and no effect on the source's state.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, afterEach, before, describe, test } from "node:test";
import { type FakeLLM, startFakeLLM } from "../../test/fixtures/fake-llm.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { ConfigRegistry } from "../config/registry.js";
import { HomeAgentError } from "../util/errors.js";
import { type Daemon, startDaemon } from "./bootstrap.js";

let a: FakeLLM;
let b: FakeLLM;
const daemons: Daemon[] = [];

before(async () => {
  a = await startFakeLLM();
  b = await startFakeLLM();
});
after(async () => {
  await a.close();
  await b.close();
});
afterEach(async () => {
  for (const d of daemons.splice(0)) await d.stop();
});

/** A daemon on a new data directory; `stored` is written to its config.db before it starts. */
async function daemon(stored: Record<string, string> = {}): Promise<Daemon> {
  const dataDir = tempDir("ha-llm-admin-");
  const seed = ConfigRegistry.open(join(dataDir, "config.db"), { env: {} });
  for (const [key, value] of Object.entries(stored)) seed.set(key, value);
  seed.close();
  const d = await startDaemon({
    dataDir,
    env: {},
    plugins: [],
    ollamaUrl: "",
    logWrite: () => {},
  });
  daemons.push(d);
  return d;
}

/** A chat request the fake LLM recorded whose last message is `text`. */
function asked(fake: FakeLLM, text: string): boolean {
  return fake.requests.some(
    (r) => Array.isArray(r.body?.messages) && r.body.messages.some((m: { content?: unknown }) => m.content === text),
  );
}

describe("core.llm.* without a restart", () => {
  test("a source's new base_url takes the very next turn to the new server", async () => {
    const d = await daemon();
    d.config.set("core.llm.sources.main.base_url", a.url);
    d.config.set("core.llm.sources.main.api_key", "sk-first-key-000001");
    await waitFor(() => d.llm.hasSources(), "source main");
    a.enqueue({ text: "from a" });
    assert.equal((await d.agent.injectInputSync("test", "test", "first question")).content, "from a");
    assert.ok(asked(a, "first question"));

    // Written as the settings API writes it, and the turn right after it, without waiting for anything.
    d.config.set("core.llm.sources.main.base_url", b.url);
    b.enqueue({ text: "from b" });
    const reply = await d.agent.injectInputSync("test", "test", "second question");
    assert.equal(reply.content, "from b");
    assert.ok(asked(b, "second question"));
    assert.ok(!asked(a, "second question"), "the old server is not asked again");
    // The key was given for the first server: it does not follow the source to another one (config/key-guard.ts).
    assert.equal(b.requests.at(-1)?.headers.authorization, undefined, "the key went to a server it was not given for");
    d.config.setMany({ "core.llm.sources.main.api_key": "sk-key-for-b-00000002" });
    b.enqueue({ text: "from b again" });
    await d.agent.injectInputSync("test", "test", "third question");
    assert.equal(b.requests.at(-1)?.headers.authorization, "Bearer sk-key-for-b-00000002");

    // Resetting the URL ("" = back to the default, none) leaves no usable source.
    d.config.set("core.llm.sources.main.base_url", "");
    await waitFor(() => !d.llm.hasSources(), "source main gone without a base_url");
  });
});

describe("llm.test", () => {
  async function oneSource(): Promise<Daemon> {
    // Stored before the start: the daemon has asked the source about its model before it is up, so that
    // request is not counted in a test.
    const d = await daemon({
      "core.llm.retry_delay": "10ms",
      "core.llm.sources.t.base_url": a.url,
      "core.llm.sources.t.model": "test-model",
      "core.llm.sources.t.api_key": "sk-secret-test-key-9876",
    });
    assert.ok(d.llm.hasSources(), "source t");
    return d;
  }

  test("a working source: ok, its model, the start of the reply, and the tiny request it got", async () => {
    const d = await oneSource();
    a.enqueue({ text: "OK" });
    const result = await d.host.llm.test("t");
    assert.equal(result.ok, true);
    assert.equal(result.source, "t");
    assert.equal(result.model, "test-model");
    assert.equal(result.reply, "OK");
    assert.equal(result.error, undefined);
    assert.ok(result.latencyMs >= 0);
    const body = a.requests.at(-1)?.body;
    assert.deepEqual(body.messages, [{ role: "user", content: "Reply with OK." }]);
    assert.ok(body.max_tokens <= 16);
  });

  test("HTTP 500: not ok, the reason with secrets masked, one request only, and the source's state untouched", async () => {
    const d = await oneSource();
    const before = a.requests.length;
    a.enqueue({ status: 500, errorMessage: "upstream exploded; key was sk-secret-test-key-9876" });
    const result = await d.host.llm.test("t");
    assert.equal(result.ok, false);
    assert.match(result.error ?? "", /500/);
    assert.match(result.error ?? "", /upstream exploded/);
    assert.doesNotMatch(result.error ?? "", /sk-secret-test-key-9876/);
    assert.equal(a.requests.length - before, 1, "no retry, no other source");
    const [source] = d.llm.sources();
    assert.equal(source.state, "ready");
    assert.equal(source.lastError, undefined);
  });

  test("no reply within timeoutMs: not ok within the limit, saying so", async () => {
    const d = await oneSource();
    a.enqueue({ text: "too late", delayMs: 10_000 });
    const started = Date.now();
    const result = await d.host.llm.test("t", { timeoutMs: 300 });
    assert.ok(Date.now() - started < 3000, "it gave up at its own limit");
    assert.equal(result.ok, false);
    assert.match(result.error ?? "", /no reply within 300 ms/);
    assert.equal(d.llm.sources()[0].state, "ready");
  });

  test("a source cooling down is tried anyway, and stays cooling down", async () => {
    const d = await oneSource();
    a.enqueue({ status: 503 }, { status: 503 });
    await assert.rejects(d.llm.chat({ model: "", messages: [{ role: "user", content: "hi" }] }));
    assert.equal(d.llm.sources()[0].state, "cooling_down");
    const until = d.llm.sources()[0].cooldownUntil;
    a.enqueue({ text: "OK" });
    const result = await d.host.llm.test("t");
    assert.equal(result.ok, true);
    assert.equal(d.llm.sources()[0].state, "cooling_down");
    assert.equal(d.llm.sources()[0].cooldownUntil, until);
  });

  test("an unknown source throws llm_unknown_source; a bad time limit is refused", async () => {
    const d = await oneSource();
    await assert.rejects(
      d.host.llm.test("nope"),
      (err: Error) =>
        err instanceof HomeAgentError && err.code === "llm_unknown_source" && /sources are: t/.test(err.message),
    );
    await assert.rejects(d.host.llm.test("t", { timeoutMs: 61_000 }), /from 1 to 60000/);
    await assert.rejects(d.host.llm.test("t", { timeoutMs: 0 }), /from 1 to 60000/);
  });
});

describe("adapters API in the daemon", () => {
  const openai = (d: Daemon) => d.host.adapters.get("openai")?.code ?? "";
  const withMarker = (code: string, marker: string) =>
    code.replace(
      "local out = json.object({ model = req.model, messages = json.array() })",
      `local out = json.object({ model = req.model, messages = json.array(), marker = "${marker}" })`,
    );
  const req = { model: "", messages: [{ role: "user" as const, content: "hi" }] };

  test("a source waiting for its adapter starts once it is saved; a saved edit applies from the next request", async () => {
    const d = await daemon();
    d.config.set("core.llm.sources.c.adapter", "custom");
    d.config.set("core.llm.sources.c.base_url", a.url);
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(d.llm.hasSources(), false, "no custom.lua yet: the source is skipped");
    assert.deepEqual(d.host.adapters.list().find((x) => x.name === "openai")?.usedBy, [], "c names custom, not openai");

    const info = await d.host.adapters.put("custom", withMarker(openai(d), "v1"));
    assert.deepEqual(info.usedBy, ["c"]);
    await waitFor(() => d.llm.hasSources(), "source c built once its adapter exists");
    await d.llm.chat(req);
    assert.equal(a.requests.at(-1)?.body.marker, "v1");

    await d.host.adapters.put("custom", withMarker(openai(d), "v2"));
    await d.llm.chat(req);
    assert.equal(a.requests.at(-1)?.body.marker, "v2", "no restart, no config change");

    await assert.rejects(d.host.adapters.put("custom", "return {"), /adapter custom was not saved/);
    await d.llm.chat(req);
    assert.equal(a.requests.at(-1)?.body.marker, "v2", "a refused script never reaches the source");
    assert.throws(() => d.host.adapters.delete("custom"), /used by LLM source c/);
  });
});

describe("what the daemon gives plugins", () => {
  test("status reports the event bus; the knowledge API is there once retrieval has started", async () => {
    const d = await daemon();
    const first = d.status().events;
    assert.ok(first.published > 0, "the started event at least");
    d.agent.bus.publish("system", "test", { kind: "probe" });
    assert.equal(d.status().events.published, first.published + 1);
    const off = d.agent.bus.subscribe("*", () => {});
    assert.equal(d.status().events.subscribers, first.subscribers + 1);
    off();
    assert.ok(d.host.knowledge, "set by startDaemon");
    await d.host.knowledge.put("notes/wifi", "The guest wifi password is on the fridge.");
    const [hit] = await d.host.knowledge.search("guest wifi password");
    assert.equal(hit.path, "notes/wifi");
  });
});
