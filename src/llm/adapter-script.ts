/**
 * One adapter script loaded into a Lua VM: its declared fields checked and completed with their defaults
 * (the contract is documented in lua-provider.ts and adapters/README.md), and a pool of script instances
 * for streams.
 *
 * Why a pool: an adapter may keep per-stream state in upvalues (Anthropic's prompt usage arrives in the
 * first event and is reported with the last), and two streams of one source can be in flight at once. Each
 * stream therefore runs on an instance of its own — the same source loaded again, so it has fresh upvalues —
 * and `begin_stream()` resets an instance before it is reused. Non-stream calls use the first instance.
 */
import type { CallLimits, LoadOptions, LuaCall, LuaVM } from "../lua/vm.js";
import { HomeAgentError } from "../util/errors.js";

export type AuthScheme = "bearer" | "x-api-key" | "x-goog-api-key" | "none";
export type StreamFormat = "sse" | "ndjson";

export interface AdapterSpec {
  endpoint: string;
  /** Where streaming requests go; the endpoint unless the adapter says otherwise. */
  streamEndpoint: string;
  headers: Record<string, string>;
  auth: AuthScheme;
  streamFormat: StreamFormat;
  /** Whether transform_stream_chunk exists; without it a stream is answered by one whole chunk. */
  streams: boolean;
  /** transform_request only moves texts: long ones reach it as stand-ins (stand-ins.ts). */
  passThroughText: boolean;
}

const AUTH_SCHEMES: readonly AuthScheme[] = ["bearer", "x-api-key", "x-goog-api-key", "none"];
const STREAM_FORMATS: readonly StreamFormat[] = ["sse", "ndjson"];

interface AdapterTable {
  endpoint?: unknown;
  stream_endpoint?: unknown;
  headers?: Record<string, unknown>;
  auth?: unknown;
  stream_format?: unknown;
  pass_through_text?: unknown;
  transform_request?: unknown;
  transform_response?: unknown;
  transform_stream_chunk?: unknown;
  begin_stream?: unknown;
}

export class AdapterScript {
  private readonly free: string[] = [];
  private instances = 1;

  private constructor(
    readonly vm: LuaVM,
    /** The instance non-stream calls use; also the adapter's name. */
    readonly name: string,
    private readonly source: string,
    private readonly environment: Pick<LoadOptions, "globals" | "libraries">,
    readonly spec: AdapterSpec,
    /** Whether the script has begin_stream(). */
    readonly resets: boolean,
  ) {}

  /** Loads and checks the script; rejects with LuaError for a broken script, adapter_invalid for a broken contract. */
  static async load(vm: LuaVM, name: string, source: string, opts: LoadOptions): Promise<AdapterScript> {
    const table = (await vm.loadScript(name, source, opts)) as AdapterTable | undefined;
    if (typeof table?.transform_request !== "function" || typeof table.transform_response !== "function") {
      throw invalidAdapter("the script must return a table with transform_request and transform_response");
    }
    const endpoint = text(table.endpoint, "endpoint") || "/chat/completions";
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(table.headers ?? {})) headers[k] = String(v);
    const spec: AdapterSpec = {
      endpoint,
      streamEndpoint: text(table.stream_endpoint, "stream_endpoint") || endpoint,
      headers,
      auth: oneOf(table.auth, "auth", AUTH_SCHEMES, "bearer"),
      streamFormat: oneOf(table.stream_format, "stream_format", STREAM_FORMATS, "sse"),
      streams: typeof table.transform_stream_chunk === "function",
      passThroughText: flag(table.pass_through_text, "pass_through_text"),
    };
    const environment = { globals: opts.globals, libraries: opts.libraries };
    return new AdapterScript(vm, name, source, environment, spec, typeof table.begin_stream === "function");
  }

  /**
   * An instance for one stream; run streamStart()'s calls on it first, and hand it back with release() when
   * the stream ends.
   */
  async acquire(limits: CallLimits): Promise<string> {
    const instance = this.free.pop();
    if (instance !== undefined) return instance;
    const fresh = `${this.name}#${++this.instances}`;
    await this.vm.loadScript(fresh, this.source, { ...limits, ...this.environment, label: this.name });
    return fresh;
  }

  /**
   * The calls that start a stream, for one round trip to the worker: begin_stream() when the script has it
   * (it resets a reused instance), then transform_request, whose value is the last.
   */
  streamStart(wireRequest: string): LuaCall[] {
    const request: LuaCall = { fn: "transform_request", args: [wireRequest] };
    return this.resets ? [{ fn: "begin_stream", args: [] }, request] : [request];
  }

  release(instance: string): void {
    this.free.push(instance);
  }
}

function text(value: unknown, field: string): string {
  if (value === undefined || typeof value === "string") return value ?? "";
  throw invalidAdapter(`${field} must be a string, not ${typeof value}`);
}

function flag(value: unknown, field: string): boolean {
  if (value === undefined || typeof value === "boolean") return value ?? false;
  throw invalidAdapter(`${field} must be true or false, not ${JSON.stringify(value)}`);
}

function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (allowed.includes(value as T)) return value as T;
  throw invalidAdapter(
    `${field} must be one of ${allowed.map((a) => `"${a}"`).join(", ")}, not ${JSON.stringify(value)}`,
  );
}

function invalidAdapter(message: string): HomeAgentError {
  return new HomeAgentError({ code: "adapter_invalid", message });
}
