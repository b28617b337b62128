/**
 * Routes kernel events to the completion request that caused them. The route group holds one wildcard
 * subscription for all requests (not one per request, which would make every event cost as many calls as
 * there are open requests); each running request watches its own request id.
 */
import type { AgentEvent } from "@homeagent/sdk";

export class DeltaRouter {
  private readonly watchers = new Map<string, (event: AgentEvent) => void>();

  readonly handle = (event: AgentEvent): void => {
    const requestId = event.payload.requestId;
    if (typeof requestId !== "string") return;
    this.watchers.get(requestId)?.(event);
  };

  /** Requests being watched now. */
  get size(): number {
    return this.watchers.size;
  }

  /** Returns the function that stops watching. */
  watch(requestId: string, forward: (event: AgentEvent) => void): () => void {
    this.watchers.set(requestId, forward);
    return () => {
      if (this.watchers.get(requestId) === forward) this.watchers.delete(requestId);
    };
  }
}
