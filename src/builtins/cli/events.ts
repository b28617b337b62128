/**
 * Routes kernel events to the connection whose message caused them. The plugin holds one wildcard
 * subscription; each running message watches its own request id, so a client only ever sees its own turn.
 */
import type { ProgressFrame } from "@homeagent/cli-protocol";
import type { AgentEvent } from "@homeagent/sdk";

export const TOOL_RESULT_MAX_CHARS = 2000;

export class RequestEvents {
  private readonly watchers = new Map<string, (frame: ProgressFrame) => void>();

  readonly handle = (event: AgentEvent): void => {
    const requestId = event.payload.requestId;
    if (typeof requestId !== "string") return;
    const forward = this.watchers.get(requestId);
    if (!forward) return;
    const frame = toProgressFrame(event);
    if (frame) forward(frame);
  };

  /** Requests being watched: each is a running message whose client is still connected. */
  get size(): number {
    return this.watchers.size;
  }

  /** Returns the function that stops watching. */
  watch(requestId: string, forward: (frame: ProgressFrame) => void): () => void {
    this.watchers.set(requestId, forward);
    return () => {
      this.watchers.delete(requestId);
    };
  }
}

export function toProgressFrame(event: AgentEvent): ProgressFrame | null {
  const p = event.payload;
  switch (event.type) {
    case "content_delta":
      return p.reset === true
        ? { type: "content_delta", content: text(p.content), reset: true }
        : { type: "content_delta", content: text(p.content) };
    case "reasoning_delta":
      return { type: "reasoning_delta", content: text(p.content) };
    case "reasoning":
      return { type: "reasoning", content: text(p.content) };
    case "tool_call": {
      // One frame per call, when its result is final; the "start" event has no status to show yet.
      if (p.phase === "start") return null;
      const frame: ProgressFrame = { type: "tool_call", tool: text(p.name), status: text(p.status) };
      if (p.result !== undefined) frame.result = truncate(text(p.result), TOOL_RESULT_MAX_CHARS);
      return frame;
    }
    default:
      return null;
  }
}

function text(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined || value === null) return "";
  return JSON.stringify(value);
}

/** A tool's output can be megabytes; the client only needs enough to show what happened. */
function truncate(value: string, max: number): string {
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}
