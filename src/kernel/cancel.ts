/**
 * Cancellation helpers. Signals here can be long-lived (one cli connection's signal serves every message
 * it sends), so every listener the kernel adds to one is removed again when its input ends.
 */

/** What every caller still waiting when the daemon stops is told. */
export const SHUTDOWN_MESSAGE = "homed is shutting down; this message was not answered";

/** The user-facing text of why a turn stopped: the abort reason's own message, unless it has none to tell. */
export function stopMessage(reason: unknown): string {
  if (reason instanceof Error && reason.name !== "AbortError") return reason.message;
  return typeof reason === "string" && reason ? reason : "cancelled before it was answered";
}

/**
 * Aborts `target` (with the source's reason) when any of `sources` aborts. Returns the function that
 * removes the listeners; call it when `target` is no longer needed.
 */
export function linkAbort(target: AbortController, sources: Array<AbortSignal | undefined>): () => void {
  const links: Array<[AbortSignal, () => void]> = [];
  for (const source of sources) {
    if (!source) continue;
    if (source.aborted) {
      target.abort(source.reason);
      break;
    }
    const onAbort = () => target.abort(source.reason);
    source.addEventListener("abort", onAbort, { once: true });
    links.push([source, onAbort]);
  }
  return () => {
    for (const [source, onAbort] of links.splice(0)) source.removeEventListener("abort", onAbort);
  };
}

/**
 * Watches the abort signals of queued items with one listener per signal, however many items share it
 * (a client may queue many messages on one connection): `onAbort` gets every item still watched.
 */
export class AbortWatch<T> {
  private readonly watched = new Map<AbortSignal, { items: Set<T>; onAbort: () => void }>();

  constructor(private readonly onAbort: (item: T, signal: AbortSignal) => void) {}

  add(signal: AbortSignal, item: T): void {
    let entry = this.watched.get(signal);
    if (!entry) {
      const items = new Set<T>();
      const onAbort = () => {
        this.watched.delete(signal);
        for (const i of items) this.onAbort(i, signal);
      };
      entry = { items, onAbort };
      this.watched.set(signal, entry);
      signal.addEventListener("abort", onAbort, { once: true });
    }
    entry.items.add(item);
  }

  /** Stops watching `item`; the signal's listener goes with its last item. */
  delete(signal: AbortSignal, item: T): void {
    const entry = this.watched.get(signal);
    if (!entry?.items.delete(item) || entry.items.size > 0) return;
    this.watched.delete(signal);
    signal.removeEventListener("abort", entry.onAbort);
  }
}
