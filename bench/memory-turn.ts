/**
 * Section turnWork of `npm run bench:memory`: the memory work of one user turn as the kernel does it —
 * prepare the query, prune the window (archiving what leaves), append the input, build the memory index
 * and related-memory sections, record the reply, end the turn — with 10k graph entities and 10k archived
 * documents already stored, on disk, with the offline default embedder (lexical). Budgets are the
 * sections' shares of an 8k-token window.
 *
 * Between turns the event loop runs, as it does in the daemon while the user types (or while a turn waits
 * for the model): the vectors of what the turn wrote are computed then, and the WAL is checkpointed then.
 * That background work is not part of the turn's latency; its cost per turn is reported beside it
 * (turn_background_ms, the mean).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setImmediate as nextLoop } from "node:timers/promises";
import { LexicalEmbedder } from "../src/embedding/lexical.js";
import type { ContextEvent } from "../src/kernel/types.js";
import { openMemoryStore } from "../src/memory/store.js";
import { MemorySystem } from "../src/memory/system.js";
import { corpus, queries } from "./scale-corpus.js";
import { percentile } from "./stats.js";

const HOUR = 3_600_000;
const WINDOW = 30;
const WARMUP = 50;
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

    const texts = queries(opts.turns + WARMUP, 7);
    const samples: number[] = [];
    let background = 0;
    let ts = start + 300 * 24 * HOUR;
    for (const [i, text] of texts.entries()) {
      ts += 60_000;
      const began = performance.now();
      await oneTurn(memory, `r${i}`, text, ts);
      const ended = performance.now();
      await betweenTurns(memory);
      if (i >= WARMUP) {
        samples.push(ended - began);
        background += performance.now() - ended;
      }
    }
    samples.sort((a, b) => a - b);
    return {
      turn_entities: memory.graph.count(),
      turn_documents: memory.docs.count(),
      turn_window: memory.context.size(),
      turn_fill_s: Math.round(fillS),
      turn_p50_ms: round(percentile(samples, 0.5)),
      turn_p99_ms: round(percentile(samples, 0.99)),
      turn_background_ms: round(background / samples.length),
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

/** What the daemon does while no turn runs: the written items' vectors, and a due WAL checkpoint. */
async function betweenTurns(memory: MemorySystem): Promise<void> {
  await memory.index.flush();
  await nextLoop();
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
