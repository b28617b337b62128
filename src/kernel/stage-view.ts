/**
 * The view of the StageContext that one stage handler gets. A handler the stage stopped waiting for (its
 * deadline passed, the turn stopped) keeps running, and so may a handler's leftover async work after it
 * settled; once its stage run is over, writes through its view — field sets, and changes to the arrays and
 * plain objects reached through it (contextMsgs, toolCalls, extra, …) — are dropped, and the first one is
 * reported, so such a handler can no longer change the turn it was left behind by. Reads always work.
 *
 * Only arrays and plain objects are wrapped: a Map or class instance a plugin keeps in `extra` is handed
 * out as it is (a Proxy would break its methods), so it is not guarded.
 */
import type { Stage, StageContext } from "@homeagent/sdk";
import type { MutableStageContext } from "./types.js";

/** Open while its stage run waits for its handlers; every view of that run checks it. */
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

/** One handler's view: its gate, who it belongs to, and the proxies it handed out. */
class View {
  private reported = false;
  /** Made on first use: many handlers only read or write plain fields. */
  private proxies: Map<object, object> | undefined;

  constructor(
    private readonly gate: StageGate,
    private readonly plugin: string,
    private readonly stage: Stage,
    private readonly onLate: LateWriteReport | undefined,
  ) {}

  /** True when a write may go through; otherwise reports it (once) and the caller drops it. */
  allows(field: string): boolean {
    if (this.gate.open) return true;
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

  get(target: object, prop: string | symbol): unknown {
    if (prop === RAW) return target;
    const value = Reflect.get(target, prop);
    return guardable(value) ? this.view.guarded(target, prop, value, this.fieldOf(prop)) : value;
  }

  set(target: object, prop: string | symbol, value: unknown): boolean {
    return this.view.allows(this.fieldOf(prop)) ? Reflect.set(target, prop, unwrap(value)) : true;
  }

  deleteProperty(target: object, prop: string | symbol): boolean {
    return this.view.allows(this.fieldOf(prop)) ? Reflect.deleteProperty(target, prop) : true;
  }

  defineProperty(target: object, prop: string | symbol, desc: PropertyDescriptor): boolean {
    if (!this.view.allows(this.fieldOf(prop))) return true;
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
): StageContext {
  return new Proxy<MutableStageContext>(ctx, new Guard(new View(gate, plugin, stage, onLate), ""));
}
