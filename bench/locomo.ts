/**
 * LoCoMo retrieval harness: every turn of a conversation is indexed through the same SearchIndex the
 * memory layers use (one index per conversation, as each is one user's memory); every question of
 * categories 1–4 (multi-hop, temporal, open-domain, single-hop; 5, adversarial, has no answer to find)
 * retrieves the top k turns, and recall@k is the share of the question's evidence turns among them.
 * Prints one JSON line per k.
 *
 *   npm run bench:locomo -- [--data FILE] [--k 5,10,20] [--baseline bm25] [--embedder lexical|none]
 *
 * FILE defaults to the development split beside the repository, ../shared/datasets/locomo/locomo-dev.json.
 */

import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { LexicalEmbedder } from "../src/embedding/lexical.js";
import type { EmbeddingProvider } from "../src/embedding/spi.js";
import { SearchIndex } from "../src/retrieval/search.js";
import { PlainBm25 } from "./bm25.js";
import { loadLocomo, type Question, type Turn } from "./locomo-data.js";
import { percentile } from "./stats.js";

const CATEGORIES = [1, 2, 3, 4];
const DEV_SPLIT = fileURLToPath(new URL("../../shared/datasets/locomo/locomo-dev.json", import.meta.url));

/** The text a turn is indexed under, identical for both systems. */
export function turnDocument(t: Turn): string {
  return `${t.speaker}: ${t.text}`;
}

type Retriever = (conversation: string, question: string, k: number) => Promise<string[]>;

export async function ourRetriever(turns: Turn[], embedder: EmbeddingProvider | null): Promise<Retriever> {
  const indexes = new Map<string, SearchIndex>();
  for (const t of turns) {
    let index = indexes.get(t.conversation);
    if (!index) {
      index = new SearchIndex(":memory:", { embedder });
      indexes.set(t.conversation, index);
    }
    await index.add([{ id: t.diaId, text: turnDocument(t), meta: { speaker: t.speaker, date: t.date } }]);
  }
  return async (conversation, question, k) =>
    (await indexes.get(conversation)!.search(question, { k })).map((h) => h.id);
}

export function bm25Retriever(turns: Turn[]): Retriever {
  const indexes = new Map<string, PlainBm25>();
  for (const t of turns) {
    let index = indexes.get(t.conversation);
    if (!index) {
      index = new PlainBm25();
      indexes.set(t.conversation, index);
    }
    index.add(t.diaId, turnDocument(t));
  }
  return async (conversation, question, k) => indexes.get(conversation)?.search(question, k) ?? [];
}

export interface RecallReport {
  bench: string;
  k: number;
  overall: number;
  by_category: Record<string, number>;
  questions: number;
  p50_ms: number;
  p95_ms: number;
}

export async function measure(name: string, retrieve: Retriever, questions: Question[], k: number) {
  const sums = new Map<number, { recall: number; n: number }>();
  const latencies: number[] = [];
  for (const q of questions) {
    const t0 = performance.now();
    const ids = await retrieve(q.conversation, q.question, k);
    latencies.push(performance.now() - t0);
    const found = q.evidence.filter((e) => ids.includes(e)).length;
    const s = sums.get(q.category) ?? { recall: 0, n: 0 };
    s.recall += found / q.evidence.length;
    s.n++;
    sums.set(q.category, s);
  }
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => percentile(latencies, p);
  const round = (x: number, d: number) => Math.round(x * 10 ** d) / 10 ** d;
  const total = [...sums.values()].reduce((a, s) => ({ recall: a.recall + s.recall, n: a.n + s.n }), {
    recall: 0,
    n: 0,
  });
  const report: RecallReport = {
    bench: name,
    k,
    overall: round(total.recall / Math.max(1, total.n), 4),
    by_category: Object.fromEntries(
      CATEGORIES.map((c) => [String(c), round((sums.get(c)?.recall ?? 0) / Math.max(1, sums.get(c)?.n ?? 0), 4)]),
    ),
    questions: total.n,
    p50_ms: round(pct(0.5), 3),
    p95_ms: round(pct(0.95), 3),
  };
  return report;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      data: { type: "string", default: DEV_SPLIT },
      k: { type: "string", default: "5,10,20" },
      baseline: { type: "string" },
      embedder: { type: "string", default: "lexical" },
    },
  });
  if (!existsSync(values.data)) {
    throw new Error(`no LoCoMo file at ${values.data}: pass one with --data FILE (LoCoMo's JSON format)`);
  }
  if (values.baseline !== undefined && values.baseline !== "bm25") {
    throw new Error(`unknown baseline "${values.baseline}" (only "bm25")`);
  }
  const ks = values.k.split(",").map((s) => Number(s.trim()));
  if (ks.some((k) => !Number.isInteger(k) || k <= 0)) throw new Error(`--k takes positive integers, got "${values.k}"`);

  const data = loadLocomo(values.data);
  for (const d of data.dropped) console.error(`locomo: skipped ${d}`);
  const questions = data.questions.filter((q) => CATEGORIES.includes(q.category));
  const usable = questions.filter((q) => q.evidence.length > 0);
  if (usable.length < questions.length) {
    console.error(`locomo: ${questions.length - usable.length} question(s) without usable evidence not scored`);
  }

  let name = "locomo-bm25";
  let retrieve: Retriever;
  if (values.baseline === "bm25") retrieve = bm25Retriever(data.turns);
  else {
    name = "locomo";
    if (values.embedder !== "lexical" && values.embedder !== "none") {
      throw new Error(`unknown --embedder "${values.embedder}" (lexical or none)`);
    }
    retrieve = await ourRetriever(data.turns, values.embedder === "lexical" ? new LexicalEmbedder() : null);
  }
  // Untimed first pass: loading jieba's dictionary and compiling the hot paths would otherwise land in the
  // latency of whichever k is measured first.
  for (const q of usable) await retrieve(q.conversation, q.question, ks[0]);
  for (const k of ks) console.log(JSON.stringify(await measure(name, retrieve, usable, k)));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
