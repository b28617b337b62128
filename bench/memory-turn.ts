/**
 * Section turnWork of `npm run bench:memory`: the memory work of one user turn as the kernel does it —
 * prepare the query, prune the window (archiving what leaves), append the input, build the memory index
 * and related-memory sections, record the reply, end the turn — with 10k graph entities and 10k archived
 * documents already stored, on disk, with the offline default embedder (lexical). Budgets are the
 * sections' shares of an 8k-token window.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LexicalEmbedder } from "../src/embedding/lexical.js";
import type { ContextEvent } from "../src/kernel/types.js";
import { openMemoryStore } from "../src/memory/store.js";
import { MemorySystem } from "../src/memory/system.js";
import { corpus, queries } from "./scale-corpus.js";
import { percentile } from "./stats.js";

const HOUR = 3_600_000;
const WINDOW = 30;
/** related_memory and memory_index shares (0.2 / 0.1) of an 8k window's request budget (6553 tokens). */
const BUDGETS = { index: 655, related: 1310 };
const quiet = { debug() {}, info() {}, warn() {}, error: (m: string) => console.error(m) };
const round = (x: number) => Math.round(x * 1000) / 1000;

export async function turnWork(opts: { entities: number; documents: number; turns: number }) {
  const dir = mkdtempSync(join(tmpdir(), "bench-memory-turn-"));
  const db = openMemoryStore(join(dir, "memory.db"));
  const memory = new MemorySystem({
    db,
    dataDir: dir,
    settings: { maxContextSize: () => WINDOW, zone: () => "UTC", duration: () => 0 },
    log: quiet,
  });
  try {
    memory.setEmbedder(new LexicalEmbedder());
    const start = Date.now() - 400 * 24 * HOUR;
    const t0 = performance.now();
    fillGraph(memory, opts.entities);
    await fillDocuments(memory, opts.documents, start);
    await memory.index.flush();
    const fillS = (performance.now() - t0) / 1000;

    const texts = queries(opts.turns + 50, 7);
    const samples: number[] = [];
    let ts = start + 300 * 24 * HOUR;
    for (const [i, text] of texts.entries()) {
      ts += 60_000;
      const began = performance.now();
      await oneTurn(memory, `r${i}`, text, ts);
      if (i >= 50) samples.push(performance.now() - began);
    }
    samples.sort((a, b) => a - b);
    return {
      turn_entities: memory.graph.count(),
      turn_documents: memory.docs.count(),
      turn_window: memory.context.size(),
      turn_fill_s: Math.round(fillS),
      turn_p50_ms: round(percentile(samples, 0.5)),
      turn_p99_ms: round(percentile(samples, 0.99)),
    };
  } finally {
    await memory.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function oneTurn(memory: MemorySystem, requestId: string, text: string, ts: number): Promise<void> {
  const { context, memoryContext } = memory;
  const q = await memory.index.prepare(text);
  await context.prune(q, WINDOW - 1);
  const id = await context.append({ ts, kind: "user", source: "cli", channel: "cli", input: text });
  const exclude = new Set((await context.window()).map((e) => e.id));
  await memoryContext.build(q, BUDGETS, { requestId, exclude });
  await context.respond(id, { response: "ok.", toolsUsed: [], toolResults: [] });
  await memoryContext.turnDone(requestId, context.event(id) as ContextEvent);
}

/** Entities named after corpus words, related in a chain of facts (so recall walks real edges). */
function fillGraph(memory: MemorySystem, count: number): void {
  const names: string[] = [];
  for (const { text } of corpus(count, 11)) names.push(text.slice(0, 40).trim());
  const unique = [...new Set(names.filter((n) => [...n].length >= 2))];
  for (let i = 0; i + 1 < unique.length; i += 200) {
    const triples = [];
    for (let j = i; j < Math.min(i + 200, unique.length - 1); j++) {
      triples.push({ subject: unique[j], relation: "related_to", object: unique[j + 1] });
    }
    memory.graph.commit(triples, { sessionId: "bench" });
  }
}

/** Archived turns, three per document, dated over the past year. */
async function fillDocuments(memory: MemorySystem, count: number, start: number): Promise<void> {
  const items = [...corpus(count * 3, 5)];
  for (let d = 0; d < count; d++) {
    const events = items.slice(d * 3, d * 3 + 3).map((item, k) => ({
      id: d * 3 + k + 1,
      ts: start + (d * 3 + k) * 10 * 60_000,
      kind: "user" as const,
      source: "cli",
      channel: "cli",
      input: item.text,
      response: "ok.",
      toolsUsed: [],
      toolResults: [],
      noMemory: false,
    }));
    memory.docs.archive(events);
  }
}
