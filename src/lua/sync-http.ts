/**
 * Blocking HTTP for Lua's `http_get` / `http_post`. wasmoon runs Lua synchronously on the JS thread, so a
 * Lua call cannot await a Promise: the request has to finish before the host function returns.
 *
 * How: one long-lived worker thread runs `fetch`; the caller posts the request, sleeps in `Atomics.wait`
 * on a shared counter that the worker bumps after posting the reply, then takes the reply with
 * `receiveMessageOnPort`. Chosen over `child_process.spawnSync(node -e fetch…)` because that starts a
 * whole Node process per call (~50 ms and ~40 MB), while the worker starts once (~100 ms) and a call then
 * costs only the network time. The worker is unref'd so it never keeps the daemon alive.
 *
 * The JS thread is blocked while a call runs, so every call is bounded twice: the worker aborts the fetch at
 * `timeoutMs`, and the caller stops waiting shortly after even if the worker itself is stuck. A reply that
 * turns up after its caller gave up is recognised by its id and dropped.
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, Worker } from "node:worker_threads";

export interface SyncHttpRequest {
  method: "GET" | "POST";
  url: string;
  headers: Record<string, string>;
  body?: string;
  timeoutMs: number;
  maxBytes: number;
}

export type SyncHttpResult =
  | { ok: true; status: number; headers: Record<string, string>; body: string }
  | { ok: false; error: string };

// Plain CommonJS evaluated in the worker: a .ts worker file would need the tsx loader inside the worker too.
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const { port, flag } = workerData;

async function perform(req) {
  const res = await fetch(req.url, {
    method: req.method,
    headers: req.headers,
    body: req.body,
    // A redirect could lead to a host the caller has not allowed; the script sees the 3xx instead.
    redirect: "manual",
    signal: AbortSignal.timeout(req.timeoutMs),
  });
  const chunks = [];
  let size = 0;
  if (res.body) {
    for await (const chunk of res.body) {
      size += chunk.byteLength;
      if (size > req.maxBytes) throw new Error("the response is larger than " + req.maxBytes + " bytes");
      chunks.push(chunk);
    }
  }
  return {
    ok: true,
    status: res.status,
    headers: Object.fromEntries(res.headers),
    body: Buffer.concat(chunks).toString("utf8"),
  };
}

function describe(err, req) {
  if (err && (err.name === "TimeoutError" || err.name === "AbortError")) {
    return "no complete response within " + req.timeoutMs + " ms";
  }
  const cause = err && err.cause;
  return (cause && (cause.code || cause.message)) || (err && err.message) || String(err);
}

parentPort.on("message", async (req) => {
  let reply;
  try {
    reply = await perform(req);
  } catch (err) {
    reply = { ok: false, error: describe(err, req) };
  }
  port.postMessage({ id: req.id, reply });
  Atomics.add(flag, 0, 1);
  Atomics.notify(flag, 0);
});
`;

// Time the caller grants the worker beyond the request's own timeout (thread start-up on first use).
const GRACE_MS = 500;

interface Channel {
  worker: Worker;
  port: MessagePort;
  flag: Int32Array;
}

let channel: Channel | undefined;
let nextId = 0;

function open(): Channel {
  if (channel) return channel;
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { port: port2, flag }, transferList: [port2] });
  worker.unref();
  const opened: Channel = { worker, port: port1, flag };
  // A worker that died is replaced on the next call instead of leaving every later call to time out.
  worker.on("exit", () => {
    if (channel === opened) channel = undefined;
  });
  worker.on("error", () => {});
  channel = opened;
  return opened;
}

/** Performs one HTTP request while blocking the calling thread; never throws. */
export function httpSync(req: SyncHttpRequest): SyncHttpResult {
  const { worker, port, flag } = open();
  const id = ++nextId;
  let seen = Atomics.load(flag, 0);
  worker.postMessage({ id, ...req });
  const until = performance.now() + req.timeoutMs + GRACE_MS;
  for (;;) {
    const received = receiveMessageOnPort(port)?.message as { id: number; reply: SyncHttpResult } | undefined;
    if (received?.id === id) return received.reply;
    if (received) continue; // the late reply of an earlier call that gave up
    const left = until - performance.now();
    if (left <= 0) return { ok: false, error: `no complete response within ${req.timeoutMs} ms` };
    Atomics.wait(flag, 0, seen, left);
    seen = Atomics.load(flag, 0);
  }
}
