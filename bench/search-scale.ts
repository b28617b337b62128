/**
 * Search latency at scale: 10k and 100k synthetic mixed Chinese/English items in an on-disk index with
 * the default offline embedder (lexical), then hybrid searches (BM25 + vectors, k = 10). Each size runs
 * in its own process so rss_mb is that size's footprint. One JSON line per size.
 *
 *   npm run bench:search-scale [-- --sizes 10000,100000 --queries 500]
 */

import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { LexicalEmbedder } from "../src/embedding/lexical.js";
import { SearchIndex } from "../src/retrieval/search.js";
import { corpus, queries } from "./scale-corpus.js";
import { percentile } from "./stats.js";

const BATCH = 1000;
const WARMUP = 50;

async function runSize(items: number, queryCount: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "search-scale-"));
  try {
    const index = new SearchIndex(join(dir, "index.db"), { embedder: new LexicalEmbedder() });
    const t0 = performance.now();
    let batch: Array<{ id: string; text: string }> = [];
    for (const item of corpus(items, 42)) {
      batch.push(item);
      if (batch.length === BATCH) {
        await index.add(batch);
        batch = [];
      }
    }
    await index.add(batch);
    const indexS = (performance.now() - t0) / 1000;

    const qs = queries(WARMUP + queryCount, 7);
    const samples: number[] = [];
    let hits = 0;
    for (let i = 0; i < qs.length; i++) {
      const start = performance.now();
      const found = await index.search(qs[i], { k: 10 });
      if (i >= WARMUP) {
        samples.push(performance.now() - start);
        hits += found.length;
      }
    }
    samples.sort((a, b) => a - b);
    const pct = (p: number) => percentile(samples, p);
    if (hits === 0) throw new Error("no query found anything: the benchmark is not measuring search");
    const round = (x: number) => Math.round(x * 1000) / 1000;
    console.log(
      JSON.stringify({
        bench: "search-scale",
        items,
        index_s: round(indexS),
        p50_ms: round(pct(0.5)),
        p95_ms: round(pct(0.95)),
        rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
      }),
    );
    await index.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const { values } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000,100000" },
    queries: { type: "string", default: "500" },
    size: { type: "string" },
  },
});
if (values.size) {
  await runSize(Number(values.size), Number(values.queries));
} else {
  for (const size of values.sizes.split(",")) {
    const args = ["--conditions=development", "--import", "tsx", fileURLToPath(import.meta.url), "--size", size];
    const r = spawnSync(process.execPath, [...args, "--queries", values.queries], { stdio: "inherit" });
    if (r.status !== 0) process.exit(r.status ?? 1);
  }
}
