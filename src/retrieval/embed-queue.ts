/**
 * Vectors of items written with SearchIndex.write are computed after the transaction commits (embedding
 * may take a network round trip, which must never hold a database transaction open). This queue keeps
 * the rows waiting, de-duplicated by rowid, and embeds them in batches one at a time; flush() waits for
 * it to drain.
 */
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import type { ChangedRow } from "./keyword-index.js";

export class EmbedQueue {
  private readonly waiting = new Map<number, ChangedRow>();
  private inFlight = new Set<number>();
  private running: Promise<void> | null = null;

  constructor(
    /** Embeds one batch; must not throw (failures are the caller's to record). */
    private readonly embed: (rows: ChangedRow[]) => Promise<void>,
    /** Called when the queue has drained. */
    private readonly drained: () => void,
    private readonly batchSize = 64,
  ) {}

  get size(): number {
    return this.waiting.size;
  }

  push(rows: readonly ChangedRow[]): void {
    for (const r of rows) {
      this.waiting.delete(r.rowid);
      this.waiting.set(r.rowid, r);
    }
    if (this.waiting.size > 0 && !this.running) this.running = this.loop();
  }

  /** The row waits here (or is being embedded): a re-embedding run leaves it to the queue. */
  has(rowid: number): boolean {
    return this.waiting.has(rowid) || this.inFlight.has(rowid);
  }

  /** Drops rows that no longer need a vector (their items were removed). */
  forget(rowids: readonly number[]): void {
    for (const r of rowids) this.waiting.delete(r);
  }

  async flush(): Promise<void> {
    while (this.running) await this.running;
  }

  private async loop(): Promise<void> {
    try {
      // Let the writer's turn finish first: the embedding is background work.
      await yieldToEventLoop();
      while (this.waiting.size > 0) {
        const batch = [...this.waiting.values()].slice(0, this.batchSize);
        for (const r of batch) this.waiting.delete(r.rowid);
        this.inFlight = new Set(batch.map((r) => r.rowid));
        await this.embed(batch);
      }
    } finally {
      this.inFlight = new Set();
      this.running = null;
    }
    this.drained();
  }
}
