/**
 * Newline-delimited JSON (Ollama's stream format) → one string per non-blank line. Like sse.ts it buffers
 * until a line is complete, because network reads split lines and UTF-8 characters anywhere. The format
 * has no end marker: the adapter's chunks say whether the reply was complete.
 */
export async function* ndjsonLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string, "eof"> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      let end = buffer.indexOf("\n");
      while (end !== -1) {
        const line = buffer.slice(0, end).trim();
        buffer = buffer.slice(end + 1);
        if (line) yield line;
        end = buffer.indexOf("\n");
      }
      if (done) break;
    }
    // Lenient about a last line without its newline.
    if (buffer.trim()) yield buffer.trim();
    return "eof";
  } finally {
    await reader.cancel().catch(() => {});
  }
}
