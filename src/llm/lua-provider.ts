/**
 * A Provider whose wire format is a Lua adapter script (inventory §4): unified request → transform_request
 * → POST base_url + endpoint → transform_response / transform_stream_chunk → unified shapes. The HTTP part,
 * error classification and secret hygiene live here so that adapters stay pure text transforms.
 */
import type { Logger } from "@homeagent/sdk";
import { LuaError, LuaVM } from "../lua/vm.js";
import {
  type CallOptions,
  type CompletionRequest,
  type CompletionResponse,
  errorKindForStatus,
  type Provider,
  ProviderError,
  type StreamChunk,
} from "./provider.js";
import { sseData } from "./sse.js";
import { toResponse, toStreamChunk } from "./unified.js";

export interface LuaAdaptedProviderOptions {
  /** The configured source this provider serves; used as the provider name and in every message. */
  sourceName: string;
  adapterName: string;
  adapterSource: string;
  baseUrl: string;
  apiKey?: string;
  /** Sent when the request names no model (empty or "AUTO"). */
  model: string;
  /** A VM to load the adapter into; by default the provider creates its own on first use. */
  vm?: LuaVM;
  /** Limit of each adapter call, in ms (default 2000). */
  timeoutMs?: number;
  log?: Logger;
}

interface AdapterTable {
  endpoint?: string;
  headers?: Record<string, unknown>;
  transform_request?: unknown;
  transform_response?: unknown;
  transform_stream_chunk?: unknown;
}

interface Adapter {
  vm: LuaVM;
  endpoint: string;
  headers: Record<string, string>;
  streams: boolean;
}

const ERROR_SNIPPET_CHARS = 300;

export class LuaAdaptedProvider implements Provider {
  readonly name: string;
  readonly model: string;
  private adapter?: Promise<Adapter>;

  constructor(private readonly opts: LuaAdaptedProviderOptions) {
    this.name = opts.sourceName;
    this.model = opts.model;
  }

  async chat(req: CompletionRequest, opts: CallOptions = {}): Promise<CompletionResponse> {
    const adapter = await this.loadAdapter();
    const body = this.transform(adapter, "transform_request", this.wireRequest(req, false), "build the request");
    const res = await this.post(adapter, body, false, opts.signal);
    const text = await this.guardRead(() => res.text(), opts.signal);
    const out = this.transform(adapter, "transform_response", text, "parse the response", text);
    return this.decode(out, "transform_response", toResponse);
  }

  async *chatStream(req: CompletionRequest, opts: CallOptions = {}): AsyncGenerator<StreamChunk> {
    const adapter = await this.loadAdapter();
    if (!adapter.streams) {
      // No transform_stream_chunk: the answer arrives whole, as one chunk.
      yield wholeAsChunk(await this.chat(req, opts));
      return;
    }
    const body = this.transform(adapter, "transform_request", this.wireRequest(req, true), "build the request");
    const res = await this.post(adapter, body, true, opts.signal);
    if (!res.body) throw new ProviderError(`${this.label()}: streaming response has no body`, "transient");
    const events = sseData(res.body);
    let finished = false;
    let sentDone = false;
    try {
      for (;;) {
        const next = await this.guardRead(() => events.next(), opts.signal);
        if (next.done) {
          finished ||= next.value === "done";
          break;
        }
        const out = this.transform(adapter, "transform_stream_chunk", next.value, "parse a stream chunk", next.value);
        if (out === "") continue;
        const chunk = this.decode(out, "transform_stream_chunk", toStreamChunk);
        finished ||= chunk.done || Boolean(chunk.finish_reason);
        sentDone ||= chunk.done;
        yield chunk;
      }
    } finally {
      await events.return("eof");
    }
    if (!finished) throw new ProviderError(`${this.label()}: stream ended before the reply was complete`, "transient");
    if (!sentDone) yield { content: "", reasoning_content: "", done: true, usage: null, tool_calls: [] };
  }

  private label(): string {
    return `adapter ${this.opts.adapterName} (source ${this.opts.sourceName})`;
  }

  // Loaded on first use because the VM is async to create; a broken script fails every call the same way.
  private loadAdapter(): Promise<Adapter> {
    this.adapter ??= this.createAdapter();
    return this.adapter;
  }

  private async createAdapter(): Promise<Adapter> {
    const { adapterName, adapterSource } = this.opts;
    const vm = this.opts.vm ?? (await this.ownVM());
    let table: AdapterTable;
    try {
      table = vm.loadScript(adapterName, adapterSource, { timeoutMs: this.opts.timeoutMs }) as AdapterTable;
    } catch (err) {
      throw new ProviderError(`${this.label()} failed to load: ${this.redact(messageOf(err))}`, "fatal");
    }
    if (typeof table?.transform_request !== "function" || typeof table.transform_response !== "function") {
      throw new ProviderError(
        `${this.label()}: the script must return a table with transform_request and transform_response`,
        "fatal",
      );
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(table.headers ?? {})) headers[k] = String(v);
    return {
      vm,
      endpoint: typeof table.endpoint === "string" && table.endpoint ? table.endpoint : "/chat/completions",
      headers,
      streams: typeof table.transform_stream_chunk === "function",
    };
  }

  private async ownVM(): Promise<LuaVM> {
    // The log callback lives as long as the Lua state, so it must not hold the provider (see ownedVMs).
    const { log, apiKey } = this.opts;
    const vm = await LuaVM.create({
      kind: "adapter",
      timeoutMs: this.opts.timeoutMs,
      log: (level, script, message) => log?.[level](`adapter ${script}: ${redact(message, apiKey)}`),
    });
    ownedVMs.register(this, vm);
    return vm;
  }

  private wireRequest(req: CompletionRequest, stream: boolean): string {
    const model = req.model && req.model !== "AUTO" ? req.model : this.model;
    return JSON.stringify({ ...req, model, stream });
  }

  /** Runs one adapter function; any Lua failure is fatal for this source and names adapter, source and step. */
  private transform(adapter: Adapter, fn: string, input: string, step: string, received?: string): string {
    let out: unknown;
    try {
      out = adapter.vm.call(this.opts.adapterName, fn, [input], { timeoutMs: this.opts.timeoutMs });
    } catch (err) {
      const seen = received === undefined ? "" : `; received: ${snippet(received)}`;
      throw new ProviderError(`${this.label()} could not ${step}: ${this.redact(messageOf(err) + seen)}`, "fatal");
    }
    if (typeof out !== "string") {
      throw new ProviderError(`${this.label()}: ${fn} returned ${typeof out}, expected a JSON string`, "fatal");
    }
    return out;
  }

  private decode<T>(out: string, fn: string, convert: (value: unknown) => T): T {
    try {
      return convert(JSON.parse(out));
    } catch (err) {
      throw new ProviderError(
        `${this.label()}: ${fn} returned unusable JSON (${messageOf(err)}): ${snippet(out)}`,
        "fatal",
      );
    }
  }

  private async post(adapter: Adapter, body: string, stream: boolean, signal?: AbortSignal): Promise<Response> {
    const url = this.opts.baseUrl.replace(/\/+$/, "") + adapter.endpoint;
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: stream ? "text/event-stream" : "application/json",
    };
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    Object.assign(headers, adapter.headers);
    this.opts.log?.debug(`${this.label()}: POST ${safeUrl(url)}${stream ? " (stream)" : ""}`);
    let res: Response;
    try {
      res = await fetch(url, { method: "POST", headers, body, signal });
    } catch (err) {
      if (signal?.aborted) throw aborted();
      throw new ProviderError(`cannot reach ${safeUrl(url)}: ${this.redact(causeOf(err))}`, "transient");
    }
    if (!res.ok) {
      const text = await this.guardRead(() => res.text(), signal).catch((err) => {
        if (err instanceof ProviderError && err.kind === "aborted") throw err;
        return "";
      });
      const detail = errorDetail(text);
      throw new ProviderError(
        `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}${detail ? `: ${this.redact(detail)}` : ""}`,
        errorKindForStatus(res.status),
        res.status,
      );
    }
    return res;
  }

  /** Reading a body can fail midway: the caller aborted, or the connection broke (worth a retry). */
  private async guardRead<T>(read: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    try {
      return await read();
    } catch (err) {
      if (signal?.aborted) throw aborted();
      throw new ProviderError(
        `${this.label()}: connection lost while reading: ${this.redact(causeOf(err))}`,
        "transient",
      );
    }
  }

  private redact(text: string): string {
    return redact(text, this.opts.apiKey);
  }
}

/**
 * Sources are rebuilt on every LLM config change and the old providers simply dropped; the Lua state a
 * provider created (~100 KB of wasm heap that JS GC cannot see) is closed when the provider is collected.
 */
const ownedVMs = new FinalizationRegistry<LuaVM>((vm) => vm.close());

function redact(text: string, secret: string | undefined): string {
  return secret ? text.replaceAll(secret, "***") : text;
}

function aborted(): ProviderError {
  return new ProviderError("request aborted", "aborted");
}

function wholeAsChunk(res: CompletionResponse): StreamChunk {
  return {
    content: res.content,
    reasoning_content: res.reasoning_content,
    done: true,
    finish_reason: res.finish_reason,
    usage: res.token_usage,
    tool_calls: res.tool_calls.map((call, i) => ({
      id: call.id,
      name: call.name,
      raw_arguments: call.raw_arguments ?? JSON.stringify(call.arguments),
      stream_index: i,
    })),
  };
}

// Lua errors repeat the script name the provider's label already gives; a timeout keeps its full text.
function messageOf(err: unknown): string {
  if (err instanceof LuaError && !err.timedOut) return err.detail;
  return err instanceof Error ? err.message : String(err);
}

// fetch() reports "fetch failed" and hides the useful part (ECONNREFUSED, ENOTFOUND, ...) in `cause`.
function causeOf(err: unknown): string {
  const cause = err instanceof Error ? (err.cause as { code?: string; message?: string } | undefined) : undefined;
  return cause?.code ?? cause?.message ?? messageOf(err);
}

/** The provider's own error text when the body is OpenAI-style JSON, else the start of the body. */
function errorDetail(body: string): string {
  try {
    const message = JSON.parse(body)?.error?.message;
    if (typeof message === "string" && message) return message;
  } catch {
    // not JSON: fall through to the raw text
  }
  return snippet(body);
}

function snippet(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > ERROR_SNIPPET_CHARS ? `${flat.slice(0, ERROR_SNIPPET_CHARS)}…` : flat;
}

/** The URL without credentials or query string (some providers take the key as ?key=). */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return "(invalid URL)";
  }
}
