/** Retrieval inside the daemon: plugin embedding providers chosen at run time, failures reported. */
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import {
  type AgentEvent,
  EMBEDDING_SPECIFICATION_VERSION,
  type EmbeddingProvider,
  PLUGIN_API_VERSION,
  type Plugin,
} from "@homeagent/sdk";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { type Daemon, startDaemon } from "./bootstrap.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function daemonWith(plugin: Plugin): Promise<Daemon & { logs: string[] }> {
  const dataDir = tempDir("ha-retrieval-");
  const logs: string[] = [];
  const d = await startDaemon({
    dataDir,
    env: {},
    ollamaUrl: "",
    plugins: [{ name: plugin.name, capabilities: ["embedding", "events"], create: () => plugin }],
    logWrite: (l) => logs.push(l),
  });
  cleanups.push(() => d.stop());
  return Object.assign(d, { logs });
}

const unitEmbedder: EmbeddingProvider = {
  specificationVersion: EMBEDDING_SPECIFICATION_VERSION,
  name: "unit",
  info: () => ({ dimension: 3, fingerprint: "unit:v1:d3", modalities: ["text"] }),
  embed: async (inputs) => inputs.map(() => Float32Array.from([1, 0, 0])),
};

test("a plugin's embedding provider can be chosen at run time", async () => {
  const plugin: Plugin = {
    name: "embedplug",
    apiVersion: PLUGIN_API_VERSION,
    start: (sdk) => sdk.registerEmbeddingProvider("unit", () => unitEmbedder),
    stop() {},
  };
  const d = await daemonWith(plugin);
  await d.retrieval.settled();
  assert.equal(d.status().embedding.active, "lexical");
  d.config.set("core.embedding.provider", "unit");
  await d.retrieval.settled();
  assert.deepEqual(d.status().embedding, { active: "unit", fingerprint: "unit:v1:d3", dimension: 3, degraded: [] });
  assert.ok(d.config.def("core.embedding.provider")?.options?.includes("unit"));
});

test("a failing plugin provider is reported and the built-in tiers take over", async () => {
  const events: AgentEvent[] = [];
  const plugin: Plugin = {
    name: "embedplug",
    apiVersion: PLUGIN_API_VERSION,
    start: (sdk) => {
      sdk.subscribe("system", (e) => void events.push(e));
      sdk.registerEmbeddingProvider("broken", () => {
        throw new Error("model server down");
      });
    },
    stop() {},
  };
  const d = await daemonWith(plugin);
  d.config.set("core.embedding.provider", "broken");
  await d.retrieval.settled();
  const status = d.status().embedding;
  assert.equal(status.active, "lexical");
  assert.deepEqual(status.degraded[0], { tier: "broken", reason: "model server down" });
  assert.ok(events.some((e) => e.payload.kind === "embedding_tier_failed" && e.payload.tier === "broken"));
  assert.ok(d.logs.some((l) => l.includes("embedding tier broken unavailable")));
});

test("a plugin provider written against another embedding specification version is refused with the reason", async () => {
  const plugin: Plugin = {
    name: "embedplug",
    apiVersion: PLUGIN_API_VERSION,
    start: (sdk) =>
      sdk.registerEmbeddingProvider("future", () => ({ ...unitEmbedder, specificationVersion: 2 }) as never),
    stop() {},
  };
  const d = await daemonWith(plugin);
  d.config.set("core.embedding.provider", "future");
  await d.retrieval.settled();
  const status = d.status().embedding;
  assert.equal(status.active, "lexical");
  assert.equal(status.degraded[0].tier, "future");
  assert.match(status.degraded[0].reason, /implements specification version 2, but this daemon supports version 1/);
});
