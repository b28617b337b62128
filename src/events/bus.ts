/**
 * EventBus: synchronous publish to wildcard then typed subscribers. Every event gets the next `seq`, so a
 * client that replays events (the web UI) can order them and notice a gap. A throwing subscriber is
 * reported through `onError` and never reaches the publisher or the other subscribers. `stats()` is what
 * status pages show: how many events went out, and how many handlers listen now (a count that keeps
 * growing means someone subscribes without unsubscribing).
 */
import type { AgentEvent, EventHandler, EventType } from "@homeagent/sdk";
import type { BusStats, KernelBus } from "../kernel/ports.js";

export type { AgentEvent, EventHandler, EventType };

export class EventBus implements KernelBus {
  private readonly handlers = new Map<EventType | "*", Set<EventHandler>>();
  private seq = 0;

  constructor(private readonly onError: (err: unknown, event: AgentEvent) => void = () => {}) {}

  subscribe(type: EventType | "*", handler: EventHandler): () => void {
    let set = this.handlers.get(type);
    if (!set) {
      set = new Set();
      this.handlers.set(type, set);
    }
    set.add(handler);
    return () => {
      set.delete(handler);
    };
  }

  publish(type: EventType, source: string, payload: Record<string, unknown>): void {
    const event: AgentEvent = { seq: ++this.seq, type, source, payload, timestamp: Date.now() };
    this.deliver(this.handlers.get("*"), event);
    this.deliver(this.handlers.get(type), event);
  }

  stats(): BusStats {
    let subscribers = 0;
    for (const set of this.handlers.values()) subscribers += set.size;
    return { published: this.seq, subscribers };
  }

  private deliver(set: Set<EventHandler> | undefined, event: AgentEvent): void {
    if (!set) return;
    for (const handler of [...set]) {
      try {
        handler(event);
      } catch (err) {
        try {
          this.onError(err, event);
        } catch {
          // The error reporter itself failed; the publisher must still not see it.
        }
      }
    }
  }
}
