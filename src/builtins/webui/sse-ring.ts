/**
 * The replayable events of the SSE stream (the last N of agent_output, reasoning, tool_call, stage,
 * agent_llm_chain, system) by bus seq, so a client that reconnects with Last-Event-ID gets what it missed.
 * The ring also knows from which seq on it is complete: a client whose last id is older than that is told
 * there is a gap (it should reload its state) rather than being given a replay with a silent hole.
 */

export interface RingEntry {
  seq: number;
  frame: Uint8Array;
}

export interface Replay {
  /** Replayable events in this range may have been missed (evicted, or published before the hub started). */
  gap?: { from: number; to: number };
  entries: RingEntry[];
}

/**
 * The bytes the ring holds at most, whatever its count: one frame may be 256 KiB (a tool's output), and a
 * client replaying the ring gets all of it. The oldest go first; a client that needed them is told of the gap.
 */
export const MAX_RING_BYTES = 8 * 1024 * 1024;

export class EventRing {
  private readonly entries: RingEntry[] = [];
  private bytes = 0;
  /** Every replayable event with seq >= completeFrom is held (or was never published). */
  private completeFrom = 1;
  /** The last seq the hub has seen (replayable or not); 0 before any. */
  private lastSeq = 0;

  constructor(
    private readonly capacity: number,
    private readonly maxBytes = MAX_RING_BYTES,
  ) {}

  /** Events up to `published` happened before the hub listened: they are unknown to it. */
  begin(published: number): void {
    this.lastSeq = Math.max(this.lastSeq, published);
    this.completeFrom = Math.max(this.completeFrom, published + 1);
  }

  /** Called for every event the hub sees, so an id from another daemon run can be recognised. */
  saw(seq: number): void {
    if (seq > this.lastSeq) this.lastSeq = seq;
  }

  push(seq: number, frame: Uint8Array): void {
    this.entries.push({ seq, frame });
    this.bytes += frame.byteLength;
    while (this.entries.length > this.capacity || (this.bytes > this.maxBytes && this.entries.length > 1)) {
      const evicted = this.entries.shift() as RingEntry;
      this.bytes -= evicted.frame.byteLength;
      this.completeFrom = evicted.seq + 1;
    }
  }

  get size(): number {
    return this.entries.length;
  }

  /**
   * The frames `match` accepts: counted, and with `remove` taken out (forgetting). A replay then lacks them
   * without a gap notice: they were forgotten, not lost.
   */
  drop(match: (frame: Uint8Array) => boolean, remove: boolean): number {
    const gone = this.entries.filter((e) => match(e.frame));
    if (!remove || gone.length === 0) return gone.length;
    const left = this.entries.filter((e) => !gone.includes(e));
    this.entries.splice(0, this.entries.length, ...left);
    for (const e of gone) this.bytes -= e.frame.byteLength;
    return gone.length;
  }

  /** Bytes of the frames held. */
  get byteSize(): number {
    return this.bytes;
  }

  /** The last seq seen, which a client's replay ends at. */
  get last(): number {
    return this.lastSeq;
  }

  /**
   * What a client that last saw `lastId` has missed. An id beyond anything seen comes from an earlier run
   * of the daemon (seq starts again at 1): the client then gets everything held, after a gap if need be.
   */
  since(lastId: number): Replay {
    const after = lastId > this.lastSeq ? 0 : lastId;
    const entries = this.entries.filter((e) => e.seq > after);
    if (after + 1 >= this.completeFrom) return { entries };
    return { gap: { from: after + 1, to: this.completeFrom - 1 }, entries };
  }
}
