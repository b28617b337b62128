/**
 * Applies the patches of one stage run to the kernel's StageContext, in registration order, once every
 * handler has settled or been given up on. Appends to `contextMsgs` all survive (also across a handler that
 * replaced the whole list); edits by tool call id and `extra` keys merge; when two handlers give one thing
 * different values the later registration wins and the conflict is reported. A dropped tool call stays
 * dropped, and a fail-closed refusal (a "locked" patch) cannot be overridden; nor can a refusal a critical
 * plugin's handler gave, by a later handler of a plugin that is not critical (else any plugin could undo a
 * guard's refusal by setting `response` back to null). A patch that would take the context over its bounds
 * (stage-limits.ts) is refused whole, before any of it is applied.
 */
import type { ContextMessage, Stage, ToolCall } from "@homeagent/sdk";
import { jsonEqual, type StageOp, type StagePatch, setOwn } from "@homeagent/sdk/protocol";
import { ContextBudget } from "./stage-limits.js";
import { StagePatchError } from "./stage-patch-check.js";
import type { MutableStageContext } from "./types.js";

/** Two handlers gave `field` different values; `winner`'s value was kept. */
export type ConflictReport = (field: string, winner: string, loser: string, stage: Stage) => void;

export interface PatchEntry {
  plugin: string;
  patch: StagePatch;
  /** Its `response` wins over any other handler's (a closed critical handler's refusal). */
  locked?: boolean;
  /** Of a critical plugin: a refusal (a `response` other than null) in it wins over later non-critical ones. */
  critical?: boolean;
  /** Applied, locked, in place of a refused `patch`: a critical plugin's refusal, given why. */
  fallback?: (why: string) => StagePatch;
  /** The handler that gave it (the caller's key), handed back with a refusal. */
  by?: object;
}

/** A patch refused as a whole; its plugin is told why. */
export interface RefusedPatch {
  plugin: string;
  error: StagePatchError;
  by?: object;
}

const DROPPED = Symbol("dropped");

interface Claim {
  entry: number;
  plugin: string;
  value: unknown;
  locked: boolean;
  /** A critical plugin's refusal: only another critical plugin's handler may change it. */
  refusal: boolean;
}

/** Whether `prev` stands against a change by `e`. */
const holds = (prev: Claim, e: PatchEntry): boolean =>
  prev.locked || prev.value === DROPPED || (prev.refusal && e.critical !== true);

/** One apply run: what each field was last given, and by whom. */
class Applier {
  private readonly claims = new Map<string, Claim>();
  /** Messages appended so far, re-appended when a later handler replaces the whole list. */
  private readonly appended: ContextMessage[] = [];
  readonly budget: ContextBudget;

  constructor(
    private readonly ctx: MutableStageContext,
    private readonly stage: Stage,
    private readonly onConflict: ConflictReport | undefined,
  ) {
    this.budget = new ContextBudget(ctx);
  }

  /**
   * Records that entry `entry` gives `field` the value `value`; false when an earlier claim stands (a
   * locked value, or a dropped tool call) and this change must be skipped.
   */
  claim(field: string, entry: number, e: PatchEntry, value: unknown): boolean {
    const prev = this.claims.get(field);
    if (prev && prev.entry !== entry) {
      const same = jsonEqual(prev.value, value);
      if (holds(prev, e)) {
        // The same value changes nothing, and the standing claim must stay the one that holds.
        if (!same) this.onConflict?.(field, prev.plugin, e.plugin, this.stage);
        return same;
      }
      if (!same) this.onConflict?.(field, e.plugin, prev.plugin, this.stage);
    }
    const refusal = e.critical === true && field === "response" && value !== null;
    this.claims.set(field, { entry, plugin: e.plugin, value, locked: e.locked === true, refusal });
    return true;
  }

  apply(op: StageOp, entry: number, e: PatchEntry): void {
    const ctx = this.ctx;
    switch (op.op) {
      case "set":
        if (!this.claim(op.field, entry, e, op.value)) return;
        if (op.field === "contextMsgs") {
          ctx.contextMsgs = [...(op.value as ContextMessage[]), ...this.appended];
        } else {
          (ctx as unknown as Record<string, unknown>)[op.field] = op.value;
        }
        return;
      case "appendContext":
        ctx.contextMsgs.push(op.message);
        this.appended.push(op.message);
        return;
      case "editToolCall":
        this.editCall(op.id, entry, e, op.arguments);
        return;
      case "dropToolCall":
        if (this.claim(`toolCalls[${op.id}]`, entry, e, DROPPED)) {
          ctx.toolCalls = ctx.toolCalls.filter((c) => c.id !== op.id);
        }
        return;
      case "addToolCall":
        this.addCall(op.call, entry, e);
        return;
      case "replaceToolResult": {
        const i = ctx.toolResults.findIndex((r) => r.toolCallId === op.toolCallId);
        if (i < 0 || !this.claim(`toolResults[${op.toolCallId}]`, entry, e, op.result)) return;
        // Only what the operation is about: a subprocess's patch may carry other keys (name, toolCallId).
        const { content, status } = op.result;
        ctx.toolResults[i] = { ...ctx.toolResults[i], content, ...(status !== undefined ? { status } : {}) };
        return;
      }
      case "mergeExtra":
        for (const [key, value] of Object.entries(op.values)) {
          const gone = value === null || value === undefined;
          if (!this.claim(`extra.${key}`, entry, e, gone ? null : value)) continue;
          if (gone) delete ctx.extra[key];
          else setOwn(ctx.extra, key, value);
        }
        return;
    }
  }

  private editCall(id: string, entry: number, e: PatchEntry, args: Record<string, unknown>): void {
    const i = this.ctx.toolCalls.findIndex((c) => c.id === id);
    const field = `toolCalls[${id}]`;
    // A call another handler dropped stays dropped; an edit of a call that is not there is stale.
    if (i < 0) {
      const prev = this.claims.get(field);
      if (prev?.value === DROPPED && prev.entry !== entry) this.onConflict?.(field, prev.plugin, e.plugin, this.stage);
      return;
    }
    if (!this.claim(field, entry, e, args)) return;
    this.ctx.toolCalls[i] = { ...this.ctx.toolCalls[i], arguments: args };
  }

  private addCall(call: ToolCall, entry: number, e: PatchEntry): void {
    if (!this.claim(`toolCalls[${call.id}]`, entry, e, call.arguments)) return;
    const i = this.ctx.toolCalls.findIndex((c) => c.id === call.id);
    if (i < 0) this.ctx.toolCalls.push(call);
    else this.ctx.toolCalls[i] = call;
  }
}

/**
 * Applies `entries` (in registration order) to `ctx`. Returns the patches refused for the context's
 * bounds; an entry with a fallback has that applied in its place.
 */
export function applyPatches(
  ctx: MutableStageContext,
  entries: readonly PatchEntry[],
  stage: Stage,
  onConflict: ConflictReport | undefined,
): RefusedPatch[] {
  let applier: Applier | undefined;
  const refused: RefusedPatch[] = [];
  entries.forEach((e, entry) => {
    if (e.patch.length === 0) return;
    applier ??= new Applier(ctx, stage, onConflict);
    const why = applier.budget.admit(e.patch);
    if (!why) {
      for (const op of e.patch) applier.apply(op, entry, e);
      return;
    }
    const error = new StagePatchError({
      code: "stage_patch_refused",
      message: `stage patch refused: ${why}; nothing of this patch was applied`,
    });
    refused.push({ plugin: e.plugin, error, by: e.by });
    if (!e.fallback) return;
    const stand: PatchEntry = {
      plugin: e.plugin,
      patch: e.fallback(error.message),
      locked: true,
      critical: e.critical,
    };
    for (const op of stand.patch) applier.apply(op, entry, stand);
  });
  return refused;
}
