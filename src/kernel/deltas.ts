/**
 * Streamed text of one LLM call on its way to the bus (`content_delta`, `reasoning_delta`), for the web
 * UI and the cli to show as it arrives.
 */

import type { StreamChunk } from "./llm-spec.js";
import type { KernelBus } from "./ports.js";

/**
 * Publishes the deltas of one LLM call. When the text starts over (an interrupted call is asked again, or
 * the provider layer falls back from a broken stream), an empty delta with `reset: true` tells listeners to
 * drop what they showed so far, separately for content and for reasoning.
 */
export class DeltaPublisher {
  private content = false;
  private reasoning = false;

  constructor(
    private readonly bus: KernelBus,
    private readonly requestId: string,
  ) {}

  chunk(chunk: StreamChunk): void {
    if (chunk.reasoning_content) {
      this.reasoning = true;
      this.bus.publish("reasoning_delta", "kernel", { requestId: this.requestId, content: chunk.reasoning_content });
    }
    if (chunk.content) {
      this.content = true;
      this.bus.publish("content_delta", "kernel", { requestId: this.requestId, content: chunk.content });
    }
  }

  reset(): void {
    if (this.reasoning) {
      this.bus.publish("reasoning_delta", "kernel", { requestId: this.requestId, content: "", reset: true });
    }
    if (this.content) {
      this.bus.publish("content_delta", "kernel", { requestId: this.requestId, content: "", reset: true });
    }
    this.content = false;
    this.reasoning = false;
  }
}
