/**
 * The web server's figures, against a real in-process daemon with the webui plugin and an instant fake
 * LLM (test/fixtures/webui.ts). Prints one JSON line per figure:
 *
 * - `http_ttft`: time to first token of a streaming `/v1/chat/completions` — from sending the request to
 *   the first chunk with text — p50/p99 over sequential requests after a warm-up (target p50 < 20 ms).
 * - `http_sse_fanout`: the turn p50 (a non-streaming completion's round trip, and the kernel's own span
 *   from raw_input to agent_output) while 50 clients read `/api/v1/chat/events`, against the same run with
 *   no SSE client (target ratio ≤ 1.2), and the events the hub dropped for those clients (target 0). The
 *   readers run in a worker thread, so the daemon's event loop pays only the server's side of the fan-out.
 *   Blocks with and without readers alternate, so drift on a shared machine hits both alike.
 */
import { Worker } from "node:worker_threads";
import type { AgentEvent } from "@homeagent/sdk";
import { startWebDaemon, type WebDaemon } from "../test/fixtures/webui.js";
import { percentile } from "./stats.js";

const TTFT_REQUESTS = Number(process.env.BENCH_HTTP_REQUESTS ?? 300);
const WARMUP = 50;
const SSE_CLIENTS = 50;
const FANOUT_TURNS = Number(process.env.BENCH_HTTP_FANOUT_TURNS ?? 150);
const FANOUT_BLOCKS = 2;

async function ttftFigure(): Promise<void> {
  const first: number[] = [];
  const whole: number[] = [];
  for (let i = 0; i < TTFT_REQUESTS; i++) {
    const t = await firstToken(`question ${i}`);
    first.push(t.first);
    whole.push(t.total);
  }
  print({
    bench: "http_ttft",
    requests: TTFT_REQUESTS,
    p50_ms: ms(median(first)),
    p99_ms: ms(p99(first)),
    total_p50_ms: ms(median(whole)),
  });
}

/** One streaming completion: ms to the first chunk that carries text, and to [DONE]. */
async function firstToken(text: string): Promise<{ first: number; total: number }> {
  const t0 = performance.now();
  const res = await web.fetch("/v1/chat/completions", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ model: "homeagent", stream: true, messages: [{ role: "user", content: text }] }),
  });
  if (res.status !== 200 || !res.body)
    throw new Error(`streaming completion answered ${res.status}: ${await res.text()}`);
  const decoder = new TextDecoder();
  let seen = "";
  let first = -1;
  for await (const bytes of res.body) {
    seen += decoder.decode(bytes, { stream: true });
    if (first < 0 && /"delta":\{"content":"[^"]/.test(seen)) first = performance.now() - t0;
  }
  if (first < 0 || !seen.endsWith("data: [DONE]\n\n")) throw new Error(`no text in the stream: ${seen}`);
  return { first, total: performance.now() - t0 };
}

async function fanoutFigure(): Promise<void> {
  const probe = await web.fetch("/api/v1/chat/events", { signal: AbortSignal.timeout(5000) });
  await probe.body?.cancel();
  if (probe.status !== 200) {
    print({
      bench: "http_sse_fanout",
      skipped: `GET /api/v1/chat/events answered ${probe.status}: the SSE hub is not mounted yet`,
    });
    return;
  }
  const plain = { trip: [] as number[], kernel: [] as number[] };
  const fanned = { trip: [] as number[], kernel: [] as number[] };
  let dropped = 0;
  const received: number[] = [];
  for (let block = 0; block < FANOUT_BLOCKS; block++) {
    await turns(FANOUT_TURNS, plain);
    const readers = await SseReaders.open(web, SSE_CLIENTS);
    const before = await sseStats();
    if (before.clients < SSE_CLIENTS) throw new Error(`only ${before.clients} SSE clients connected`);
    await turns(FANOUT_TURNS, fanned);
    // Everything published has been written; give the readers the time to take it in.
    const published = await readers.settle();
    const after = await sseStats();
    dropped += after.dropped - before.dropped;
    received.push(...(await readers.close()));
    if (published < 0) throw new Error("the SSE readers did not settle");
  }
  const trip = median(fanned.trip) / median(plain.trip);
  const kernel = median(fanned.kernel) / median(plain.kernel);
  print({
    bench: "http_sse_fanout",
    sse_clients: SSE_CLIENTS,
    turns: FANOUT_TURNS * FANOUT_BLOCKS,
    turn_p50_ms: ms(median(plain.trip)),
    turn_sse_p50_ms: ms(median(fanned.trip)),
    ratio: Math.round(trip * 100) / 100,
    kernel_p50_ms: ms(median(plain.kernel)),
    kernel_sse_p50_ms: ms(median(fanned.kernel)),
    kernel_ratio: Math.round(kernel * 100) / 100,
    dropped,
    events_per_client_min: Math.min(...received),
    events_per_client_max: Math.max(...received),
  });
}

/** Sequential non-streaming completions; their round trips and kernel spans go into `into`. */
async function turns(n: number, into: { trip: number[]; kernel: number[] }): Promise<void> {
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    const res = await web.fetch("/v1/chat/completions", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ model: "homeagent", messages: [{ role: "user", content: `turn ${i}` }] }),
    });
    const body = await res.text();
    into.trip.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`completion answered ${res.status}: ${body}`);
    const span = spans.take(res.headers.get("x-homeagent-request-id") ?? "");
    if (span === undefined) throw new Error("no kernel span for the turn");
    into.kernel.push(span);
  }
}

async function sseStats(): Promise<{ clients: number; dropped: number; sent: number }> {
  const { body } = await web.json("GET", "/api/v1/runtime");
  return body.sse;
}

/** The kernel's span of each turn (raw_input → agent_output), read on the daemon's own bus. */
function kernelSpans(daemon: WebDaemon): { take(requestId: string): number | undefined; stop(): void } {
  const started = new Map<string, number>();
  const done = new Map<string, number>();
  const stop = daemon.daemon.agent.bus.subscribe("*", (event: AgentEvent) => {
    const id = event.payload.requestId;
    if (typeof id !== "string") return;
    if (event.type === "raw_input") started.set(id, performance.now());
    else if (event.type === "agent_output" && started.has(id)) {
      done.set(id, performance.now() - (started.get(id) ?? 0));
      started.delete(id);
    }
  });
  return {
    take: (id) => {
      const span = done.get(id);
      done.delete(id);
      return span;
    },
    stop,
  };
}

/** SSE clients reading /api/v1/chat/events in a worker thread, counting the events each receives. */
class SseReaders {
  private constructor(private readonly worker: Worker) {}

  static async open(daemon: WebDaemon, n: number): Promise<SseReaders> {
    const worker = new Worker(READER_CODE, {
      eval: true,
      workerData: { url: `${daemon.base}/api/v1/chat/events`, key: daemon.apiKey, n },
    });
    const readers = new SseReaders(worker);
    await readers.next("ready");
    return readers;
  }

  /** Waits until no reader got anything for 200 ms; the events the busiest reader got, or -1 after 10 s. */
  async settle(): Promise<number> {
    this.worker.postMessage("settle");
    return ((await this.next("settled")) as { max: number }).max;
  }

  /** Disconnects every reader; the events each received. */
  async close(): Promise<number[]> {
    this.worker.postMessage("stop");
    const { counts } = (await this.next("counts")) as { counts: number[] };
    await this.worker.terminate();
    return counts;
  }

  private next(kind: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`SSE readers: no "${kind}" within 15 s`)), 15_000);
      const onMessage = (m: { kind: string; error?: string }) => {
        if (m.kind !== kind && m.kind !== "error") return;
        clearTimeout(timer);
        this.worker.off("message", onMessage);
        if (m.kind === "error") reject(new Error(`SSE reader: ${m.error}`));
        else resolve(m);
      };
      this.worker.on("message", onMessage);
    });
  }
}

const READER_CODE = `
const { parentPort, workerData } = require("node:worker_threads");
const { url, key, n } = workerData;
const counts = new Array(n).fill(0);
const aborts = [];
let ready = 0;
let last = performance.now();
for (let i = 0; i < n; i++) {
  const abort = new AbortController();
  aborts.push(abort);
  fetch(url, { headers: { "X-API-Key": key }, signal: abort.signal })
    .then(async (res) => {
      if (res.status !== 200) throw new Error("GET /api/v1/chat/events answered " + res.status);
      if (++ready === n) parentPort.postMessage({ kind: "ready" });
      const decoder = new TextDecoder();
      let carry = "";
      for await (const bytes of res.body) {
        const text = carry + decoder.decode(bytes, { stream: true });
        counts[i] += text.split("\\n\\n").length - 1;
        carry = text.endsWith("\\n") ? "\\n" : "";
        last = performance.now();
      }
    })
    .catch((err) => {
      if (!abort.signal.aborted) parentPort.postMessage({ kind: "error", error: String(err) });
    });
}
parentPort.on("message", (m) => {
  if (m === "settle") {
    const began = performance.now();
    const check = setInterval(() => {
      const now = performance.now();
      if (now - last >= 200 || now - began > 10000) {
        clearInterval(check);
        parentPort.postMessage({ kind: "settled", max: now - began > 10000 ? -1 : Math.max(...counts) });
      }
    }, 20);
  } else if (m === "stop") {
    for (const abort of aborts) abort.abort();
    parentPort.postMessage({ kind: "counts", counts });
  }
});
`;

function median(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

function p99(values: number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    0.99,
  );
}

function ms(value: number): number {
  return Math.round(value * 100) / 100;
}

function print(figure: Record<string, unknown>): void {
  console.log(JSON.stringify(figure));
}

// Last, so that every class and constant above is initialised before it runs.
const web = await startWebDaemon({ webuiOnly: true });
const spans = kernelSpans(web);
try {
  for (let i = 0; i < WARMUP; i++) await firstToken(`warm-up ${i}`);
  await ttftFigure();
  await fanoutFigure();
} finally {
  spans.stop();
  await web.stop();
}
