/**
 * The StageContext of one input as the kernel holds it between stages, with what belongs to the stage run
 * in progress: its `ctx.signal` (aborted when a handler is given up on) and the one JSON snapshot its
 * subprocess handlers share.
 */
import { setMaxListeners } from "node:events";
import type { StageContext, TokenUsage } from "@homeagent/sdk";
import { type StageSnapshot, snapshotStage } from "@homeagent/sdk/protocol";
import type { MutableStageContext } from "./types.js";

/**
 * The `ctx.signal` of the stage run in progress, made on first read: an AbortController costs ~9 µs in
 * Node 20, and most handlers never look at the signal.
 */
const STAGE_SIGNAL_LISTENERS = 1024;

class StageSignal {
  private controller: AbortController | undefined;

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      // Every handler of the run may listen (each subprocess call does): up to the per-plugin handler cap
      // times a few plugins, not a leak, so Node's warning at 10 listeners would only be noise.
      setMaxListeners(STAGE_SIGNAL_LISTENERS, this.controller.signal);
    }
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

/**
 * The JSON snapshot of a stage run's context, made once for all its remote handlers: the context does not
 * change while they run (patches are applied after), and with many subprocess handlers and large tool
 * results, copying it per handler was the stage's main cost.
 */
const runSnapshots = new WeakMap<MutableStageContext, StageSnapshot>();

export function runSnapshot(ctx: MutableStageContext): StageSnapshot {
  let snapshot = runSnapshots.get(ctx);
  if (!snapshot) {
    snapshot = snapshotStage(ctx);
    runSnapshots.set(ctx, snapshot);
  }
  return snapshot;
}

const stageSignals = new WeakMap<StageContext, StageSignal>();

/** A new stage run on `ctx` begins: its handlers get a signal and a snapshot of their own. */
export function beginRun(ctx: MutableStageContext): void {
  stageSignals.get(ctx)?.renew();
  runSnapshots.delete(ctx);
}

/** Aborts the signal of the run in progress on `ctx`: a handler was given up on. */
export function abortRun(ctx: MutableStageContext, reason: unknown): void {
  stageSignals.get(ctx)?.abort(reason);
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
