/**
 * StageHost: runs the handlers of one stage concurrently. Each handler works on a private copy of the
 * StageContext (stage-view.ts; a subprocess handler on a JSON snapshot) and what it changed comes back as
 * a patch; the kernel's context is untouched while they run. When all have settled, timed out or the turn
 * stopped, the patches are applied in registration order (stage-apply.ts), so no handler's write is lost
 * to another's. Each handler is isolated and bounded: a throw or rejection is recorded in `ctx.errors`,
 * and so is a handler still running at its deadline (`core.plugin.stage_timeout`) — the stage then goes
 * on without it and its `ctx.signal` is aborted; either way it contributes nothing. A stopped turn
 * (cancel, shutdown) ends the stage at once, so no handler can hold up input or `stop()`.
 *
 * A handler that failed 3 of its last 5 runs suspends its plugin (stage-suspend.ts): all its handlers are
 * skipped, so a plugin that stopped answering no longer costs every stage its deadline, until it registers
 * anew. A run of a handler that was unregistered meanwhile (its plugin was disabled, then enabled) counts
 * for nothing: it must not suspend the plugin's fresh registration.
 *
 * A critical plugin fails closed: while it is not running, `closeFor` puts stand-ins in its handlers' places
 * that answer every run with a refusal in `response`; while it runs, a handler of it that fails (throws,
 * times out, answers with a bad patch, cannot be sent the context) gives that refusal in its place, and so
 * does every handler of it while it is suspended. A refusal its handler sets in `response` stands against
 * later handlers of plugins that are not critical (stage-apply.ts).
 *
 * A patch may add, edit or drop only calls of its own plugin's tools, and replace only their results, unless
 * the plugin holds "tool_calls_any" (allowAnyToolCalls) to edit, drop and replace for any call: another
 * operation on a call is dropped and reported, the rest of the patch applies (a critical plugin's handler
 * refuses instead).
 *
 * The order that decides conflicts is registration order, or with a `rank` (lower first) the plugins' ranks
 * and, within a plugin, its registration order: then a plugin that registers again after a restart keeps
 * its place among the others.
 */
import type { Stage, StageHandler, StageScope } from "@homeagent/sdk";
import { STAGES } from "@homeagent/sdk";
import type { StagePatch, StageSnapshot } from "@homeagent/sdk/protocol";
import { errorMessage, HomeAgentError } from "../util/errors.js";
import { MAX_TIMER_MS } from "../util/time-limit.js";
import { stopMessage } from "./cancel.js";
import { applyPatches, type ConflictReport, type PatchEntry } from "./stage-apply.js";
import { abortRun, beginRun, runSnapshot } from "./stage-context.js";
import { type PluginRank, sortByRank } from "./stage-order.js";
import { checkBounds, checkPatch, checkToolCalls, StagePatchError } from "./stage-patch-check.js";
import { realTimers, type StageTimers, settleWithin } from "./stage-settle.js";
import { HandlerRecords, type Suspension } from "./stage-suspend.js";
import { handlerView, type LateWriteReport, type StageGate } from "./stage-view.js";
import type { MutableStageContext } from "./types.js";

export { newStageContext } from "./stage-context.js";

/** Runs one registration on `ctx` and resolves with its patch. */
type Invoke = (ctx: MutableStageContext, gate: StageGate, stage: Stage) => Promise<StagePatch>;

/**
 * A handler in another process: it gets a JSON snapshot and answers with a patch. The snapshot is shared by
 * every remote handler of the run: send it, never change it.
 */
export type RemoteStageHandler = (snapshot: StageSnapshot, signal: AbortSignal) => Promise<StagePatch>;

interface Registration {
  plugin: string;
  stage: Stage;
  scope: StageScope;
  invoke: Invoke;
  /** A closed critical plugin's stand-in: its refusal cannot be overridden by another handler. */
  closed: boolean;
  /** Registration sequence number (a stand-in keeps the one of the handler it stands for). */
  seq: number;
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
  /** A handler wrote to its context after it settled or its stage stopped waiting; dropped. Once per handler run. */
  onLateWrite?: LateWriteReport;
  /** Two handlers of one run gave a field different values; the winner's (the later registration's) was kept. */
  onConflict?: ConflictReport;
  /**
   * The plugin that owns a tool, if any: a handler's patch may add, edit or drop calls only of its own
   * plugin's tools, and replace only their results (see allowAnyToolCalls). Without it no patch may touch
   * a call or a result.
   */
  toolOwner?: (name: string) => string | undefined;
  /** An operation of `plugin`'s patch on a tool call or result was dropped, `why`; the rest of it applied. */
  onRefusedOp?: (plugin: string, stage: Stage, why: string) => void;
  /** A plugin's handlers are suspended from now on (stage-suspend.ts); once per suspension. */
  onSuspend?: (suspension: Suspension) => void;
  /** A plugin's place in the order of handlers (lower first); see StageHost.setRank. */
  rank?: PluginRank;
  /** Timers of the handlers' deadlines; tests pass a clock they move by hand. */
  clock?: StageTimers;
}

export interface StageRunOptions {
  /** For tool stages: the plugin that owns the tool, so "own_tools" handlers only see their own tools. */
  toolOwner?: string;
  /** The turn's stop signal: when it fires the stage ends without waiting for its handlers. */
  stop?: AbortSignal;
}

/** A handler that did not settle within its deadline. */
export class StageTimeoutError extends HomeAgentError {}

/** Characters of a handler's error kept in `ctx.errors` and quoted in a refusal. */
const MAX_ERROR_CHARS = 500;
/** Entries of `ctx.errors` kept per turn; later errors are still logged and reported. */
const MAX_CTX_ERRORS = 100;

const TOOL_STAGES: ReadonlySet<Stage> = new Set(["before_toolcall", "after_toolcall"]);

/** The refusal a closed critical plugin's stand-in answers with. */
export function refusalOf(plugin: string, reason: string): string {
  return `refused: plugin "${plugin}" (critical) is not running (${reason}); fix it, or /plugins disable ${plugin}`;
}

/** The refusal that stands for a handler of a running critical plugin that failed. */
export function failureRefusalOf(plugin: string, stage: Stage, reason: string): string {
  return `refused: plugin "${plugin}" (critical) failed in ${stage} (${clip(reason)}); fix it, or /plugins disable ${plugin}`;
}

const refusalPatch = (text: string): StagePatch => [{ op: "set", field: "response", value: text }];

function clip(text: string): string {
  return text.length > MAX_ERROR_CHARS ? `${text.slice(0, MAX_ERROR_CHARS)}…` : text;
}

export class StageHost {
  private regs: Registration[] = [];
  private seq = 0;
  private rank: PluginRank | undefined;
  /** Plugins whose handlers fail closed (setCritical). */
  private readonly critical = new Set<string>();
  /** Plugins that may edit, drop and replace the results of calls of any tool (allowAnyToolCalls). */
  private readonly anyCalls = new Set<string>();
  private readonly records = new HandlerRecords();

  constructor(private readonly opts: StageHostOptions) {
    this.rank = opts.rank;
  }

  /**
   * Marks `plugin` critical (or not): from the next stage run on, a handler of it that fails gives a
   * refusal in `response` instead of nothing. It stays so until set again (also across unregisterPlugin,
   * so a restart cannot leave a gap).
   */
  setCritical(plugin: string, on: boolean): void {
    if (on) this.critical.add(plugin);
    else this.critical.delete(plugin);
  }

  /**
   * Lets `plugin`'s patches edit and drop calls of any tool, and replace their results, not only of its own
   * (capability "tool_calls_any"), or no longer. It stays so until set again.
   */
  allowAnyToolCalls(plugin: string, on: boolean): void {
    if (on) this.anyCalls.add(plugin);
    else this.anyCalls.delete(plugin);
  }

  /** Why `plugin`'s handlers are suspended, if they are. */
  suspension(plugin: string): Suspension | undefined {
    return this.records.get(plugin);
  }

  /**
   * Orders handlers by `rank(plugin)` (lower first; ties by plugin name), then by registration within
   * each plugin, from now on; undefined = registration order. The rank is asked again at every
   * registration, so it may grow with new plugins as long as it keeps the order of the ones it had.
   */
  setRank(rank: PluginRank | undefined): void {
    this.rank = rank;
    this.order();
  }

  /** An in-process handler: it writes `ctx.x = …` on its own copy, recorded as a patch. */
  register(plugin: string, stage: Stage, handler: StageHandler, scope: StageScope = "global"): () => void {
    const onLate = this.opts.onLateWrite;
    return this.add(plugin, stage, scope, async (ctx, gate) => {
      const view = handlerView(ctx, gate, plugin, stage, onLate);
      try {
        await handler(view.ctx);
      } finally {
        gate.open = false;
      }
      return checkBounds(view.patch());
    });
  }

  /**
   * A handler in another process (a subprocess plugin): same order, deadline and error handling as an
   * in-process one. Its patch is checked before use; a bad one counts as the handler's error.
   */
  registerRemote(plugin: string, stage: Stage, fn: RemoteStageHandler, scope: StageScope = "global"): () => void {
    return this.add(plugin, stage, scope, async (ctx) => checkPatch(await fn(runSnapshot(ctx), ctx.signal)));
  }

  /**
   * Fails a critical plugin's stages closed while it is not running: its handlers (those of `stages`;
   * omitted = all of them) are replaced, in place, by stand-ins that set `response` to a refusal, so a
   * `before_toolcall` guard that is down refuses every call it would have seen. A listed stage where the
   * plugin has no handler (it never started) gets a global stand-in at the end. Calling it again updates
   * the reason; `reopen` or `unregisterPlugin` removes the stand-ins.
   */
  closeFor(plugin: string, reason: string, stages?: readonly Stage[]): void {
    const refusal = refusalPatch(refusalOf(plugin, reason));
    const invoke: Invoke = async () => refusal;
    const covered = new Set<Stage>();
    this.regs = this.regs.map((r) => {
      if (r.plugin !== plugin || (stages && !stages.includes(r.stage))) return r;
      covered.add(r.stage);
      return { plugin, stage: r.stage, scope: r.scope, invoke, closed: true, seq: r.seq };
    });
    let added = false;
    for (const stage of stages ?? []) {
      if (covered.has(stage)) continue;
      this.regs.push({ plugin, stage, scope: "global", invoke, closed: true, seq: this.seq++ });
      added = true;
    }
    if (added) this.order();
  }

  /** The critical plugin runs again: its stand-ins go, and so does a suspension. Returns how many. */
  reopen(plugin: string): number {
    this.records.lift(plugin);
    return this.remove((r) => r.closed && r.plugin === plugin);
  }

  /** Drops every handler of `plugin`, stand-ins included, and a suspension. Returns how many. */
  unregisterPlugin(plugin: string): number {
    this.records.lift(plugin);
    return this.remove((r) => r.plugin === plugin);
  }

  count(stage?: Stage): number {
    return stage ? this.regs.filter((r) => r.stage === stage).length : this.regs.length;
  }

  /** Runs every handler of `stage`, then applies their patches; resolves when that is done. */
  async run(stage: Stage, ctx: MutableStageContext, opts: StageRunOptions = {}): Promise<void> {
    ctx.stage = stage;
    if (opts.stop?.aborted) return;
    const matching = this.regs.filter(
      (r) => r.stage === stage && (r.scope === "global" || !TOOL_STAGES.has(stage) || r.plugin === opts.toolOwner),
    );
    const suspended = (r: Registration) => !r.closed && this.records.get(r.plugin) !== undefined;
    const regs = matching.filter((r) => !suspended(r));
    // A suspended critical plugin's handlers are not run, but refuse in their places: it fails closed.
    const held = matching.filter((r) => suspended(r) && this.critical.has(r.plugin));
    const started = performance.now();
    const errors: StageRunReport["errors"] = [];
    if (regs.length + held.length > 0) {
      beginRun(ctx);
      const timeoutMs = Math.min(MAX_TIMER_MS, Math.max(1, this.opts.timeoutMs()));
      const gates: StageGate[] = regs.map(() => ({ open: true }));
      const settled = await settleWithin(
        regs.map((r, i) => () => r.invoke(ctx, gates[i], stage)),
        timeoutMs,
        opts.stop,
        this.opts.clock ?? realTimers,
      );
      const patches: PatchEntry[] = [];
      const failed = (plugin: string, err: unknown, handler?: object) => {
        const message = clip(errorMessage(err));
        if (ctx.errors.length < MAX_CTX_ERRORS) ctx.errors.push({ plugin, stage, message });
        errors.push({ plugin, message });
        this.opts.onError?.(plugin, stage, err);
        // A stopped turn (cancel, shutdown) is not the handler's failure.
        if (!handler || opts.stop?.aborted || !this.registered(handler)) return;
        const suspension = this.records.failed(handler, plugin, stage, message);
        if (suspension) this.opts.onSuspend?.(suspension);
      };
      regs.forEach((reg, i) => {
        gates[i].open = false;
        const outcome = settled[i];
        const critical = this.critical.has(reg.plugin);
        // A critical plugin's handler fails closed: its refusal stands in for whatever it would have done.
        const refuse =
          !reg.closed && critical ? (why: string) => refusalPatch(failureRefusalOf(reg.plugin, stage, why)) : undefined;
        const handler = reg.closed ? undefined : reg;
        if (outcome?.ok) {
          const { patch } = outcome;
          patches.push({ plugin: reg.plugin, patch, locked: reg.closed, critical, fallback: refuse, by: handler });
          return;
        }
        const err = outcome ? outcome.err : unfinished(reg, timeoutMs, opts.stop);
        if (!outcome) abortRun(ctx, err);
        failed(reg.plugin, err, handler);
        if (refuse) patches.push({ plugin: reg.plugin, patch: refuse(errorMessage(err)), locked: true });
      });
      for (const reg of held) {
        const why = `suspended: ${this.records.get(reg.plugin)?.reason}`;
        patches.push({
          plugin: reg.plugin,
          patch: refusalPatch(failureRefusalOf(reg.plugin, stage, why)),
          locked: true,
        });
      }
      const refused = applyPatches(ctx, patches, stage, this.opts.onConflict);
      for (const r of refused) failed(r.plugin, r.error, r.by);
      regs.forEach((reg, i) => {
        if (settled[i]?.ok && !refused.some((r) => r.by === reg)) this.records.succeeded(reg);
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

  private add(plugin: string, stage: Stage, scope: StageScope, invoke: Invoke): () => void {
    if (!STAGES.includes(stage)) {
      throw new HomeAgentError({
        code: "invalid_argument",
        message: `unknown stage "${stage}": use one of ${STAGES.join(", ")}`,
      });
    }
    const checked: Invoke = async (ctx, gate, at) => this.checkCalls(plugin, at, await invoke(ctx, gate, at), ctx);
    const reg: Registration = { plugin, stage, scope, invoke: checked, closed: false, seq: this.seq++ };
    // A restarted plugin takes the place its stand-in kept, so the order of handlers survives a crash.
    const at = this.regs.findIndex((r) => r.closed && r.plugin === plugin && r.stage === stage);
    if (at < 0) this.regs.push(reg);
    else this.regs.splice(at, 0, reg);
    this.order();
    return () => {
      this.remove((r) => r === reg);
    };
  }

  /**
   * `patch` less the operations on tool calls and results `plugin` may not do, each reported; a critical
   * plugin's handler fails instead, so its refusal stands rather than a guard's change silently not applying.
   */
  private checkCalls(plugin: string, stage: Stage, patch: StagePatch, ctx: MutableStageContext): StagePatch {
    const access = {
      plugin,
      calls: ctx.toolCalls,
      results: ctx.toolResults,
      toolOwner: this.opts.toolOwner,
      any: this.anyCalls.has(plugin),
    };
    const { kept, refused } = checkToolCalls(patch, access);
    if (refused.length === 0) return patch;
    if (this.critical.has(plugin)) {
      throw new StagePatchError({
        code: "stage_patch_refused",
        message: `stage patch refused: ${refused.join("; ")}; nothing of this patch was applied`,
      });
    }
    for (const why of refused) this.opts.onRefusedOp?.(plugin, stage, why);
    return kept;
  }

  /** Whether `handler` is still one of the registrations (not removed while its run went on). */
  private registered(handler: object): boolean {
    return this.regs.some((r) => r === handler);
  }

  /** With a rank: sorts the handlers by it; a stand-in keeps the sequence number, so the place, of its handler. */
  private order(): void {
    if (this.rank) sortByRank(this.regs, this.rank);
  }

  private remove(match: (r: Registration) => boolean): number {
    const before = this.regs.length;
    this.regs = this.regs.filter((r) => !match(r));
    return before - this.regs.length;
  }
}

/** Why a handler's result was not waited for; with the plugin and stage it is recorded under. */
function unfinished(reg: Registration, timeoutMs: number, stop: AbortSignal | undefined): Error {
  if (stop?.aborted) {
    return new HomeAgentError({
      code: "cancelled",
      message: `stopped before it finished: ${stopMessage(stop.reason)}`,
    });
  }
  return new StageTimeoutError({
    code: "stage_timeout",
    message: `timed out after ${timeoutMs} ms (core.plugin.stage_timeout); ${reg.stage} went on without it`,
  });
}
