/**
 * The daemon's calls into a subprocess plugin's handlers: tools, stage handlers, output channels,
 * cleaners, the forget handler and event deliveries. Each runs with an AbortSignal that the daemon's `$/cancel` or the call's
 * `deadlineMs` aborts, and the answer goes out when either happens even if the handler ignores its signal,
 * so a stuck handler never holds an answer past the daemon's deadline.
 */
import type { AgentEvent, ForgetResult, OutputMessage, StageContext, ToolContext } from "../index.js";
import type { RequestContext } from "../protocol/request-context.js";
import { RPC_DEADLINE, RPC_FAILED, RPC_INVALID_PARAMS, RpcError } from "../protocol/rpc-error.js";
import { copyPlain, diffStage, type StagePatch, type StageSnapshot } from "../protocol/stage-patch.js";
import type { PluginHandlers } from "./sdk-proxy.js";

type Params = Record<string, unknown>;

export interface ToolInvokeParams {
  name: string;
  args?: Record<string, unknown>;
  requestId?: string;
  source?: string;
  channel?: string;
  deadlineMs?: number;
}

export async function invokeTool(
  handlers: PluginHandlers,
  raw: unknown,
  cancel: Pick<RequestContext, "onCancel">,
): Promise<{ result: unknown }> {
  const p = params(raw) as unknown as ToolInvokeParams;
  const handler = handlers.tools.get(p.name);
  if (!handler) throw invalid(`no tool named ${JSON.stringify(p.name)} is registered by this plugin`);
  const result = await withDeadline(`tool ${p.name}`, p.deadlineMs, cancel, (lazy) => {
    const ctx: ToolContext = {
      requestId: p.requestId ?? "",
      source: p.source ?? "",
      channel: p.channel ?? "",
      get signal() {
        return lazy.signal;
      },
    };
    return handler(p.args ?? {}, ctx);
  });
  return { result: result === undefined ? null : result };
}

export async function invokeStage(
  handlers: PluginHandlers,
  raw: unknown,
  cancel: Pick<RequestContext, "onCancel">,
): Promise<{ patch: StagePatch }> {
  const p = params(raw);
  const handlerId = String(p.handlerId);
  const handler = handlers.stages.get(handlerId);
  if (!handler) throw invalid(`no stage handler ${JSON.stringify(p.handlerId)} is registered by this plugin`);
  const snapshot = checkSnapshot(p.snapshot);
  let ctx: StageContext | undefined;
  await withDeadline(`stage handler ${handlerId}`, p.deadlineMs, cancel, (lazy) => {
    const copy = Object.defineProperty({ ...copyPlain(snapshot) }, "signal", { get: () => lazy.signal });
    ctx = copy as unknown as StageContext;
    return handler(ctx);
  });
  return { patch: diffStage(snapshot, ctx as StageContext) };
}

export async function invokeOutput(
  handlers: PluginHandlers,
  raw: unknown,
  cancel: Pick<RequestContext, "onCancel">,
): Promise<{ result: unknown }> {
  const p = params(raw);
  const channel = String(p.channel);
  const handler = handlers.outputs.get(channel);
  if (!handler) throw invalid(`no output channel named ${JSON.stringify(p.channel)} is registered by this plugin`);
  const message = params(p.message) as unknown as OutputMessage;
  const result = await withDeadline(`output channel ${channel}`, p.deadlineMs, cancel, () => handler(message));
  return { result: result ?? { status: "sent" } };
}

export function invokeCleaner(handlers: PluginHandlers, raw: unknown): { text: string } {
  const p = params(raw);
  const cleaner = handlers.cleaners.get(`${p.scope}:${p.name}`);
  if (!cleaner) throw invalid(`no cleaner for ${p.scope} ${JSON.stringify(p.name)} is registered by this plugin`);
  if (typeof p.text !== "string") throw invalid("cleaner.invoke needs a string `text`");
  const text = cleaner(p.text);
  if (typeof text !== "string")
    throw new RpcError(RPC_FAILED, `the cleaner of ${p.scope} ${p.name} returned no string`);
  return { text };
}

export async function invokeForget(
  handlers: PluginHandlers,
  raw: unknown,
  cancel: Pick<RequestContext, "onCancel">,
): Promise<ForgetResult> {
  const p = params(raw);
  const handler = handlers.forget;
  if (!handler) throw invalid("this plugin registered no forget handler (onForget)");
  if (!Array.isArray(p.terms) || !p.terms.every((t) => typeof t === "string") || typeof p.confirm !== "boolean") {
    throw invalid("forget.invoke needs `terms` (an array of strings) and `confirm` (a boolean)");
  }
  const request = { terms: p.terms as string[], confirm: p.confirm };
  const result = await withDeadline("the forget handler", p.deadlineMs, cancel, () => handler(request));
  if (typeof result !== "object" || result === null || typeof result.counts !== "object") {
    throw new RpcError(RPC_FAILED, "the forget handler returned no {counts}");
  }
  return result;
}

/** A notification: nobody waits for the handler, so its failure is reported through `report`. */
export function deliverEvent(handlers: PluginHandlers, raw: unknown, report: (msg: string) => void): void {
  const p = params(raw);
  const handler = handlers.subscriptions.get(String(p.subscription));
  if (!handler) return; // unsubscribed while the event was on its way
  try {
    const returned: unknown = handler(p.event as AgentEvent);
    if (returned instanceof Promise) returned.catch((err: unknown) => report(failure(p.subscription, err)));
  } catch (err) {
    report(failure(p.subscription, err));
  }
}

/**
 * The signal a handler gets, made on first read: an AbortSignal costs ~9 µs in Node 20, more than the rest
 * of a small call, and most handlers never look at it.
 */
class LazySignal {
  private controller: AbortController | undefined;
  private aborted = false;
  private reason: unknown;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}

/**
 * Runs `work` with a signal aborted by the caller's cancel or by the deadline, and settles as soon as one
 * of the three happens (the work may still be running then; its late result is dropped).
 */
export function withDeadline<T>(
  what: string,
  deadlineMs: unknown,
  cancel: Pick<RequestContext, "onCancel">,
  work: (lazy: LazySignal) => T | Promise<T>,
): Promise<T> {
  const lazy = new LazySignal();
  return new Promise<T>((resolve, reject) => {
    let done = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const settle = (fn: () => void) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      fn();
    };
    const stop = (reason: unknown) =>
      settle(() => {
        lazy.abort(reason);
        reject(reason);
      });
    cancel.onCancel((reason) => stop(reason ?? new RpcError(RPC_FAILED, `${what} was cancelled`)));
    if (done) return;
    if (typeof deadlineMs === "number" && Number.isFinite(deadlineMs)) {
      const ms = Math.max(0, deadlineMs);
      timer = setTimeout(() => stop(new RpcError(RPC_DEADLINE, `${what} did not finish within ${ms} ms`)), ms);
    }
    try {
      Promise.resolve(work(lazy)).then(
        (value) => settle(() => resolve(value)),
        (err: unknown) => settle(() => reject(err)),
      );
    } catch (err) {
      settle(() => reject(err));
    }
  });
}

const ARRAY_FIELDS = ["contextMsgs", "toolCalls", "toolResults", "memory", "errors"] as const;

/** Enough of a check that a malformed snapshot is refused by name instead of failing inside the handler. */
function checkSnapshot(raw: unknown): StageSnapshot {
  const snapshot = params(raw, "snapshot");
  for (const field of ARRAY_FIELDS) {
    if (!Array.isArray(snapshot[field])) throw invalid(`snapshot.${field} must be an array`);
  }
  if (typeof snapshot.extra !== "object" || snapshot.extra === null || Array.isArray(snapshot.extra)) {
    throw invalid("snapshot.extra must be an object");
  }
  return snapshot as unknown as StageSnapshot;
}

function params(raw: unknown, what = "params"): Params {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw invalid(`${what} must be an object`);
  return raw as Params;
}

function invalid(message: string): RpcError {
  return new RpcError(RPC_INVALID_PARAMS, message);
}

function failure(subscription: unknown, err: unknown): string {
  return `event handler of subscription ${String(subscription)} failed: ${err instanceof Error ? err.message : String(err)}`;
}
