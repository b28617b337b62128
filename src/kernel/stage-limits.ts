/**
 * Bounds on what stage patches may put into the StageContext. The context goes to every subprocess handler
 * as one JSON frame (at most 1 MiB) and every later handler's copy and diff walk it, so no plugin may make it
 * unsendable (a critical guard that cannot be sent its snapshot refuses every turn) or so deep that walking
 * it overflows the stack. Each operation is bounded on its own (nesting, size, no keys that reach an
 * object's prototype), and the parts of the context that patches grow over a turn, `extra` and
 * `contextMsgs`, have a total each.
 */
import type { StagePatch } from "@homeagent/sdk/protocol";

/** Nesting levels of the arrays and objects in one operation (the operation itself is level 0). */
export const MAX_PATCH_DEPTH = 32;
/** One operation as JSON. */
export const MAX_OP_BYTES = 256 * 1024;
/** The whole of `ctx.extra` as JSON. */
export const MAX_EXTRA_BYTES = 256 * 1024;
/** Messages in `ctx.contextMsgs`, and their size as JSON. */
export const MAX_CONTEXT_MSGS = 256;
export const MAX_CONTEXT_MSGS_BYTES = 256 * 1024;
/** Keys no patch may use anywhere: assigned naively, they reach an object's prototype. */
export const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor", "prototype"]);

export const kib = (bytes: number): string => `${bytes / 1024} KiB`;

/**
 * What one walk over a value found: its size as JSON in bytes (roughly: escapes are not counted), or why
 * it stopped early — a forbidden key, nesting over MAX_PATCH_DEPTH, or a size over `limit` (so a huge or
 * much-shared value costs no more than `limit` to look at). An object that is not plain data (a Map, a
 * class instance, kept by reference in-process) counts as `{}`; a cycle is left out, as in the snapshot.
 */
export class Measure {
  bytes = 0;
  badKey: string | undefined;
  tooDeep = false;
  private readonly path = new Set<object>();

  constructor(private readonly limit = Number.MAX_SAFE_INTEGER) {}

  get stopped(): boolean {
    return this.badKey !== undefined || this.tooDeep || this.bytes > this.limit;
  }

  /** Adds `value`, found at nesting level `depth`; returns this. */
  add(value: unknown, depth = 0): this {
    switch (typeof value) {
      case "string":
        this.bytes += Buffer.byteLength(value) + 2;
        break;
      case "number":
        this.bytes += Number.isFinite(value) ? String(value).length : 4;
        break;
      case "boolean":
        this.bytes += value ? 4 : 5;
        break;
      case "object":
        if (value === null) this.bytes += 4;
        else this.object(value, depth);
        break;
    }
    return this;
  }

  private object(value: object, depth: number): void {
    if (depth > MAX_PATCH_DEPTH) {
      this.tooDeep = true;
      return;
    }
    this.bytes += 2;
    const isArray = Array.isArray(value);
    if (!isArray && !isPlain(value)) return;
    if (this.path.has(value)) return;
    this.path.add(value);
    if (isArray) {
      for (const item of value) {
        this.bytes += 1;
        this.add(item, depth + 1);
        if (this.stopped) break;
      }
    } else {
      for (const key of Object.keys(value)) {
        if (FORBIDDEN_KEYS.has(key)) {
          this.badKey = key;
          break;
        }
        this.bytes += Buffer.byteLength(key) + 4;
        this.add((value as Record<string, unknown>)[key], depth + 1);
        if (this.stopped) break;
      }
    }
    this.path.delete(value);
  }
}

function isPlain(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** Why `op` may not be applied (a forbidden key, too deep, too big), or "" when it is within the bounds. */
export function opProblem(op: unknown): string {
  const m = new Measure(MAX_OP_BYTES).add(op);
  if (m.badKey !== undefined) {
    return `it uses the key ${JSON.stringify(m.badKey)}, which no patch may use anywhere (${[...FORBIDDEN_KEYS].map((k) => `"${k}"`).join(", ")})`;
  }
  if (m.tooDeep) return `its values nest deeper than ${MAX_PATCH_DEPTH} levels (the limit)`;
  if (m.bytes > MAX_OP_BYTES) return `it is over ${kib(MAX_OP_BYTES)} as JSON (the limit for one operation)`;
  return "";
}

/** Size as JSON of what the context already holds (made by earlier patches, so within the bounds). */
export const sizeOf = (value: unknown): number => new Measure().add(value).bytes;

interface MessageTotals {
  count: number;
  bytes: number;
}

/**
 * The bounded totals of one context while the patches of a stage run are applied to it: each patch is
 * checked against them before any of it is applied, so one that would take `extra` or `contextMsgs` over
 * its limit is refused as a whole. The current totals are measured when first needed.
 */
export class ContextBudget {
  private extra: number | undefined;
  private msgs: MessageTotals | undefined;
  /** Appended in this run: a later `set contextMsgs` keeps them (stage-apply.ts). */
  private appended: MessageTotals = { count: 0, bytes: 0 };

  constructor(private readonly ctx: { extra: Record<string, unknown>; contextMsgs: unknown[] }) {}

  /** Why `patch` would take the context over a limit, or "" — then its totals are the new ones. */
  admit(patch: StagePatch): string {
    let msgs: MessageTotals | undefined;
    let appended = this.appended;
    let merged: Map<string, unknown> | undefined;
    for (const op of patch) {
      if (op.op === "mergeExtra") {
        merged ??= new Map();
        for (const key of Object.keys(op.values)) merged.set(key, op.values[key]);
      } else if (op.op === "appendContext") {
        const bytes = sizeOf(op.message) + 1;
        msgs ??= this.messages();
        msgs = { count: msgs.count + 1, bytes: msgs.bytes + bytes };
        appended = { count: appended.count + 1, bytes: appended.bytes + bytes };
      } else if (op.op === "set" && op.field === "contextMsgs") {
        const list = op.value as unknown[];
        msgs = { count: list.length + appended.count, bytes: sizeOf(list) + appended.bytes };
      }
    }
    // A patch that does not grow a part already over its limit (only the kernel could have put it there) may go.
    const extraBefore = merged ? (this.extra ?? sizeOf(this.ctx.extra)) : 0;
    const extra = merged ? extraBefore + this.extraDelta(merged) : undefined;
    if (extra !== undefined && extra > MAX_EXTRA_BYTES && extra > extraBefore) {
      return `it would make ctx.extra ${extra} bytes as JSON, over its limit of ${kib(MAX_EXTRA_BYTES)}: keep less there, and delete keys no longer needed (a null value deletes one)`;
    }
    const msgsBefore = msgs && this.messages();
    if (msgs && msgsBefore && msgs.count > MAX_CONTEXT_MSGS && msgs.count > msgsBefore.count) {
      return `it would make ctx.contextMsgs ${msgs.count} messages, over its limit of ${MAX_CONTEXT_MSGS}`;
    }
    if (msgs && msgsBefore && msgs.bytes > MAX_CONTEXT_MSGS_BYTES && msgs.bytes > msgsBefore.bytes) {
      return `it would make ctx.contextMsgs ${msgs.bytes} bytes as JSON, over its limit of ${kib(MAX_CONTEXT_MSGS_BYTES)}`;
    }
    if (extra !== undefined) this.extra = extra;
    if (msgs) this.msgs = msgs;
    this.appended = appended;
    return "";
  }

  /** The totals of contextMsgs now. */
  private messages(): MessageTotals {
    this.msgs ??= { count: this.ctx.contextMsgs.length, bytes: sizeOf(this.ctx.contextMsgs) };
    return this.msgs;
  }

  /** How merging `values` changes the size of `extra` (a null or undefined value deletes its key). */
  private extraDelta(values: Map<string, unknown>): number {
    let delta = 0;
    for (const [key, value] of values) {
      const entry = Buffer.byteLength(key) + 4;
      if (Object.hasOwn(this.ctx.extra, key)) delta -= entry + sizeOf(this.ctx.extra[key]);
      if (value !== null && value !== undefined) delta += entry + sizeOf(value);
    }
    return delta;
  }
}
