/**
 * A provider's POST over node:http(s) with a keep-alive agent, answered as the part of a fetch Response the
 * provider reads: status, headers and the body as an async iterable of bytes. fetch (undici) cost 0.2–0.45
 * ms more per call on loopback with the same keep-alive connection (a small SSE reply to a 20 KB request:
 * 257–585 µs against 68–129 µs), on every LLM call of every turn; and a web ReadableStream costs ≈ 0.1 ms
 * just to construct on Node 20 (its transferable set-up), twice a call with the call watch around it.
 *
 * What differs from fetch: redirects are not followed (a provider answers a POST where it is asked; fetch
 * would have turned a 301/302 into a GET), and the abort signal destroys the request and its body.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { HomeAgentError } from "../util/errors.js";

export interface PostReply {
  status: number;
  statusText: string;
  ok: boolean;
  headers: Headers;
  body: AsyncIterable<Uint8Array> | null;
}

export interface PostInit {
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
}

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

export function httpPost(url: string, init: PostInit): Promise<PostReply> {
  const target = new URL(url);
  const secure = target.protocol === "https:";
  const send = secure ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      {
        method: "POST",
        agent: secure ? agents.https : agents.http,
        headers: { ...init.headers, "content-length": String(Buffer.byteLength(init.body)) },
        signal: init.signal,
      },
      (res) => resolve(toReply(res)),
    );
    req.once("error", reject);
    req.end(init.body);
  });
}

function toReply(res: IncomingMessage): PostReply {
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  const status = res.statusCode ?? 0;
  return {
    status,
    statusText: res.statusMessage ?? "",
    ok: status >= 200 && status < 300,
    headers,
    body: bodyStream(res),
  };
}

/**
 * The body as an async iterable that hands out every byte that arrived before it fails: a stream cut midway
 * keeps its partial reply. Each read takes all that waits; the socket pauses while a few chunks wait. The
 * listeners are on from the start, so an end or a close before the first read is not missed. Stopping the
 * iteration before the end destroys the response once it has begun; a body never read is destroyed with
 * its request, which the caller's abort signal ends (the provider closes every call's watch).
 */
function bodyStream(res: IncomingMessage): AsyncGenerator<Uint8Array> {
  const queue: Buffer[] = [];
  let ended = false;
  let failure: unknown;
  let wake: (() => void) | null = null;
  const poke = () => {
    wake?.();
    wake = null;
  };
  res.on("data", (chunk: Buffer) => {
    queue.push(chunk);
    if (queue.length >= HIGH_WATER) res.pause();
    poke();
  });
  res.on("end", () => {
    ended = true;
    poke();
  });
  res.on("error", (err) => {
    failure ??= err;
    poke();
  });
  res.on("close", () => {
    if (!ended) {
      failure ??= new HomeAgentError({
        code: "connection_closed",
        message: "the provider closed the connection before the reply ended",
      });
    }
    poke();
  });
  async function* reads(): AsyncGenerator<Uint8Array> {
    try {
      for (;;) {
        while (queue.length === 0 && !ended && failure === undefined) await new Promise<void>((r) => (wake = r));
        if (queue.length === 0) {
          if (failure !== undefined) throw failure;
          return;
        }
        // Everything that arrived since the last read, as one chunk: a stream's events then reach the
        // adapter in one worker call rather than one per socket read (a reply of 7 events written in 14
        // pieces took 15 calls, 2.6–3.2 ms).
        const chunk = queue.length === 1 ? (queue.shift() as Buffer) : Buffer.concat(queue.splice(0));
        res.resume();
        yield chunk;
      }
    } finally {
      if (!ended) res.destroy();
    }
  }
  return reads();
}

/** Chunks waiting to be read before the socket is paused. */
const HIGH_WATER = 8;
