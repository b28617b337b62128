/**
 * Marks the code a tool call runs, however deep its awaits go, so that the approvals broker can refuse an
 * answer given from inside one: a model acts only through tool calls, and it must never approve its own
 * request, even through a plugin's tool that happens to hold the approvals API.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface ToolCallScope {
  requestId: string;
  tool: string;
}

const scope = new AsyncLocalStorage<ToolCallScope>();

/** Runs `fn` as the tool call `call`: everything it starts sees the call through currentToolCall(). */
export function runAsToolCall<T>(call: ToolCallScope, fn: () => T): T {
  return scope.run(call, fn);
}

/** The tool call this code runs for, or undefined outside every tool call. */
export function currentToolCall(): ToolCallScope | undefined {
  return scope.getStore();
}
