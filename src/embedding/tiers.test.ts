/** Tier selection: the fallback order, what is reported for each unusable tier, and plugin providers. */
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, test } from "node:test";
import { EMBEDDING_SPECIFICATION_VERSION, type EmbeddingProvider, type Logger } from "@homeagent/sdk";
import { startFakeEmbedServer } from "../../test/fixtures/embedding/fake-embed-server.js";
import { writeTinyBert } from "../../test/fixtures/embedding/tiny-bert.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { ConfigRegistry } from "../config/registry.js";
import type { EmbeddingError } from "./errors.js";
import { LexicalEmbedder } from "./lexical.js";
import { EmbeddingRegistry, textInput } from "./spi.js";
import { registerBuiltinEmbedders, selectEmbedder } from "./tiers.js";

const dir = tempDir("ha-tiers-");
const configs: ConfigRegistry[] = [];
after(() => {
  for (const c of configs) c.close();
});

function setup(values: Record<string, string> = {}) {
  const config = ConfigRegistry.open(path.join(dir, `config-${configs.length}.db`), { env: {} });
  configs.push(config);
  for (const [k, v] of Object.entries(values)) config.set(k, v);
  const lines: string[] = [];
  const events: Record<string, unknown>[] = [];
  const log: Logger = {
    debug: (m) => lines.push(`debug ${m}`),
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    error: (m) => lines.push(`error ${m}`),
  };
  return { config, lines, events, opts: { log, onSystemEvent: (e: Record<string, unknown>) => void events.push(e) } };
}

async function closedPortUrl(): Promise<string> {
  const s = await startFakeEmbedServer();
  await s.close();
  return s.url;
}

test("with nothing configured the lexical tier is active and the missing tiers are listed", async () => {
  const { config, events, opts } = setup();
  const { provider, status } = await selectEmbedder(config, opts);
  assert.equal(provider.name, "lexical");
  assert.deepEqual(status, {
    active: "lexical",
    fingerprint: "lexical:hash-v1:d1024",
    dimension: 1024,
    degraded: [
      { tier: "http", reason: "not configured: set core.embedding.http.base_url" },
      { tier: "transformers", reason: "not configured: set core.embedding.transformers.model_path" },
      { tier: "static", reason: "not configured: set core.agent.embedding_model_path" },
    ],
  });
  assert.deepEqual(
    events.map((e) => e.kind),
    ["embedding_tier"],
  );
});

test("an unreachable configured provider is reported and falls back to the next tier", async () => {
  const vec = path.join(dir, "words.vec");
  fs.writeFileSync(vec, "2 3\ngarden 1 0 0\nhome 0 1 0\n");
  const { config, lines, events, opts } = setup({
    "core.embedding.http.base_url": await closedPortUrl(),
    "core.embedding.http.api": "ollama",
    "core.embedding.http.model": "nomic-embed-text",
    "core.agent.embedding_model_path": vec,
  });
  const { provider, status } = await selectEmbedder(config, opts);
  assert.equal(status.active, "static");
  assert.equal(status.dimension, 3);
  assert.match(status.degraded[0].reason, /unreachable: ECONNREFUSED/);
  assert.equal(status.degraded[0].tier, "http");
  assert.ok(
    lines.some((l) => /^warn embedding tier http unavailable, falling back: .*ECONNREFUSED/.test(l)),
    `${lines}`,
  );
  assert.deepEqual(events[0], { kind: "embedding_tier_failed", tier: "http", reason: status.degraded[0].reason });
  assert.equal(events[1].kind, "embedding_tier");
  assert.equal(events[1].active, "static");
  assert.ok(lines.some((l) => l.startsWith("info loading word vectors: 100%")));
  const [v] = await provider.embed([textInput("my garden")]);
  assert.deepEqual([...v], [1, 0, 0]);
});

test("a reachable http server wins; its API key never reaches the log", async () => {
  const server = await startFakeEmbedServer(6);
  try {
    const { config, lines, opts } = setup({
      "core.embedding.http.base_url": `${server.url}/v1`,
      "core.embedding.http.model": "bge-m3",
      "core.embedding.http.api_key": "sk-very-secret-key-42",
      "core.embedding.http.batch_size": "2",
    });
    const { provider, status } = await selectEmbedder(config, opts);
    assert.deepEqual(status, { active: "http", fingerprint: "http:openai:bge-m3:6", dimension: 6, degraded: [] });
    assert.equal((await provider.embed(["a", "b", "c"].map(textInput))).length, 3);
    assert.equal(server.requests.length, 3, "probe + two batches of at most 2");

    server.failStatus = 401;
    const failing = setup({
      "core.embedding.http.base_url": `${server.url}/v1`,
      "core.embedding.http.model": "bge-m3",
      "core.embedding.http.api_key": "sk-very-secret-key-42",
    });
    const res = await selectEmbedder(failing.config, failing.opts);
    assert.equal(res.status.active, "lexical");
    assert.match(res.status.degraded[0].reason, /answered 401/);
    assert.ok(!JSON.stringify([failing.lines, res.status, lines]).includes("sk-very-secret-key-42"));
  } finally {
    await server.close();
  }
});

test("a local model folder is used by auto; an invalid one falls back with the reason", async () => {
  const good = path.join(dir, "models", "tiny-bert");
  writeTinyBert(good);
  const ok = setup({ "core.embedding.transformers.model_path": good });
  const { status } = await selectEmbedder(ok.config, ok.opts);
  assert.equal(status.active, "transformers");
  assert.match(status.fingerprint, /^transformers:tiny-bert:/);

  const bad = setup({ "core.embedding.transformers.model_path": path.join(dir, "models", "missing") });
  const res = await selectEmbedder(bad.config, bad.opts);
  assert.equal(res.status.active, "lexical");
  assert.match(res.status.degraded[1].reason, /model folder .*missing does not exist/);
});

test("a tier chosen by name but not configured says what is missing", async () => {
  const { config, lines, events, opts } = setup({ "core.embedding.provider": "static" });
  const { status } = await selectEmbedder(config, opts);
  assert.equal(status.active, "lexical");
  assert.deepEqual(status.degraded, [
    { tier: "static", reason: "not configured: set core.agent.embedding_model_path" },
  ]);
  assert.ok(lines.some((l) => l.includes("warn embedding tier static unavailable")));
  assert.equal(events[0].kind, "embedding_tier_failed");
});

test("provider lexical skips the other tiers even when they are configured", async () => {
  const { config, opts } = setup({
    "core.embedding.provider": "lexical",
    "core.embedding.http.base_url": "http://127.0.0.1:9",
  });
  const { status } = await selectEmbedder(config, opts);
  assert.deepEqual(status.degraded, []);
  assert.equal(status.active, "lexical");
});

test("a provider registered by a plugin can be chosen by name, with the built-in tiers below it", async () => {
  const registry = new EmbeddingRegistry();
  const { opts } = setup();
  registerBuiltinEmbedders(registry, opts.log);
  registry.register("mine", () => new LexicalEmbedder({ dimension: 64 }));
  const config = { get: (key: string) => (key === "core.embedding.provider" ? "mine" : undefined) };
  const { status } = await selectEmbedder(config, { ...opts, registry });
  assert.equal(status.active, "mine");
  assert.equal(status.dimension, 64);
  const missing = await selectEmbedder({ get: (k) => (k === "core.embedding.provider" ? "gone" : undefined) }, opts);
  assert.equal(missing.status.active, "lexical");
  assert.match(missing.status.degraded[0].reason, /no embedding provider named "gone"/);
});

test("a provider of a specification version the daemon does not implement is refused and the next tier used", async () => {
  const registry = new EmbeddingRegistry();
  const { opts, lines } = setup();
  registerBuiltinEmbedders(registry, opts.log);
  // What a plugin built against another SDK hands over; only the declared version differs.
  const declaring = (version: unknown) =>
    Object.assign(new LexicalEmbedder({ dimension: 64 }), { specificationVersion: version }) as EmbeddingProvider;
  registry.register("future", () => declaring(2));
  registry.register("unversioned", () => declaring(undefined));

  await assert.rejects(registry.create("future", {}), (err: EmbeddingError) => {
    assert.equal(err.code, "embedding_specification_version");
    assert.match(err.message, /"future" implements specification version 2, but this daemon supports version 1/);
    return true;
  });
  await assert.rejects(registry.create("unversioned", {}), /"unversioned" declares no specificationVersion/);
  const chosen = (name: string) => ({ get: (k: string) => (k === "core.embedding.provider" ? name : undefined) });
  const { status } = await selectEmbedder(chosen("future"), { ...opts, registry });
  assert.equal(status.active, "lexical");
  assert.match(status.degraded[0].reason, /specification version 2/);
  assert.ok(lines.some((l) => l.startsWith("warn embedding tier future unavailable")));
  assert.equal((await registry.create("lexical", {})).specificationVersion, EMBEDDING_SPECIFICATION_VERSION);
});

test("the provider key only accepts known tiers", () => {
  const { config } = setup();
  assert.throws(() => config.set("core.embedding.provider", "magic"), /must be one of auto, http, transformers/);
});
