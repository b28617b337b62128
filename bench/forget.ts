/**
 * What a forget costs. A memory store of 10k archived turns and 10k graph entities (on disk, the offline
 * lexical embedder), in which each forgotten name sits in a turn, a fact, a person trait and a document;
 * then `--runs` forgets of different names, each as the user's `/memory forget --yes` runs it: the preview,
 * the removal from every layer, then the scrub of memory.db (VACUUM in a worker thread + the log cut). Jobs
 * run one at a time on a lane as in the daemon, and a turn's write is queued behind each forget: the time
 * it waits is the time writes wait. The event loop's longest stall while a scrub runs is reported too (it
 * stays free: the VACUUM runs in its own thread). Prints one JSON line `{"bench":"forget", …}`.
 *
 *   npm run bench:forget [-- --turns 10000 --entities 10000 --runs 10]
 */
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { LexicalEmbedder } from "../src/embedding/lexical.js";
import type { Job } from "../src/kernel/jobs.js";
import { openMemoryStore } from "../src/memory/store.js";
import { MemorySystem } from "../src/memory/system.js";
import { corpus } from "./scale-corpus.js";
import { percentile } from "./stats.js";

const { values } = parseArgs({
  options: {
    turns: { type: "string", default: "10000" },
    entities: { type: "string", default: "10000" },
    runs: { type: "string", default: "10" },
  },
});
const TURNS = Number(values.turns);
const ENTITIES = Number(values.entities);
const RUNS = Number(values.runs);
const quiet = { debug() {}, info() {}, warn() {}, error: (m: string) => console.error(m) };
const round = (x: number) => Math.round(x * 10) / 10;

/** The daemon's job lane, reduced to what the bench needs: one job at a time, step by step. */
function serialLane() {
  let tail: Promise<void> = Promise.resolve();
  const signal = new AbortController().signal;
  return (job: Job): Promise<void> => {
    const run = tail.then(async () => {
      while (await job.step(signal)) {
        // next step
      }
    });
    tail = run.catch(() => undefined);
    return run;
  };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "bench-forget-"));
  const db = openMemoryStore(join(dir, "memory.db"));
  const memory = new MemorySystem({
    db,
    dataDir: dir,
    settings: { maxContextSize: () => 30, zone: () => "UTC", duration: () => 0 },
    log: quiet,
  });
  const runJob = serialLane();
  memory.attach({ enqueueJob: runJob, status: () => ({ busy: false }), injectSelf: async () => undefined });
  try {
    memory.setEmbedder(new LexicalEmbedder());
    const names = Array.from({ length: RUNS }, (_, i) => `Quillon Varga${String.fromCharCode(97 + (i % 26))}${i}`);
    await fill(memory, names);
    const dbMb = statSync(db.name).size / 1e6;

    const preview: number[] = [];
    const removal: number[] = [];
    const scrub: number[] = [];
    const waits: number[] = [];
    const loop = monitorEventLoopDelay({ resolution: 5 });
    let loopMax = 0;
    for (const name of names) {
      const t0 = performance.now();
      await memory.forgetting.preview(name);
      const t1 = performance.now();
      await memory.forgetting.forget(name);
      const t2 = performance.now();
      loop.reset();
      loop.enable();
      // A turn's write arriving right after the forget: it runs once the lane is free again.
      await runJob({
        name: "turn",
        step: async () => {
          await memory.context.append({ ts: Date.now(), kind: "user", source: "cli", channel: "cli", input: "hello" });
          return false;
        },
      });
      const t3 = performance.now();
      loop.disable();
      loopMax = Math.max(loopMax, loop.max / 1e6);
      const s = memory.scrubber.status();
      if (s.state !== "done") throw new Error(`the scrub ended ${s.state}: ${s.error ?? ""}`);
      preview.push(t1 - t0);
      removal.push(t2 - t1);
      waits.push(t3 - t2);
      scrub.push((s.finishedAt ?? 0) - (s.startedAt ?? 0));
    }
    for (const list of [preview, removal, scrub, waits]) list.sort((a, b) => a - b);
    console.log(
      JSON.stringify({
        bench: "forget",
        turns: TURNS,
        entities: memory.graph.count(),
        db_mb: round(dbMb),
        runs: RUNS,
        preview_p50_ms: round(percentile(preview, 0.5)),
        forget_p50_ms: round(percentile(removal, 0.5)),
        forget_max_ms: round(removal.at(-1) ?? 0),
        scrub_p50_ms: round(percentile(scrub, 0.5)),
        scrub_max_ms: round(scrub.at(-1) ?? 0),
        writes_wait_p50_ms: round(percentile(waits, 0.5)),
        writes_wait_max_ms: round(waits.at(-1) ?? 0),
        scrub_event_loop_max_ms: round(loopMax),
      }),
    );
  } finally {
    await memory.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** 10k entities in chains of facts, 10k archived turns; each name in a turn, a fact, a trait and a document. */
async function fill(memory: MemorySystem, names: readonly string[]): Promise<void> {
  const words = [...new Set([...corpus(ENTITIES * 2, 11)].map((c) => c.text.slice(0, 40).trim()))].slice(0, ENTITIES);
  for (let i = 0; i + 1 < words.length; i += 200) {
    const triples = [];
    for (let j = i; j < Math.min(i + 200, words.length - 1); j++) {
      triples.push({ subject: words[j], relation: "related_to", object: words[j + 1] });
    }
    memory.graph.commit(triples, { sessionId: "bench" });
  }
  const texts = [...corpus(TURNS, 5)].map((c) => c.text);
  const start = Date.now() - 400 * 24 * 3_600_000;
  for (const [i, name] of names.entries()) {
    texts[Math.floor(((i + 0.5) * texts.length) / names.length)] += ` I met ${name} at the bakery.`;
    memory.graph.commit([{ subject: name, relation: "bakes at", object: words[i] }]);
    memory.graph.setTrait(name, "favourite bread", `${name} rye`);
    await memory.docs.commit({ content: `${name} recommended the sourdough.`, summary: "bread", tags: ["bread"] });
  }
  for (let d = 0; d < texts.length; d++) {
    memory.docs.archive([
      {
        id: d + 1,
        ts: start + d * 600_000,
        kind: "user",
        source: "cli",
        channel: "cli",
        input: texts[d],
        response: "ok.",
        toolsUsed: [],
        toolResults: [],
        noMemory: false,
      },
    ]);
  }
  await memory.index.flush();
}

await main();
