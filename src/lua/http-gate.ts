/**
 * The main-thread half of Lua's http_get / http_post. The Lua worker cannot reach the network itself: it
 * posts each request here and waits (blocking only its own thread) for the answer. Everything the sandbox
 * promises about HTTP is decided here, on the thread scripts cannot touch: which hosts, which schemes, how
 * big an answer, how long all the requests of one call may take together. Redirects are not followed, since
 * one could lead to a host the script may not reach; the script sees the 3xx instead.
 */
import { BodyTooLargeError } from "../util/capped-body.js";
import { causeOf } from "../util/errors.js";

export interface LuaHttpRequest {
  script: string;
  method: "GET" | "POST";
  url: string;
  body?: string;
  headers: Record<string, string>;
}

/** What the prelude's http_call expects back: an answer for any HTTP status, or why there is none. */
export type LuaHttpReply = { status: number; headers: Record<string, string>; body: string } | { error: string };

export const HTTP_MAX_BYTES = 1024 * 1024;

export interface HttpGateOptions {
  /** What the scripts are, for messages. */
  kind: string;
  /** `host[:port]` values (as in `new URL(u).host`) that may be reached. */
  allowedHosts: readonly string[];
  /** The most one call may spend waiting on HTTP, all its requests together, in ms. */
  budgetMs: number;
}

export class HttpGate {
  private readonly allowed: Set<string>;
  private spentMs = 0;

  constructor(private readonly opts: HttpGateOptions) {
    this.allowed = new Set(opts.allowedHosts.map((h) => h.toLowerCase()));
  }

  /** A new call starts with the whole budget. */
  resetBudget(): void {
    this.spentMs = 0;
  }

  /** Performs one request if the policy allows it; never throws. `signal` aborts it (the worker is gone). */
  async request(req: LuaHttpRequest, signal: AbortSignal): Promise<LuaHttpReply> {
    const fn = req.method === "GET" ? "http_get" : "http_post";
    let target: URL;
    try {
      target = new URL(req.url);
    } catch {
      return { error: `${fn}: invalid URL ${JSON.stringify(req.url)}` };
    }
    if (target.protocol !== "http:" && target.protocol !== "https:") {
      return { error: `${fn}: only http and https URLs can be fetched, not ${target.protocol}` };
    }
    if (!this.allowed.has(target.host.toLowerCase())) {
      const allowed = [...this.allowed].join(", ") || "none";
      return {
        error: `${fn}: host ${target.host} is not allowed for ${this.opts.kind} ${req.script} (allowed: ${allowed})`,
      };
    }
    const left = this.opts.budgetMs - this.spentMs;
    // Under a millisecond counts as used up: a request cut at the last timer tick reads spent a hair short
    // of the budget, and a timer cannot wait for less anyway.
    if (left < 1) return { error: `${fn}: the ${this.opts.budgetMs} ms HTTP budget of this call is used up` };
    const started = performance.now();
    const where = `${fn} ${target.origin}${target.pathname}`;
    // A timer held here, not AbortSignal.timeout: a timeout signal nothing references strongly can be
    // collected before it fires, and the script would then wait on a silent server with no end.
    const abort = new AbortController();
    const onStop = () => abort.abort();
    if (signal.aborted) abort.abort();
    else signal.addEventListener("abort", onStop, { once: true });
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<LuaHttpReply>((resolve) => {
      timer = setTimeout(() => {
        abort.abort();
        resolve({ error: `${where}: no complete response within ${Math.round(left)} ms` });
      }, left);
    });
    try {
      // The answer goes back at the budget even if the request does not notice its abort.
      return await Promise.race([this.fetchReply(req, where, abort.signal), expired]);
    } finally {
      clearTimeout(timer);
      abort.abort();
      signal.removeEventListener("abort", onStop);
      this.spentMs += performance.now() - started;
    }
  }

  private async fetchReply(req: LuaHttpRequest, where: string, signal: AbortSignal): Promise<LuaHttpReply> {
    try {
      return await fetchCapped(req, signal);
    } catch (err) {
      const why = isAbort(err) ? "the request was stopped" : causeOf(err);
      return { error: `${where}: ${why}` };
    }
  }
}

async function fetchCapped(req: LuaHttpRequest, signal: AbortSignal): Promise<LuaHttpReply> {
  const res = await fetch(req.url, {
    method: req.method,
    headers: req.headers,
    body: req.body,
    redirect: "manual",
    signal,
  });
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (res.body) {
    for await (const chunk of res.body) {
      size += chunk.byteLength;
      // Leaving the loop by a throw cancels the body, so the rest is never downloaded.
      if (size > HTTP_MAX_BYTES) throw new BodyTooLargeError(HTTP_MAX_BYTES);
      chunks.push(chunk);
    }
  }
  return { status: res.status, headers: Object.fromEntries(res.headers), body: Buffer.concat(chunks).toString("utf8") };
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
}
