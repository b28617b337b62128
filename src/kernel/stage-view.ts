/**
 * The view of the StageContext that one stage handler gets: a private copy of the context, so handlers
 * that run concurrently never see or overwrite each other's half-done changes. What the handler changed
 * becomes a patch (diffStage against the untouched kernel context) when it settles; StageHost applies the
 * patches of all handlers afterwards, in registration order.
 *
 * The copy is guarded: a handler the stage stopped waiting for (its deadline passed, the turn stopped)
 * keeps running, and so may a handler's leftover async work after it settled; once its gate closes, writes
 * through its view — field sets, and changes to the arrays and plain objects reached through it
 * (contextMsgs, toolCalls, extra, …) — are dropped, and the first one is reported. Reads always work.
 *
 * Only arrays and plain objects are copied and wrapped: a Map or class instance a plugin keeps in `extra`
 * is shared by reference and handed out as it is (a Proxy would break its methods), so it is not guarded.
 * A field holding arrays or objects is copied when the handler first touches it: most handlers touch one
 * or two fields, and a field never copied is the context's own, so the diff skips it at once.
 */
import type { Stage, StageContext } from "@homeagent/sdk";
import { copyPlain, diffStage, type StagePatch } from "@homeagent/sdk/protocol";
import type { MutableStageContext } from "./types.js";

/** One handler's gate: open while the stage waits for that handler and it has not settled yet. */
export interface StageGate {
  open: boolean;
}

/** Reports a write that a view dropped: once per handler view, with the field it was aimed at. */
export type LateWriteReport = (plugin: string, stage: Stage, field: string) => void;

/** Read through a guard proxy, gives the object it wraps: a proxy stored somewhere is never wrapped again. */
const RAW = Symbol("raw");

function unwrap(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  return (value as { [RAW]?: object })[RAW] ?? value;
}

function guardable(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return true;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** The fields holding arrays or objects, each with its bit in View.owned and View.written. */
const DEEP_FIELDS = new Map<PropertyKey, number>(
  ["contextMsgs", "tokenUsage", "toolCalls", "toolResults", "memory", "extra", "errors"].map((f, i) => [f, 1 << i]),
);

/** What one handler of one stage run gets: its guarded copy, and the patch it amounts to so far. */
export interface HandlerView {
  readonly ctx: StageContext;
  patch(): StagePatch;
}

/** One handler's view: its copy, its gate, who it belongs to, and the proxies it handed out. */
class View implements HandlerView {
  readonly ctx: StageContext;
  private readonly copy: HandlerCopy;
  /** The copy's fields by name, for the deep fields copied on touch. */
  private readonly fields: Record<PropertyKey, unknown>;
  private reported = false;
  /** A write went through: only then can the copy differ from the context. */
  private wrote = false;
  /** Deep fields the copy holds a copy of (or a value of the handler's own); the others are the context's. */
  private owned = 0;
  /** Deep fields written to, at any depth. */
  private written = 0;
  /** Made on first use: many handlers only read or write plain fields. */
  private proxies: Map<object, object> | undefined;

  constructor(
    private readonly source: MutableStageContext,
    private readonly gate: StageGate,
    private readonly plugin: string,
    private readonly stage: Stage,
    private readonly onLate: LateWriteReport | undefined,
  ) {
    this.copy = new HandlerCopy(source);
    this.fields = this.copy as unknown as Record<PropertyKey, unknown>;
    this.ctx = new Proxy<MutableStageContext>(this.copy, new Guard(this, ""));
  }

  /** Called once the gate has closed. Fields only read are the context's again, so the diff skips them. */
  patch(): StagePatch {
    if (!this.wrote) return [];
    const readOnly = this.owned & ~this.written;
    if (readOnly) {
      for (const [field, bit] of DEEP_FIELDS) {
        if (readOnly & bit) this.fields[field] = (this.source as unknown as Record<PropertyKey, unknown>)[field];
      }
    }
    return diffStage(this.source, this.copy);
  }

  /**
   * Before the handler reaches into top-level field `prop`: a deep field still shared with the context
   * gets copied (`replace`: the handler is about to replace it, so nothing needs copying).
   */
  own(prop: PropertyKey, replace = false): void {
    const bit = DEEP_FIELDS.get(prop);
    if (bit === undefined || this.owned & bit) return;
    this.owned |= bit;
    if (!replace) this.fields[prop] = copyPlain(this.fields[prop]);
  }

  /** True when a write may go through; otherwise reports it (once) and the caller drops it. */
  allows(field: string): boolean {
    if (this.gate.open) {
      this.wrote = true;
      this.written |= DEEP_FIELDS.get(field) ?? 0;
      return true;
    }
    if (!this.reported) {
      this.reported = true;
      this.onLate?.(this.plugin, this.stage, field);
    }
    return false;
  }

  /** `value` as read through this view: arrays and plain objects come back guarded. */
  guarded(target: object, prop: string | symbol, value: object, field: string): object {
    const raw = unwrap(value) as object;
    this.proxies ??= new Map();
    const known = this.proxies.get(raw);
    if (known) return known;
    // A frozen property must read back as itself (a Proxy invariant), so it is handed out unwrapped.
    const desc = Reflect.getOwnPropertyDescriptor(target, prop);
    if (desc && !desc.configurable && !desc.writable) return value;
    const proxy = new Proxy(raw, new Guard(this, field));
    this.proxies.set(raw, proxy);
    return proxy;
  }
}

class Guard implements ProxyHandler<object> {
  constructor(
    private readonly view: View,
    /** The top-level field this object was reached through, or "" for the context itself. */
    private readonly field: string,
  ) {}

  private fieldOf(prop: string | symbol): string {
    return this.field || String(prop);
  }

  /** A write may go through: then a top-level field becomes the handler's own. */
  private allows(prop: string | symbol): boolean {
    if (!this.view.allows(this.fieldOf(prop))) return false;
    if (!this.field) this.view.own(prop, true);
    return true;
  }

  get(target: object, prop: string | symbol): unknown {
    if (prop === RAW) return target;
    if (!this.field) this.view.own(prop);
    const value = Reflect.get(target, prop);
    return guardable(value) ? this.view.guarded(target, prop, value, this.fieldOf(prop)) : value;
  }

  getOwnPropertyDescriptor(target: object, prop: string | symbol): PropertyDescriptor | undefined {
    if (!this.field) this.view.own(prop);
    return Reflect.getOwnPropertyDescriptor(target, prop);
  }

  set(target: object, prop: string | symbol, value: unknown): boolean {
    if (!this.allows(prop)) return true;
    // Assigned, "__proto__" would replace the copy's prototype; as a key of its own the patch check refuses it.
    if (prop === "__proto__") {
      return Reflect.defineProperty(target, prop, {
        value: unwrap(value),
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
    return Reflect.set(target, prop, unwrap(value));
  }

  deleteProperty(target: object, prop: string | symbol): boolean {
    return this.allows(prop) ? Reflect.deleteProperty(target, prop) : true;
  }

  defineProperty(target: object, prop: string | symbol, desc: PropertyDescriptor): boolean {
    if (!this.allows(prop)) return true;
    return Reflect.defineProperty(target, prop, "value" in desc ? { ...desc, value: unwrap(desc.value) } : desc);
  }
}

/** The context as one handler of one stage run sees it; writes stop counting when `gate` closes. */
export function handlerView(
  ctx: MutableStageContext,
  gate: StageGate,
  plugin: string,
  stage: Stage,
  onLate: LateWriteReport | undefined,
): HandlerView {
  return new View(ctx, gate, plugin, stage, onLate);
}

/**
 * The context's fields in an object of the handler's own; deep fields are copied when touched (View.own).
 * A class, so every copy shares one shape; `signal` reads the stage run's own.
 */
class HandlerCopy implements MutableStageContext {
  stage: MutableStageContext["stage"];
  requestId: string;
  source: string;
  channel: string;
  rawMessage: string;
  userId: string;
  groupId: string;
  contextMsgs: MutableStageContext["contextMsgs"];
  llmText: string;
  reasoningContent: string;
  tokenUsage: MutableStageContext["tokenUsage"];
  toolCalls: MutableStageContext["toolCalls"];
  toolResults: MutableStageContext["toolResults"];
  finalText: string;
  response: string | null;
  phase: string;
  memory: MutableStageContext["memory"];
  noMemory: boolean;
  extra: Record<string, unknown>;
  errors: MutableStageContext["errors"];
  readonly #ctx: MutableStageContext;

  constructor(ctx: MutableStageContext) {
    this.#ctx = ctx;
    this.stage = ctx.stage;
    this.requestId = ctx.requestId;
    this.source = ctx.source;
    this.channel = ctx.channel;
    this.rawMessage = ctx.rawMessage;
    this.userId = ctx.userId;
    this.groupId = ctx.groupId;
    this.contextMsgs = ctx.contextMsgs;
    this.llmText = ctx.llmText;
    this.reasoningContent = ctx.reasoningContent;
    this.tokenUsage = ctx.tokenUsage;
    this.toolCalls = ctx.toolCalls;
    this.toolResults = ctx.toolResults;
    this.finalText = ctx.finalText;
    this.response = ctx.response;
    this.phase = ctx.phase;
    this.memory = ctx.memory;
    this.noMemory = ctx.noMemory;
    this.extra = ctx.extra;
    this.errors = ctx.errors;
  }

  get signal(): AbortSignal {
    return this.#ctx.signal;
  }
}
