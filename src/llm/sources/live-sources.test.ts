/**
 * LLM sources as the daemon assembles them: local-first Ollama detection, capability probing of local
 * servers, the llm_* kernel tools and the SDK's llm API, config changes that keep or reset a source's
 * state, and adapter files edited on disk.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, afterEach, before, describe, test } from "node:test";
import { type FakeLLM, startFakeLLM } from "../../../test/fixtures/fake-llm.js";
import { type FakeModelServer, startFakeModelServer } from "../../../test/fixtures/fake-model-server.js";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { waitFor } from "../../../test/fixtures/wait.js";
import { type Daemon, startDaemon } from "../../daemon/bootstrap.js";

const daemons: Daemon[] = [];

async function daemon(env: Record<string, string> = {}, ollamaUrl = ""): Promise<Daemon & { logs: string[] }> {
  const dataDir = tempDir("ha-llm-src-");
  const logs: string[] = [];
  const d = await startDaemon({ dataDir, env, plugins: [], ollamaUrl, logWrite: (l) => logs.push(l) });
  daemons.push(d);
  return Object.assign(d, { logs });
}

afterEach(async () => {
  for (const d of daemons.splice(0)) await d.stop();
});

const req = { model: "", messages: [{ role: "user" as const, content: "hi" }] };

/** Sets a `core.llm.*` key and waits until the sources have been rebuilt from it (each rebuild logs them). */
async function setAndRebuild(d: Daemon & { logs: string[] }, key: string, value: string): Promise<void> {
  const rebuilds = () => d.logs.filter((l) => l.includes("LLM sources in order:")).length;
  const before = rebuilds();
  d.config.set(key, value);
  await waitFor(() => rebuilds() > before, `the sources rebuilt after ${key} changed`);
}

describe("local-first", () => {
  let ollama: FakeModelServer;
  before(async () => {
    ollama = await startFakeModelServer([
      { name: "nomic-embed-text:latest", capabilities: ["embedding"], architecture: "nomic-bert" },
      {
        name: "qwen3:8b",
        capabilities: ["completion", "tools"],
        architecture: "qwen3",
        contextLength: 40960,
        parameters: "temperature 0.6\nnum_ctx 16384",
      },
    ]);
  });
  after(() => ollama.close());

  test("with no source configured, an answering Ollama becomes source ollama-local with its first chat model", async () => {
    const d = await daemon({}, ollama.url);
    const [src] = d.llm.sources();
    assert.equal(d.llm.sources().length, 1);
    assert.equal(src.name, "ollama-local");
    assert.equal(src.adapter, "ollama");
    assert.equal(src.model, "qwen3:8b", "the embedding model is skipped");
    assert.equal(src.contextWindow, 16384, "the Modelfile's num_ctx wins over the architecture's maximum");
    assert.equal(src.supportsTools, true);
    assert.ok(
      d.logs.some((l) =>
        /found Ollama at http:\/\/127\.0\.0\.1:\d+: using it as source "ollama-local" with model qwen3:8b/.test(l),
      ),
    );
  });

  test("a model without tool support is recorded as such", async () => {
    const plain = await startFakeModelServer([
      { name: "tiny:1b", capabilities: ["completion"], architecture: "gemma3", contextLength: 8192 },
    ]);
    try {
      const d = await daemon({}, plain.url);
      const [src] = d.llm.sources();
      assert.deepEqual([src.model, src.contextWindow, src.supportsTools], ["tiny:1b", 8192, false]);
    } finally {
      await plain.close();
    }
  });

  test("nothing listening: no source, and the start is not held up", async () => {
    const started = Date.now();
    const d = await daemon({}, "http://127.0.0.1:9");
    assert.equal(d.llm.hasSources(), false);
    assert.ok(Date.now() - started < 3000);
    assert.ok(d.logs.some((l) => l.includes("no LLM source configured")));
  });

  test("a configured source means no detection at all", async () => {
    const before = ollama.requests.length;
    const d = await daemon(
      { HOMEAGENT_LLM_BASE_URL: "https://api.example.invalid/v1", HOMEAGENT_LLM_MODEL: "m" },
      ollama.url,
    );
    assert.deepEqual(
      d.llm.sources().map((s) => s.name),
      ["env"],
    );
    assert.equal(ollama.requests.length, before);
  });

  test("an OpenAI-compatible server on this machine is asked for the context length; no key needed", async () => {
    const vllm = await startFakeModelServer([{ name: "served-model", openai: { max_model_len: 12288 } }]);
    try {
      const d = await daemon({ HOMEAGENT_LLM_BASE_URL: `${vllm.url}/v1`, HOMEAGENT_LLM_MODEL: "served-model" });
      assert.equal(d.llm.sources()[0].contextWindow, 12288);
      const probe = vllm.requests.find((r) => r.path === "/v1/models");
      assert.ok(probe);
    } finally {
      await vllm.close();
    }
  });
});

describe("sources, tools and the SDK", () => {
  let a: FakeLLM;
  let b: FakeLLM;
  before(async () => {
    a = await startFakeLLM();
    b = await startFakeLLM();
  });
  after(async () => {
    await a.close();
    await b.close();
  });

  async function twoSources() {
    const d = await daemon();
    d.config.set("core.llm.retry_delay", "10ms");
    for (const [name, fake, priority] of [
      ["a", a, "0"],
      ["b", b, "1"],
    ] as const) {
      d.config.set(`core.llm.sources.${name}.base_url`, fake.url);
      d.config.set(`core.llm.sources.${name}.model`, `model-${name}`);
      d.config.set(`core.llm.sources.${name}.api_key`, `key-${name}-1234`);
      d.config.set(`core.llm.sources.${name}.priority`, priority);
    }
    await waitFor(() => d.llm.sources().length === 2, "both sources");
    return d;
  }

  test("llm_list_sources and llm_set_source are the daemon's llm tools; the choice is saved", async () => {
    const d = await twoSources();
    const tools = d.agent.tools;
    assert.equal(tools.get("llm_list_sources")?.owner, "llm");
    assert.equal(tools.get("llm_set_source")?.owner, "llm");
    const ctx = { requestId: "r", source: "t", channel: "t", signal: new AbortController().signal };
    const listed = await tools.execute({ id: "1", name: "llm_list_sources", arguments: {} }, ctx);
    const rows = JSON.parse(listed.content);
    assert.deepEqual(
      rows.map((r: { name: string; model: string; preferred: boolean; state: string }) => [
        r.name,
        r.model,
        r.preferred,
        r.state,
      ]),
      [
        ["a", "model-a", false, "ready"],
        ["b", "model-b", false, "ready"],
      ],
    );
    const set = await tools.execute({ id: "2", name: "llm_set_source", arguments: { name: "b" } }, ctx);
    assert.equal(set.content, "LLM source b is now preferred");
    assert.equal(d.config.get("core.llm.provider"), "b");
    b.enqueue({ text: "from b" });
    assert.equal((await d.llm.chat(req)).content, "from b");
    const bad = await tools.execute({ id: "3", name: "llm_set_source", arguments: { name: "zzz" } }, ctx);
    assert.equal(bad.status, "error");
    assert.match(bad.content, /no LLM source named "zzz"; the sources are: a, b/);
    await tools.execute({ id: "4", name: "llm_set_source", arguments: { name: "auto" } }, ctx);
    assert.equal(d.config.get("core.llm.provider"), "");
  });

  test("the preferred source survives a restart of the sources", async () => {
    const d = await twoSources();
    d.config.set("core.llm.provider", "b");
    await waitFor(() => d.llm.sources()[1].preferred, "b preferred");
    await setAndRebuild(d, "core.llm.temperature", "0.5");
    assert.deepEqual(
      d.llm.sources().map((s) => s.preferred),
      [false, true],
    );
  });

  test("401: unavailable until that source's config changes; changing another source keeps the state", async () => {
    const d = await twoSources();
    a.enqueue({ status: 401 });
    b.enqueue({ text: "b answers" });
    assert.equal((await d.llm.chat(req)).content, "b answers");
    assert.equal(d.llm.sources()[0].state, "unavailable");
    d.config.set("core.llm.sources.b.model", "model-b2");
    await waitFor(() => d.llm.sources()[1].model === "model-b2", "b rebuilt");
    assert.equal(d.llm.sources()[0].state, "unavailable", "a's config did not change");
    d.config.set("core.llm.sources.a.api_key", "key-a-fixed-5678");
    await waitFor(() => d.llm.sources()[0].state === "ready", "a reset by its new key");
    a.enqueue({ text: "a is back" });
    assert.equal((await d.llm.chat(req)).content, "a is back");
  });

  test("an adapter edited in <data>/adapters/ is used from the next request on", async () => {
    const d = await daemon();
    const file = join(d.paths.adapters, "custom.lua");
    const openai = readFileSync(join(d.paths.adapters, "openai.lua"), "utf8");
    const withMarker = (marker: string) =>
      openai.replace(
        "local out = json.object({ model = req.model, messages = json.array() })",
        `local out = json.object({ model = req.model, messages = json.array(), marker = "${marker}" })`,
      );
    writeFileSync(file, withMarker("v1"));
    d.config.set("core.llm.sources.c.adapter", "custom");
    d.config.set("core.llm.sources.c.base_url", a.url);
    await waitFor(() => d.llm.hasSources(), "source c");
    await d.llm.chat(req);
    assert.equal(a.requests.at(-1)?.body.marker, "v1");
    writeFileSync(file, withMarker("v2-edited"));
    await d.llm.chat(req);
    assert.equal(a.requests.at(-1)?.body.marker, "v2-edited");
    assert.ok(d.logs.some((l) => l.includes("adapter custom changed on disk; source c uses the new version")));
  });

  test("a library edited in <data>/adapters/lib/ is used from the next request on", async () => {
    const d = await daemon();
    d.config.set("core.llm.sources.c.base_url", a.url);
    await waitFor(() => d.llm.hasSources(), "source c");
    await d.llm.chat(req);
    assert.equal(a.requests.at(-1)?.body.marker, undefined);
    const file = join(d.paths.adapters, "lib", "openai_compat.lua");
    const extraBody = 'if type(req.extra_body) == "table" then';
    writeFileSync(file, readFileSync(file, "utf8").replace(extraBody, `out.marker = "lib-edited"\n  ${extraBody}`));
    await d.llm.chat(req);
    assert.equal(a.requests.at(-1)?.body.marker, "lib-edited");
    assert.ok(d.logs.some((l) => l.includes("adapter openai: lib/openai_compat.lua changed on disk; source c")));
  });

  test("core.llm.first_byte_timeout reaches the providers", async () => {
    const d = await twoSources();
    await setAndRebuild(d, "core.llm.first_byte_timeout", "1s");
    a.enqueue({ text: "late", delayMs: 30_000 });
    b.enqueue({ text: "b in time" });
    assert.equal((await d.llm.stream(req)).content, "b in time");
    assert.match(d.llm.sources()[0].lastError ?? "", /within 1000 ms/);
  });
});
