/**
 * Memory benchmark. Prints one JSON line `{"bench":"memory", …}` with the figures of each section; a
 * section is an exported async function returning its figures, so sections can be added (or run alone)
 * without touching the others.
 *
 * Section turnWork (bench/memory-turn.ts): the memory work of one user turn at 10k entities and 10k
 * documents, p50 / p99.
 *
 * Section semanticRecall: 20,000 distractor items at 1024 dimensions with the synonym embedder fixture
 * (synonyms share a direction, see test/fixtures/embedding/synonym-embedder.ts) plus one item about a
 * car, in an on-disk index; the query "automobile" shares no word with it, so only vector search can find
 * it. Reports whether it is in the top 10, hybrid search latency (k = 10) over a mix of queries, and how
 * long reopening the index takes (the in-memory vectors are rebuilt from SQLite).
 *
 *   npm run bench:memory [-- --distractors 20000 --queries 300 --entities 10000 --documents 10000 --turns 300
 *                            --sections semantic,turn]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SearchIndex } from "../src/retrieval/search.js";
import { distractors, SYNONYM_GROUPS, SynonymEmbedder } from "../test/fixtures/embedding/synonym-embedder.js";
import { turnWork } from "./memory-turn.js";
import { percentile } from "./stats.js";

const BATCH = 1000;
const WARMUP = 20;
const NEEDLE = { id: "needle", kind: "turn", text: "I parked the car behind the office yesterday" };

const round = (x: number, digits = 3) => Math.round(x * 10 ** digits) / 10 ** digits;

export async function semanticRecall(opts: { distractors: number; queries: number }): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), "bench-memory-"));
  const path = join(dir, "memory.db");
  try {
    const embedder = new SynonymEmbedder(1024);
    let index = new SearchIndex(path, { embedder });
    const t0 = performance.now();
    const all = [...distractors(opts.distractors)].map((text, i) => ({ id: `d${i}`, kind: "turn", text }));
    all.splice(Math.floor(all.length / 2), 0, NEEDLE);
    for (let i = 0; i < all.length; i += BATCH) await index.add(all.slice(i, i + BATCH));
    const indexS = (performance.now() - t0) / 1000;
    await index.close();

    const t1 = performance.now();
    index = new SearchIndex(path, { embedder });
    const reopenMs = performance.now() - t1;

    const hits = await index.search("automobile", { k: 10 });
    const rank = hits.findIndex((h) => h.id === NEEDLE.id);
    // A mix: synonyms with no shared word (vector only), and distractor words (BM25 and vector).
    const mix = [...SYNONYM_GROUPS.flat(), "coffee with friend", "周末 爬山", "exam deadline report", "蛋糕 牛奶"];
    const samples: number[] = [];
    for (let i = 0; i < WARMUP + opts.queries; i++) {
      const start = performance.now();
      await index.search(mix[i % mix.length], { k: 10 });
      if (i >= WARMUP) samples.push(performance.now() - start);
    }
    samples.sort((a, b) => a - b);
    const figures = {
      semantic_items: all.length,
      semantic_dimension: embedder.dimension,
      found_in_top10: rank >= 0,
      found_rank: rank >= 0 ? rank + 1 : null,
      search_p50_ms: round(percentile(samples, 0.5)),
      search_p99_ms: round(percentile(samples, 0.99)),
      index_s: round(indexS, 1),
      reopen_ms: round(reopenMs, 1),
      rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
    };
    await index.close();
    return figures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const SECTIONS = ["semantic", "turn"] as const;

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      distractors: { type: "string", default: "20000" },
      queries: { type: "string", default: "300" },
      entities: { type: "string", default: "10000" },
      documents: { type: "string", default: "10000" },
      turns: { type: "string", default: "300" },
      sections: { type: "string", default: SECTIONS.join(",") },
    },
  });
  const sections = values.sections.split(",").map((s) => s.trim());
  const unknown = sections.filter((s) => !(SECTIONS as readonly string[]).includes(s));
  if (unknown.length > 0) throw new Error(`unknown section(s) ${unknown.join(", ")}: use ${SECTIONS.join(", ")}`);
  const size = (name: keyof typeof values) => {
    const n = Number(values[name]);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a positive integer, got ${values[name]}`);
    return n;
  };
  const figures: Record<string, unknown> = {};
  if (sections.includes("semantic")) {
    Object.assign(figures, await semanticRecall({ distractors: size("distractors"), queries: size("queries") }));
  }
  if (sections.includes("turn")) {
    Object.assign(
      figures,
      await turnWork({ entities: size("entities"), documents: size("documents"), turns: size("turns") }),
    );
  }
  console.log(JSON.stringify({ bench: "memory", ...figures }));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
