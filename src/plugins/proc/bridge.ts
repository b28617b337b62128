/**
 * The daemon's side of a subprocess plugin's `core.*` calls. Every call goes through the plugin's own gated
 * PluginSDK (createPluginSDK), so capabilities and revocation are enforced exactly as for an in-process
 * plugin, with the same messages. Functions cannot cross the wire, so what a plugin registers (tools,
 * stages, channels, cleaners, subscriptions, the forget handler) gets a stand-in here that calls back into
 * the plugin: `tool.invoke`, `stage.invoke`, `output.invoke`, `cleaner.invoke`, `forget.invoke`,
 * `event.deliver`.
 */
import {
  type AgentEvent,
  EVENT_TYPES,
  type ForgetRequest,
  type ForgetResult,
  type InjectOptions,
  type InputChannelOptions,
  type Logger,
  type OutputCapability,
  type OutputChannelOptions,
  type OutputMessage,
  type Stage,
  type StageScope,
  type ToolContext,
  type ToolDef,
} from "@homeagent/sdk";
import {
  type CallOptions,
  type RequestContext,
  RPC_METHOD_NOT_FOUND,
  RpcError,
  type RpcPeer,
  type StagePatch,
  type StageSnapshot,
} from "@homeagent/sdk/protocol";
import type { StageHost } from "../../kernel/stages.js";
import { CLEANER_TIMEOUT_MS } from "../../kernel/turn-events.js";
import { HomeAgentError } from "../../util/errors.js";
import { checkNesting } from "../../util/json-depth.js";
import { isObject } from "../../util/object.js";
import { CapabilityDeniedError } from "../errors.js";
import { FORGET_HANDLER_TIMEOUT_MS } from "../forget-hooks.js";
import type { PluginBinding } from "../sdk-impl.js";
import { PluginCallError } from "./errors.js";
import { clipLogMessage, type LogRate } from "./log-rate.js";
import { type ArgSpec, checkArgs, checkField, EXTRA_METHODS, invalid, wireSpec } from "./wire-methods.js";

export interface BridgeOptions {
  name: string;
  binding: PluginBinding;
  stages: Pick<StageHost, "registerRemote">;
  peer: RpcPeer;
  log: Logger;
  /** Deadline of tool and output calls. */
  callTimeoutMs: () => number;
  /** Deadline sent with stage.invoke (the stage's own timeout cuts it off anyway). */
  stageTimeoutMs: () => number;
  /** Bytes written to the plugin that it has not read yet. */
  backlog: () => number;
  /** The plugin's log budget, shared with its stderr lines. */
  logRate: Pick<LogRate, "admit">;
}

/** Above this many unread bytes, events for the plugin are dropped rather than queued. */
export const EVENT_BACKLOG_BYTES = 1 << 20;
const MAX_SUBSCRIPTIONS = 64;
/**
 * How deeply the params of a core.* call, and the answers of the plugin to the daemon's calls, may nest.
 * JSON.parse takes any depth, but JSON.stringify and every recursive walker overflow the stack on a deep
 * enough value: it is refused here, before anything recursive sees it.
 */
export const MAX_WIRE_DEPTH = 64;

export class PluginBridge {
  private readonly subscriptions = new Map<string | number, () => void>();
  /** "<stage>\0<handler id>" of every stage handler registered: stage.invoke names the handler by them. */
  private readonly stageHandlers = new Set<string>();
  private dropped = 0;
  private dropping = false;

  constructor(private readonly opts: BridgeOptions) {}

  /** Events not delivered because the plugin was not reading its input. */
  get droppedEvents(): number {
    return this.dropped;
  }

  /** Serves one request of the plugin; the RpcPeer's onRequest. */
  handle(method: string, params: unknown, ctx: RequestContext): unknown {
    if (checkNesting(params, MAX_WIRE_DEPTH) !== "ok") {
      throw invalid(`${method}: params nest deeper than ${MAX_WIRE_DEPTH} levels; send flatter data`);
    }
    const member = method.startsWith("core.") ? method.slice("core.".length) : undefined;
    if (member !== undefined && Object.hasOwn(EXTRA_METHODS, member)) {
      const [id] = checkArgs(method, EXTRA_METHODS[member], params);
      return this.unsubscribe(id as string | number);
    }
    const spec = member === undefined ? undefined : wireSpec(member);
    if (member === undefined || !spec) {
      throw notFound(`unknown method "${method}": a plugin may call the core.* methods of docs/plugin-protocol.md`);
    }
    if ("unavailable" in spec) throw notFound(`${method} is not available to subprocess plugins: ${spec.unavailable}`);
    const args = checkArgs(method, spec.args, params);
    switch (member) {
      case "publish":
        throw new CapabilityDeniedError(this.opts.name, "publish", "events", true);
      case "registerTool":
        return this.registerTool(method, args[0] as Record<string, unknown>);
      case "registerStage":
        return this.registerStage(args as [string, string | undefined, string | undefined]);
      case "registerOutputChannel":
        return this.registerOutput(method, args as [string, unknown, string, Record<string, unknown> | undefined]);
      case "registerInputChannel":
        return this.registerInput(method, args as [string, Record<string, unknown> | undefined]);
      case "subscribe":
        return this.subscribe(args as [string, string | number]);
      case "onForget":
        this.opts.binding.sdk.onForget((request) => this.invokeForget(request));
        return null;
      case "log.debug":
      case "log.info":
      case "log.warn":
      case "log.error":
        return this.logLine(member, args[0] as string);
      case "injectInput":
        args[3] = injectOptions(method, args[3] as Record<string, unknown> | undefined);
        return this.callSdk(member, args);
      case "injectInputSync":
        // The plugin cancelling its request (or exiting) cancels the input whose reply it is waiting for.
        args[3] = injectOptions(method, args[3] as Record<string, unknown> | undefined, ctx.signal);
        return this.callSdk(member, args);
      default:
        return this.callSdk(member, args);
    }
  }

  /** The plugin is gone: its subscriptions end now, not when the registry gets round to detaching it. */
  close(): void {
    for (const off of this.subscriptions.values()) off();
    this.subscriptions.clear();
  }

  /** Over the plugin's log rate, a line is dropped (LogRate counts it and sums the flood up). */
  private logLine(member: string, text: string): null {
    if (this.opts.logRate.admit()) this.callSdk(member, [clipLogMessage(text)]);
    return null;
  }

  private callSdk(member: string, args: unknown[]): unknown {
    let target: unknown = this.opts.binding.sdk;
    for (const key of member.split(".")) target = (target as Record<string, unknown>)[key];
    return (target as (...a: unknown[]) => unknown)(...args);
  }

  private registerTool(method: string, def: Record<string, unknown>): null {
    const name = field(method, def, "name", "string") as string;
    const tool: ToolDef = {
      name,
      description: (field(method, def, "description", "string?") as string | undefined) ?? "",
      parameters: (field(method, def, "parameters", "object?") as Record<string, unknown> | undefined) ?? {
        type: "object",
      },
      ...(field(method, def, "noMemory", "boolean?") === true ? { noMemory: true } : {}),
      ...(cleanerFlag(method, def.cleaner) ? { cleaner: this.cleaner("tool", name) } : {}),
    };
    this.opts.binding.sdk.registerTool(tool, (args, ctx) => this.invokeTool(name, args, ctx));
    return null;
  }

  private async invokeTool(name: string, args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    const timeoutMs = this.opts.callTimeoutMs();
    const params = {
      name,
      args,
      requestId: ctx.requestId,
      source: ctx.source,
      channel: ctx.channel,
      deadlineMs: timeoutMs,
    };
    const answer = await this.call("tool.invoke", params, { timeoutMs, signal: ctx.signal });
    if (!isObject(answer) || !("result" in answer)) throw this.badAnswer("tool.invoke", "{result}", answer);
    return answer.result;
  }

  private registerStage([stage, scope, handlerId]: [string, string | undefined, string | undefined]): null {
    if (scope !== undefined && scope !== "global" && scope !== "own_tools") {
      throw invalid(`core.registerStage: scope must be "global" or "own_tools", got ${JSON.stringify(scope)}`);
    }
    const id = handlerId ?? stage;
    const key = `${stage}\0${id}`;
    if (this.stageHandlers.has(key)) {
      throw invalid(
        `core.registerStage: handler id ${JSON.stringify(id)} is already registered for ${stage}; use another id`,
      );
    }
    // Through the plugin's gate first, so a detached plugin cannot add a stage handler behind its back.
    this.opts.binding.sdk.log.debug(`registers a ${stage} handler ("${id}") over the plugin protocol`);
    this.opts.binding.quota.take("stageHandlers", () =>
      this.opts.stages.registerRemote(
        this.opts.name,
        stage as Stage,
        (snapshot, signal) => this.invokeStage(stage, id, snapshot, signal),
        scope as StageScope | undefined,
      ),
    );
    this.stageHandlers.add(key);
    return null;
  }

  private async invokeStage(stage: string, handlerId: string, snapshot: StageSnapshot, signal: AbortSignal) {
    const timeoutMs = this.opts.stageTimeoutMs();
    const params = { stage, handlerId, snapshot, deadlineMs: timeoutMs };
    const answer = await this.call("stage.invoke", params, { timeoutMs, signal });
    if (!isObject(answer) || !Array.isArray(answer.patch))
      throw this.badAnswer("stage.invoke", "{patch: [...]}", answer);
    return answer.patch as StagePatch;
  }

  private registerOutput(
    method: string,
    [channel, caps, description, raw]: [string, unknown, string, Record<string, unknown> | undefined],
  ): null {
    const opts: OutputChannelOptions = {};
    if (raw) {
      const types = field(method, raw, "types", "array?") as unknown[] | undefined;
      if (types && !types.every((t) => typeof t === "string")) throw invalid(`${method}: opts.types must be strings`);
      if (types) opts.types = types as string[];
      const help = field(method, raw, "help", "string?") as string | undefined;
      if (help !== undefined) opts.help = help;
    }
    this.opts.binding.sdk.registerOutputChannel(
      channel,
      caps as OutputCapability[],
      description,
      (msg) => this.invokeOutput(channel, msg),
      opts,
    );
    return null;
  }

  private async invokeOutput(channel: string, msg: OutputMessage): Promise<unknown> {
    const message = { payload: msg.payload, meta: msg.meta, type: msg.type, requestId: msg.requestId };
    const ms = this.opts.callTimeoutMs();
    const answer = await this.call("output.invoke", { channel, message, deadlineMs: ms }, { timeoutMs: ms });
    return isObject(answer) && answer.result !== undefined && answer.result !== null
      ? answer.result
      : { status: "sent" };
  }

  private registerInput(method: string, [channel, raw]: [string, Record<string, unknown> | undefined]): null {
    const opts: InputChannelOptions = {};
    if (raw && field(method, raw, "noMemory", "boolean?") === true) opts.noMemory = true;
    if (raw && cleanerFlag(method, raw.cleaner)) opts.cleaner = this.cleaner("input", channel);
    this.opts.binding.sdk.registerInputChannel(channel, opts);
    return null;
  }

  private cleaner(scope: "tool" | "input", name: string): (text: string) => Promise<string> {
    return async (text) => {
      const answer = await this.call("cleaner.invoke", { scope, name, text }, { timeoutMs: CLEANER_TIMEOUT_MS });
      if (!isObject(answer) || typeof answer.text !== "string")
        throw this.badAnswer("cleaner.invoke", "{text}", answer);
      return answer.text;
    };
  }

  /** The daemon's forget asks the plugin; ForgetHooks bounds the time and checks the answer's shape. */
  private async invokeForget(request: ForgetRequest): Promise<ForgetResult> {
    const params = { ...request, deadlineMs: FORGET_HANDLER_TIMEOUT_MS };
    const answer = await this.call("forget.invoke", params, { timeoutMs: FORGET_HANDLER_TIMEOUT_MS });
    if (!isObject(answer) || !isObject(answer.counts)) throw this.badAnswer("forget.invoke", "{counts}", answer);
    return answer as unknown as ForgetResult;
  }

  private subscribe([type, id]: [string, string | number]): null {
    if (type !== "*" && !(EVENT_TYPES as readonly string[]).includes(type)) {
      throw invalid(`core.subscribe: unknown event type "${type}"; use "*" or one of ${EVENT_TYPES.join(", ")}`);
    }
    if (this.subscriptions.has(id)) throw invalid(`core.subscribe: subscription id ${JSON.stringify(id)} is in use`);
    if (this.subscriptions.size >= MAX_SUBSCRIPTIONS) {
      throw invalid(`core.subscribe: at most ${MAX_SUBSCRIPTIONS} subscriptions; unsubscribe one first`);
    }
    const off = this.opts.binding.sdk.subscribe(type as AgentEvent["type"] | "*", (event) => this.deliver(id, event));
    this.subscriptions.set(id, off);
    return null;
  }

  private unsubscribe(id: string | number): boolean {
    const off = this.subscriptions.get(id);
    if (!off) return false;
    off();
    this.subscriptions.delete(id);
    return true;
  }

  /** Runs inside the bus's publish: it must never wait, so a plugin that is not reading loses events. */
  private deliver(subscription: string | number, event: AgentEvent): void {
    if (this.opts.backlog() > EVENT_BACKLOG_BYTES) {
      this.dropped++;
      if (!this.dropping) {
        this.dropping = true;
        this.opts.log.warn(
          `plugin "${this.opts.name}" is not reading its input: events for it are dropped until it catches up (${this.dropped} so far)`,
        );
      }
      return;
    }
    this.dropping = false;
    this.opts.peer.notify("event.deliver", { subscription, event });
  }

  private async call(method: string, params: unknown, opts: CallOptions): Promise<unknown> {
    let answer: unknown;
    try {
      answer = await this.opts.peer.call(method, params, opts);
    } catch (err) {
      throw new PluginCallError(this.opts.name, method, err);
    }
    if (checkNesting(answer, MAX_WIRE_DEPTH) !== "ok") {
      const problem = `answered with a value nested deeper than ${MAX_WIRE_DEPTH} levels; send flatter data`;
      throw new PluginCallError(this.opts.name, method, badAnswer(problem));
    }
    return answer;
  }

  private badAnswer(method: string, expected: string, answer: unknown): PluginCallError {
    const shown = JSON.stringify(answer)?.slice(0, 200) ?? String(answer);
    return new PluginCallError(this.opts.name, method, badAnswer(`answered with ${shown}, expected ${expected}`));
  }
}

function badAnswer(message: string): HomeAgentError {
  return new HomeAgentError({ code: "plugin_bad_answer", message });
}

function notFound(message: string): RpcError {
  return new RpcError(RPC_METHOD_NOT_FOUND, message, { code: "method_not_found" });
}

/** `obj[key]`, type-checked like an argument. */
function field(method: string, obj: Record<string, unknown>, key: string, spec: ArgSpec): unknown {
  return checkField(method, key, spec, obj[key]);
}

/** The data fields of InjectOptions; the function-valued ones (onQueued, signal) cannot come over the wire. */
function injectOptions(method: string, raw: Record<string, unknown> | undefined, signal?: AbortSignal): InjectOptions {
  const opts: InjectOptions = signal ? { signal } : {};
  if (!raw) return opts;
  if (field(method, raw, "noMemory", "boolean?") === true) opts.noMemory = true;
  if (field(method, raw, "transient", "boolean?") === true) opts.transient = true;
  // The kernel checks the messages' shape and size, for every plugin alike.
  const history = field(method, raw, "history", "array?") as InjectOptions["history"];
  if (history !== undefined) opts.history = history;
  for (const key of ["outputChannel", "userId", "groupId"] as const) {
    const value = field(method, raw, key, "string?") as string | undefined;
    if (value !== undefined) opts[key] = value;
  }
  return opts;
}

/** Functions cannot cross the wire: `cleaner: true` asks the daemon to call cleaner.invoke. */
function cleanerFlag(method: string, value: unknown): boolean {
  if (value === undefined || value === null || value === false) return false;
  if (value === true) return true;
  throw invalid(`${method}: cleaner must be true (the daemon then calls cleaner.invoke) or absent`);
}
