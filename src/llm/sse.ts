/**
 * Server-sent events → `data` payloads (WHATWG event-stream rules: LF, CR or CRLF line ends, `:` comments,
 * several `data:` lines joined by "\n", a blank line ends an event). Network reads split lines and even
 * UTF-8 characters anywhere, so everything is buffered until a line is complete.
 *
 * The generator's return value says how the stream ended: "done" at `data: [DONE]`, "eof" when the body
 * simply ended — the caller decides whether that was complete.
 */
export async function* sseData(body: ReadableStream<Uint8Array>): AsyncGenerator<string, "done" | "eof"> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (;;) {
        const end = lineEnd(buffer, done);
        if (!end) break;
        const line = buffer.slice(0, end.at);
        buffer = buffer.slice(end.at + end.length);
        if (line === "") {
          if (data.length === 0) continue;
          const payload = data.join("\n");
          data = [];
          if (payload.trim() === "[DONE]") return "done";
          yield payload;
        } else if (line.startsWith("data:")) {
          data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
        }
        // Comments (":") and the event/id/retry fields carry nothing the adapters read.
      }
      if (done) break;
    }
    // Lenient about a last event without its blank line: some servers close right after it.
    if (buffer.startsWith("data:")) data.push(buffer.slice(buffer.startsWith("data: ") ? 6 : 5));
    if (data.length > 0) {
      const payload = data.join("\n");
      if (payload.trim() === "[DONE]") return "done";
      yield payload;
    }
    return "eof";
  } finally {
    await reader.cancel().catch(() => {});
  }
}

/** Where the first complete line ends; a trailing "\r" may be half of a CRLF, so it waits unless at EOF. */
function lineEnd(buffer: string, eof: boolean): { at: number; length: number } | undefined {
  const lf = buffer.indexOf("\n");
  const cr = buffer.indexOf("\r");
  if (cr === -1 || (lf !== -1 && lf < cr)) return lf === -1 ? undefined : { at: lf, length: 1 };
  if (cr + 1 < buffer.length) return { at: cr, length: buffer[cr + 1] === "\n" ? 2 : 1 };
  return eof ? { at: cr, length: 1 } : undefined;
}
