/**
 * StageHost: runs the handlers of one stage concurrently on one shared StageContext. Each handler is
 * isolated and bounded: a throw or rejection is recorded in `ctx.errors`, and so is a handler still running
 * at its deadline (`core.plugin.stage_timeout`) — the stage then goes on without it and its `ctx.signal`
 * is aborted. A stopped turn (cancel, shutdown) ends the stage at once, so no handler can hold up input
 * or `stop()`. Each handler gets a view of the context of its own (stage-view.ts) whose writes stop counting
 * when the stage run is over, so a handler left behind cannot change the turn after all.
 */
import type { Stage, StageContext, StageHandler, StageScope, TokenUsage } from "@homeagent/sdk";
import { STAGES } from "@homeagent/sdk";
import { errorMessage, HomeAgentError } from "../util/errors.js";
import { MAX_TIMER_MS } from "../util/time-limit.js";
import { stopMessage } from "./cancel.js";
import { handlerView, type LateWriteReport, type StageGate } from "./stage-view.js";
import type { MutableStageContext } from "./types.js";

interface Registration {
  plugin: string;
  stage: Stage;
  handler: StageHandler;
  scope: StageScope;
}

/** One stage run, as the `stage` event reports it. */
export interface StageRunReport {
  stage: Stage;
  requestId: string;
  handlers: number;
  durationMs: number;
  errors: Array<{ plugin: string; message: string }>;
}

export interface StageHostOptions {
  /** A handler's deadline in ms; read on every run, so a settings change applies to the next stage. */
  timeoutMs: () => number;
  onError?: (plugin: string, stage: Stage, err: unknown) => void;
  onRun?: (report: StageRunReport) => void;
  /** A handler wrote to its context after its stage run was over; the write was dropped. Once per handler run. */
  onLateWrite?: LateWriteReport;
}

export interface StageRunOptions {
  /** For tool stages: the plugin that owns the tool, so "own_tools" handlers only see their own tools. */
  toolOwner?: string;
  /** The turn's stop signal: when it fires the stage ends without waiting for its handlers. */
  stop?: AbortSignal;
}

/** A handler that did not settle within its deadline. */
export class StageTimeoutError extends HomeAgentError {}

const TOOL_STAGES: ReadonlySet<Stage> = new Set(["before_toolcall", "after_toolcall"]);
/** setTimeout fires at once beyond this (2^31 - 1 ms, about 24.8 days). */

/**
 * The `ctx.signal` of the stage run in progress, made on first read: an AbortController costs ~9 µs in
 * Node 20, and most handlers never look at the signal.
 */
class StageSignal {
  private controller: AbortController | undefined;

  get signal(): AbortSignal {
    this.controller ??= new AbortController();
    return this.controller.signal;
  }

  /** A new stage run begins: its handlers get a signal of their own. */
  renew(): void {
    this.controller = undefined;
  }

  abort(reason: unknown): void {
    this.controller?.abort(reason);
  }
}

const stageSignals = new WeakMap<StageContext, StageSignal>();

type Settled = { ok: true } | { ok: false; err: unknown };

export class StageHost {
  private regs: Registration[] = [];

  constructor(private readonly opts: StageHostOptions) {}

  register(plugin: string, stage: Stage, handler: StageHandler, scope: StageScope = "global"): () => void {
    if (!STAGES.includes(stage)) {
      throw new Error(`unknown stage "${stage}": use one of ${STAGES.join(", ")}`);
    }
    const reg: Registration = { plugin, stage, handler, scope };
    this.regs.push(reg);
    return () => {
      this.regs = this.regs.filter((r) => r !== reg);
    };
  }

  unregisterPlugin(plugin: string): number {
    const before = this.regs.length;
    this.regs = this.regs.filter((r) => r.plugin !== plugin);
    return before - this.regs.length;
  }

  count(stage?: Stage): number {
    return stage ? this.regs.filter((r) => r.stage === stage).length : this.regs.length;
  }

  /** Runs every handler of `stage` and resolves when all settled, their deadline passed, or the turn stopped. */
  async run(stage: Stage, ctx: MutableStageContext, opts: StageRunOptions = {}): Promise<void> {
    ctx.stage = stage;
    if (opts.stop?.aborted) return;
    const regs = this.regs.filter(
      (r) => r.stage === stage && (r.scope === "global" || !TOOL_STAGES.has(stage) || r.plugin === opts.toolOwner),
    );
    const started = performance.now();
    const errors: StageRunReport["errors"] = [];
    const signal = stageSignals.get(ctx);
    if (regs.length > 0) {
      signal?.renew();
      const timeoutMs = Math.min(MAX_TIMER_MS, Math.max(1, this.opts.timeoutMs()));
      const gate: StageGate = { open: true };
      const settled = await settleWithin(
        regs.map((r) => () => r.handler(handlerView(ctx, gate, r.plugin, stage, this.opts.onLateWrite))),
        timeoutMs,
        opts.stop,
      );
      gate.open = false;
      regs.forEach((reg, i) => {
        const outcome = settled[i];
        if (outcome?.ok) return;
        const err = outcome ? outcome.err : unfinished(reg, timeoutMs, opts.stop);
        if (!outcome) signal?.abort(err);
        const message = errorMessage(err);
        ctx.errors.push({ plugin: reg.plugin, stage, message });
        errors.push({ plugin: reg.plugin, message });
        this.opts.onError?.(reg.plugin, stage, err);
      });
    }
    this.opts.onRun?.({
      stage,
      requestId: ctx.requestId,
      handlers: regs.length,
      durationMs: Math.round(performance.now() - started),
      errors,
    });
  }
}

/**
 * Starts every handler and waits until all have settled, `timeoutMs` has passed, or `stop` fired. The
 * result has one entry per handler; a hole means it had not settled by then.
 */
async function settleWithin(
  handlers: Array<() => void | Promise<void>>,
  timeoutMs: number,
  stop: AbortSignal | undefined,
): Promise<Array<Settled | undefined>> {
  const settled: Array<Settled | undefined> = new Array(handlers.length);
  const all = Promise.all(
    handlers.map(async (handler, i) => {
      try {
        await handler();
        settled[i] = { ok: true };
      } catch (err) {
        settled[i] = { ok: false, err };
      }
    }),
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onStop: (() => void) | undefined;
  const cutOff = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
    onStop = resolve;
    stop?.addEventListener("abort", onStop, { once: true });
  });
  try {
    await Promise.race([all, cutOff]);
  } finally {
    clearTimeout(timer);
    if (onStop) stop?.removeEventListener("abort", onStop);
  }
  return [...settled];
}

/** Why a handler's result was not waited for; with the plugin and stage it is recorded under. */
function unfinished(reg: Registration, timeoutMs: number, stop: AbortSignal | undefined): Error {
  if (stop?.aborted) return new Error(`stopped before it finished: ${stopMessage(stop.reason)}`);
  return new StageTimeoutError({
    code: "stage_timeout",
    message: `timed out after ${timeoutMs} ms (core.plugin.stage_timeout); ${reg.stage} went on without it`,
  });
}

/** A StageContext for one input; its `signal` belongs to whichever stage run is in progress. */
export function newStageContext(init: {
  requestId: string;
  source: string;
  channel: string;
  rawMessage: string;
  userId?: string;
  groupId?: string;
  noMemory?: boolean;
}): MutableStageContext {
  const signal = new StageSignal();
  const ctx: MutableStageContext = {
    stage: "on_input",
    requestId: init.requestId,
    source: init.source,
    channel: init.channel,
    rawMessage: init.rawMessage,
    userId: init.userId ?? "",
    groupId: init.groupId ?? "",
    contextMsgs: [],
    llmText: "",
    reasoningContent: "",
    tokenUsage: null as TokenUsage | null,
    toolCalls: [],
    toolResults: [],
    finalText: "",
    response: null,
    phase: "",
    memory: [],
    noMemory: init.noMemory ?? false,
    extra: {},
    errors: [],
    get signal() {
      return signal.signal;
    },
  };
  stageSignals.set(ctx, signal);
  return ctx;
}
