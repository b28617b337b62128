/**
 * The Lua side of a LuaAdaptedProvider: the adapter script loaded (into a worker of the provider's own unless
 * a VM is given) and its functions called, each failure turned into a ProviderError that names adapter,
 * source and step. A caller that aborts stops waiting for a call; the worker finishes it or is cut at its
 * limit on its own.
 */
import type { Logger } from "@homeagent/sdk";
import { LuaError, LuaVM } from "../lua/vm.js";
import { untilAborted } from "../util/abort.js";
import { errorMessage } from "../util/errors.js";
import { redactSecret } from "../util/secret.js";
import { AdapterScript } from "./adapter-script.js";
import { bundledAdapterLibraries } from "./adapters.js";
import { ADAPTER_REQUEST_FAILED, ProviderError } from "./provider.js";
import { snippet } from "./wire-errors.js";

export interface AdapterCallsOptions {
  /** "adapter X (source Y)": how every message names the adapter. */
  label: string;
  sourceName: string;
  adapterName: string;
  adapterSource: string;
  libraries?: Readonly<Record<string, string>>;
  baseUrl: string;
  model: string;
  /** Never enters Lua; only redacted from what the adapter logs or fails with. */
  apiKey?: string;
  vm?: LuaVM;
  timeoutMs?: number;
  httpAllowedHosts?: readonly string[];
  log?: Logger;
}

export class AdapterCalls {
  private adapter?: Promise<AdapterScript>;
  /** The VM these calls created (and so close), as opposed to one passed in the options. */
  private ownedVM?: LuaVM;
  private closed = false;

  constructor(private readonly opts: AdapterCallsOptions) {}

  // Loaded on first use because the VM is async to create; a broken script fails every call the same way.
  load(): Promise<AdapterScript> {
    this.adapter ??= this.createAdapter();
    return this.adapter;
  }

  private async createAdapter(): Promise<AdapterScript> {
    const { adapterName, adapterSource, libraries, timeoutMs, sourceName, baseUrl, model } = this.opts;
    const globals = { source: { name: sourceName, base_url: baseUrl, model } };
    try {
      const vm = this.opts.vm ?? (await this.ownVM());
      return await AdapterScript.load(vm, adapterName, adapterSource, {
        timeoutMs,
        globals,
        libraries: libraries ?? bundledAdapterLibraries(),
      });
    } catch (err) {
      const what = err instanceof LuaError ? " failed to load: " : ": ";
      throw new ProviderError(this.opts.label + what + this.redact(messageOf(err)), "fatal", { cause: err });
    }
  }

  private async ownVM(): Promise<LuaVM> {
    // The log callback lives as long as the Lua state, so it must not hold the provider (see ownedVMs).
    const { log, apiKey } = this.opts;
    const vm = await LuaVM.create({
      kind: "adapter",
      timeoutMs: this.opts.timeoutMs,
      httpAllowedHosts: [...hostOf(this.opts.baseUrl), ...(this.opts.httpAllowedHosts ?? [])],
      log: (level, script, message) => log?.[level](`adapter ${script}: ${redactSecret(message, apiKey)}`),
    });
    ownedVMs.register(this, vm);
    this.ownedVM = vm;
    if (this.closed) await vm.close();
    return vm;
  }

  /**
   * Stops the Lua worker these calls created (a VM given in the options is the caller's to close): a call
   * still running fails, later ones are refused. One never closed has its worker stopped when collected.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.ownedVM?.close();
  }

  async acquire(script: AdapterScript): Promise<string> {
    try {
      return await script.acquire({ timeoutMs: this.opts.timeoutMs });
    } catch (err) {
      const message = `${this.opts.label} could not begin a stream: ${this.redact(messageOf(err))}`;
      throw new ProviderError(message, "fatal", { cause: err });
    }
  }

  /**
   * Runs one adapter function; any Lua failure is fatal for this source and names adapter, source and step.
   * What the provider sent is quoted in the message, since that is what the adapter choked on.
   */
  async call(
    script: AdapterScript,
    instance: string,
    fn: string,
    input: string,
    step: string,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    let out: unknown;
    try {
      out = await untilAborted(() => script.vm.call(instance, fn, [input], this.limits()), signal, aborted);
    } catch (err) {
      throw this.transformFailure(fn, input, step, err);
    }
    return this.jsonText(fn, out);
  }

  /** begin_stream() (if the adapter has it) and transform_request, in one round trip to the Lua worker. */
  async beginStream(
    script: AdapterScript,
    instance: string,
    wire: string,
    signal: AbortSignal | undefined,
  ): Promise<string> {
    const calls = script.streamStart(wire);
    let values: unknown[];
    try {
      values = await untilAborted(() => script.vm.callEach(instance, calls, this.limits()), signal, aborted);
    } catch (err) {
      // A failure that no call can be blamed for (the VM closed, say) is the first call's.
      const failed = calls[err instanceof LuaError ? (err.callIndex ?? 0) : 0];
      if (failed.fn !== "begin_stream") throw this.transformFailure(failed.fn, wire, "build the request", err);
      const message = `${this.opts.label} could not begin a stream: ${this.redact(messageOf(err))}`;
      throw new ProviderError(message, "fatal", { cause: err });
    }
    return this.jsonText("transform_request", values.at(-1));
  }

  /**
   * transform_stream_chunk over payloads that arrived together, in one round trip to the Lua worker; a failure
   * names the payload it failed on, like a single call's.
   */
  async chunks(
    script: AdapterScript,
    instance: string,
    payloads: string[],
    signal: AbortSignal | undefined,
  ): Promise<string[]> {
    const fn = "transform_stream_chunk";
    const calls = payloads.map((payload) => ({ fn, args: [payload] }));
    let values: unknown[];
    try {
      values = await untilAborted(() => script.vm.callEach(instance, calls, this.limits()), signal, aborted);
    } catch (err) {
      const payload = payloads[err instanceof LuaError ? (err.callIndex ?? 0) : 0];
      throw this.transformFailure(fn, payload, "parse a stream chunk", err);
    }
    return values.map((out) => this.jsonText(fn, out));
  }

  private transformFailure(fn: string, input: string, step: string, err: unknown): ProviderError {
    if (err instanceof ProviderError && err.kind === "aborted") return err;
    const seen = fn === "transform_request" ? "" : `; received: ${snippet(input)}`;
    const message = `${this.opts.label} could not ${step}: ${this.redact(messageOf(err) + seen)}`;
    const code = fn === "transform_request" ? ADAPTER_REQUEST_FAILED : "llm_fatal";
    return new ProviderError(message, "fatal", { cause: err, code });
  }

  private jsonText(fn: string, out: unknown): string {
    if (typeof out !== "string") {
      throw new ProviderError(`${this.opts.label}: ${fn} returned ${typeof out}, expected a JSON string`, "fatal");
    }
    return out;
  }

  private limits(): { timeoutMs?: number } {
    return { timeoutMs: this.opts.timeoutMs };
  }

  redact(text: string): string {
    return redactSecret(text, this.opts.apiKey);
  }
}

/**
 * Sources are rebuilt on every LLM config change and the old providers dropped; the Lua worker a provider
 * created (a thread and its wasm heap, which JS GC cannot see) is terminated when its calls are collected.
 * The worker is unref'd while idle, so it never keeps the daemon alive in the meantime.
 */
const ownedVMs = new FinalizationRegistry<LuaVM>((vm) => vm.close());

function hostOf(url: string): string[] {
  try {
    return [new URL(url).host];
  } catch {
    return [];
  }
}

// Lua errors repeat the script name the provider's label already gives; a timeout keeps its full text.
function messageOf(err: unknown): string {
  if (err instanceof LuaError && !err.timedOut) return err.detail;
  return errorMessage(err);
}

// The turn was cancelled or the daemon is stopping: the worker finishes the call, or is cut at its limit,
// on its own, but no turn and no shutdown waits for it.
const aborted = () => new ProviderError("request aborted", "aborted");
