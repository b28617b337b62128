/**
 * What the daemon is doing, for the status page: `/api/v1/kernel` has everything (status, LLM sources with
 * availability and cooldowns, plugins with health, memory sizes, bus and SSE counters, the last request's
 * context); `/api/v1/runtime` is the small set a page polls often.
 */
import { type MemoryStats, type PluginSDK, SdkError } from "@homeagent/sdk";
import type { RouteGroup } from "../context.js";

export const kernelRoutes: RouteGroup = (app, { sdk, sseStats }) => {
  app.get("/api/v1/kernel", async (c) => {
    const status = sdk.kernel.status();
    return c.json({
      status,
      llm: sdk.llm.sources(),
      plugins: status.plugins,
      memory: await memoryStats(sdk),
      sse: sseStats(),
      context: sdk.kernel.context(),
    });
  });

  app.get("/api/v1/runtime", (c) => {
    const s = sdk.kernel.status();
    const mem = process.memoryUsage();
    return c.json({
      uptimeS: s.uptimeS,
      busy: s.busy,
      queued: s.queued,
      processed: s.processed,
      llm: s.llm.sources,
      plugins: s.plugins.map((p) => ({ name: p.name, state: p.state, health: p.health, healthReason: p.healthReason })),
      events: s.events,
      sse: sseStats(),
      process: { rssBytes: mem.rss, heapUsedBytes: mem.heapUsed },
    });
  });
  return undefined;
};

/** Memory's figures, or why there are none (memory not running): the rest of the page still shows. */
async function memoryStats(sdk: PluginSDK): Promise<MemoryStats | { unavailable: string }> {
  try {
    return await sdk.memory.stats();
  } catch (err) {
    if (!(err instanceof SdkError)) throw err;
    return { unavailable: err.message };
  }
}
