/**
 * A fetch for the HTTP transports that will not read without end. The SDK buffers a JSON answer whole and
 * an SSE event until its blank line, so a server answering with 300 MB (or one endless event) would grow
 * the daemon's memory until it died. A JSON answer over the limit, or an SSE event over it, fails the
 * stream instead — the same limit a stdio server's messages have.
 */
import { SdkError } from "@homeagent/sdk";

export type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export function boundedFetch(maxBytes: number): Fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body) return response;
    const events = (response.headers.get("content-type") ?? "").includes("text/event-stream");
    const counted = response.body.pipeThrough(events ? perEvent(maxBytes) : whole(maxBytes));
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

function tooLarge(maxBytes: number, what: string): Error {
  const size =
    maxBytes >= 1024 * 1024 ? `${Math.round(maxBytes / (1024 * 1024))} MB` : `${Math.round(maxBytes / 1024)} KB`;
  return new SdkError({ code: "too_large", message: `the server sent ${what} over ${size}; it was cut off` });
}

function whole(maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let total = 0;
  return new TransformStream({
    transform(chunk, controller) {
      total += chunk.byteLength;
      if (total > maxBytes) controller.error(tooLarge(maxBytes, "an answer"));
      else controller.enqueue(chunk);
    },
  });
}

/** Counts the bytes since the last blank line (the end of an SSE event; "\r" is ignored). */
function perEvent(maxBytes: number): TransformStream<Uint8Array, Uint8Array> {
  let sinceEvent = 0;
  let lastWasNewline = false;
  return new TransformStream({
    transform(chunk, controller) {
      for (const byte of chunk) {
        if (byte === 0x0d) continue;
        if (byte === 0x0a && lastWasNewline) sinceEvent = 0;
        else sinceEvent++;
        lastWasNewline = byte === 0x0a;
      }
      if (sinceEvent > maxBytes) controller.error(tooLarge(maxBytes, "one event"));
      else controller.enqueue(chunk);
    },
  });
}
