/**
 * The interrupt lane of a running turn: interrupts wait here and are drained before every LLM call,
 * entering the conversation as system messages `[打断消息][来源:<source>] <text>`.
 */
export interface PendingInterrupt {
  source: string;
  channel: string;
  text: string;
}

const MAX_PENDING = 64;

export class InterruptQueue {
  private pending: PendingInterrupt[] = [];

  push(item: PendingInterrupt): void {
    this.pending.push(item);
    if (this.pending.length > MAX_PENDING) this.pending.shift();
  }

  get size(): number {
    return this.pending.length;
  }

  drain(): PendingInterrupt[] {
    const items = this.pending;
    this.pending = [];
    return items;
  }
}

export function interruptMessage(i: PendingInterrupt): string {
  return `[打断消息][来源:${i.source}] ${i.text}`;
}
