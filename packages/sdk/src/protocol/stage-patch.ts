/**
 * Stage snapshots and patches: the one stage semantics shared by in-process and subprocess handlers. A
 * handler reads a snapshot of the StageContext and its changes travel back as a list of operations, which
 * the daemon applies in registration order once every handler of the stage has settled. Pure (no Node
 * imports): the daemon and the stdio plugin runtime both use it.
 */
import type { ContextMessage, StageContext, ToolCall, ToolCallStatus, ToolResult } from "../index.js";

/** The data of a StageContext (everything but `signal`). `stage`, `requestId`, `source`, `channel` and `errors` are read-only. */
export type StageSnapshot = Omit<StageContext, "signal">;

/** Fields a `set` operation may replace as a whole. */
export const STAGE_SET_FIELDS = [
  "rawMessage",
  "userId",
  "groupId",
  "llmText",
  "reasoningContent",
  "tokenUsage",
  "finalText",
  "response",
  "phase",
  "noMemory",
  "memory",
  "contextMsgs",
] as const;
export type StageSetField = (typeof STAGE_SET_FIELDS)[number];

export type StageOp =
  | { op: "set"; field: StageSetField; value: unknown }
  | { op: "appendContext"; message: ContextMessage }
  | { op: "editToolCall"; id: string; arguments: Record<string, unknown> }
  | { op: "dropToolCall"; id: string }
  | { op: "addToolCall"; call: ToolCall }
  | { op: "replaceToolResult"; toolCallId: string; result: { content: string; status?: ToolCallStatus } }
  /** A key whose value is null deletes it. */
  | { op: "mergeExtra"; values: Record<string, unknown> };

export type StagePatch = StageOp[];

/**
 * `obj[key] = value` as a data property of `obj` itself: a plain assignment to the key "__proto__" would
 * replace the object's prototype instead (so a value could make `ctx.extra` inherit keys no patch can
 * delete, or stop it counting as plain data).
 */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__")
    Object.defineProperty(obj, key, { value, writable: true, enumerable: true, configurable: true });
  else obj[key] = value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * The copies made so far in the copyPlain call in progress (so shared and cyclic parts stay so), and the
 * pairs being compared further up in the `same` call in progress (so a cycle ends the walk). Both are
 * module-wide and emptied when the outermost call returns: the calls are synchronous, and allocating
 * them per call showed up in the per-turn cost.
 */
const copies = new Map<object, unknown>();
const comparing = new Map<object, object | Partners>();

/** More than one object `a` is being compared with further up (cycles of different lengths); rare. */
class Partners {
  constructor(readonly list: object[]) {}
}

/**
 * A deep copy of the arrays and plain objects in `value`; anything else (a Map, a class instance, a
 * function) is kept by reference, so a plugin's live objects keep working. Shared and cyclic parts stay so.
 */
export function copyPlain<T>(value: T): T {
  if (typeof value !== "object" || value === null) return value;
  try {
    return copyNode(value) as T;
  } finally {
    copies.clear();
  }
}

function copyNode(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const isArray = Array.isArray(value);
  if (!isArray && !isPlainObject(value)) return value;
  const known = copies.get(value);
  if (known !== undefined) return known;
  if (isArray) {
    const out: unknown[] = new Array(value.length);
    copies.set(value, out);
    for (let i = 0; i < value.length; i++) out[i] = copyNode(value[i]);
    return out;
  }
  const out: Record<string, unknown> = {};
  copies.set(value, out);
  for (const key of Object.keys(value)) setOwn(out, key, copyNode(value[key]));
  return out;
}

/**
 * Equal as JSON data: arrays and plain objects compare by content, anything else by identity (so a Map
 * kept in `extra` counts as changed only when replaced). Cycles compare equal along the path.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  try {
    return same(a, b);
  } finally {
    comparing.clear();
  }
}

function same(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) {
    return typeof a === "number" && typeof b === "number" && Number.isNaN(a) && Number.isNaN(b);
  }
  const arrays = Array.isArray(a);
  if (arrays !== Array.isArray(b)) return false;
  if (!arrays && (!isPlainObject(a) || !isPlainObject(b))) return false;
  const on = comparing.get(a);
  if (on === b || (on instanceof Partners && on.list.includes(b))) return true;
  if (on === undefined) comparing.set(a, b);
  else if (on instanceof Partners) on.list.push(b);
  else comparing.set(a, new Partners([on, b]));
  const equal = arrays
    ? sameArrays(a as unknown[], b as unknown[])
    : sameObjects(a as Record<string, unknown>, b as Record<string, unknown>);
  leave(a);
  return equal;
}

function leave(a: object): void {
  const on = comparing.get(a);
  if (!(on instanceof Partners)) comparing.delete(a);
  else if (on.list.length > 2) on.list.pop();
  else comparing.set(a, on.list[0]);
}

function sameArrays(a: unknown[], b: unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!same(a[i], b[i])) return false;
  return true;
}

/** A key holding undefined counts as absent, as in JSON. */
function sameObjects(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  let count = 0;
  for (const key of Object.keys(a)) {
    if (a[key] === undefined) continue;
    count++;
    if (!Object.hasOwn(b, key) || !same(a[key], b[key])) return false;
  }
  for (const key of Object.keys(b)) if (b[key] !== undefined) count--;
  return count === 0;
}

/**
 * `value` as JSON would carry it (toJSON honoured, a Map becomes `{}`, non-finite numbers null), except
 * that what JSON.stringify would throw on — a BigInt, a cycle — is left out instead.
 */
function toJson(value: unknown, path: Set<object>): unknown {
  switch (typeof value) {
    case "string":
    case "boolean":
      return value;
    case "number":
      return Number.isFinite(value) ? value : null;
    case "object":
      break;
    default:
      return undefined;
  }
  if (value === null) return null;
  if (path.has(value)) return undefined;
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === "function") return toJson(withJson.toJSON(), path);
  path.add(value);
  let out: unknown;
  if (Array.isArray(value)) {
    out = value.map((item) => toJson(item, path) ?? null);
  } else {
    const obj: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const item = toJson((value as Record<string, unknown>)[key], path);
      if (item !== undefined) setOwn(obj, key, item);
    }
    out = obj;
  }
  path.delete(value);
  return out;
}

/** A JSON-safe deep copy of the context's data, to send to a handler in another process. */
export function snapshotStage(ctx: StageSnapshot): StageSnapshot {
  const json = <T>(value: T): T => toJson(value, new Set()) as T;
  return {
    stage: ctx.stage,
    requestId: ctx.requestId,
    source: ctx.source,
    channel: ctx.channel,
    rawMessage: ctx.rawMessage,
    userId: ctx.userId,
    groupId: ctx.groupId,
    contextMsgs: json(ctx.contextMsgs),
    llmText: ctx.llmText,
    reasoningContent: ctx.reasoningContent,
    tokenUsage: json(ctx.tokenUsage),
    toolCalls: json(ctx.toolCalls),
    toolResults: json(ctx.toolResults),
    finalText: ctx.finalText,
    response: ctx.response,
    phase: ctx.phase,
    memory: json(ctx.memory),
    noMemory: ctx.noMemory,
    extra: json(ctx.extra),
    errors: json(ctx.errors),
  };
}

/**
 * The operations that turn `before` into `after`. Set fields compare as JSON; contextMsgs that only grew
 * become appends (so concurrent appends all survive), any other change replaces the list; tool calls
 * and results are matched by id (a call whose name changed is dropped and added again; a reorder alone
 * is not a change); `extra` is merged key by key. Read-only fields are ignored. Values are copied.
 */
export function diffStage(before: StageSnapshot, after: StageSnapshot): StagePatch {
  const ops: StagePatch = [];
  try {
    // Field by field rather than in a loop over names: named reads are several times faster here.
    diffSet(ops, "rawMessage", before.rawMessage, after.rawMessage);
    diffSet(ops, "userId", before.userId, after.userId);
    diffSet(ops, "groupId", before.groupId, after.groupId);
    diffSet(ops, "llmText", before.llmText, after.llmText);
    diffSet(ops, "reasoningContent", before.reasoningContent, after.reasoningContent);
    diffSet(ops, "tokenUsage", before.tokenUsage, after.tokenUsage);
    diffSet(ops, "finalText", before.finalText, after.finalText);
    diffSet(ops, "response", before.response, after.response);
    diffSet(ops, "phase", before.phase, after.phase);
    diffSet(ops, "noMemory", before.noMemory, after.noMemory);
    diffSet(ops, "memory", before.memory, after.memory);
    diffContext(before.contextMsgs, after.contextMsgs, ops);
    diffToolCalls(before.toolCalls, after.toolCalls, ops);
    diffToolResults(before.toolResults, after.toolResults, ops);
    diffExtra(before.extra, after.extra, ops);
  } finally {
    comparing.clear();
  }
  return ops;
}

function diffSet(ops: StagePatch, field: StageSetField, before: unknown, after: unknown): void {
  if (before !== after && !same(before, after)) ops.push({ op: "set", field, value: copyPlain(after) });
}

function diffContext(before: ContextMessage[], after: ContextMessage[], ops: StagePatch): void {
  if (before === after) return;
  const grew = after.length >= before.length && before.every((m, i) => same(m, after[i]));
  if (!grew) {
    ops.push({ op: "set", field: "contextMsgs", value: copyPlain(after) });
    return;
  }
  for (let i = before.length; i < after.length; i++) ops.push({ op: "appendContext", message: copyPlain(after[i]) });
}

function diffToolCalls(before: ToolCall[], after: ToolCall[], ops: StagePatch): void {
  if (before === after) return;
  const old = new Map(before.map((c) => [c.id, c]));
  const kept = new Set(after.map((c) => c.id));
  for (const call of before) if (!kept.has(call.id)) ops.push({ op: "dropToolCall", id: call.id });
  for (const call of after) {
    const was = old.get(call.id);
    if (was && was.name === call.name && was.rawArguments === call.rawArguments) {
      if (!same(was.arguments, call.arguments)) {
        ops.push({ op: "editToolCall", id: call.id, arguments: copyPlain(call.arguments) });
      }
      continue;
    }
    if (was) ops.push({ op: "dropToolCall", id: call.id });
    ops.push({ op: "addToolCall", call: copyPlain(call) });
  }
}

function diffToolResults(before: ToolResult[], after: ToolResult[], ops: StagePatch): void {
  if (before === after) return;
  const old = new Map(before.map((r) => [r.toolCallId, r]));
  for (const r of after) {
    const was = old.get(r.toolCallId);
    if (!was || (was.content === r.content && was.status === r.status)) continue;
    const result = was.status === r.status ? { content: r.content } : { content: r.content, status: r.status };
    ops.push({ op: "replaceToolResult", toolCallId: r.toolCallId, result });
  }
}

function diffExtra(before: Record<string, unknown>, after: Record<string, unknown>, ops: StagePatch): void {
  if (before === after) return;
  let values: Record<string, unknown> | undefined;
  for (const key of Object.keys(after)) {
    const value = after[key];
    if (value === undefined || value === null) continue;
    if (Object.hasOwn(before, key) && same(before[key], value)) continue;
    values ??= {};
    setOwn(values, key, copyPlain(value));
  }
  for (const key of Object.keys(before)) {
    if (before[key] === undefined || before[key] === null) continue;
    if (after[key] === undefined || after[key] === null) {
      values ??= {};
      setOwn(values, key, null);
    }
  }
  if (values) ops.push({ op: "mergeExtra", values });
}
