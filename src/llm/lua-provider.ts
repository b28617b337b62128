/**
 * A Provider whose wire format is a Lua adapter script (inventory §4): unified request → transform_request
 * → POST base_url + endpoint → transform_response / transform_stream_chunk → unified shapes. The HTTP part,
 * authentication, timeouts, error classification and secret hygiene live here so that adapters stay pure
 * text transforms; loading and calling the script is adapter-calls.ts.
 *
 * The adapter contract (also in adapters/README.md, for adapter authors). The script returns a table:
 *
 * - `name`, `version` — informational strings.
 * - `endpoint` — path appended to the source's base_url (default "/chat/completions"). `{model}` is
 *   replaced by the URL-encoded model name.
 * - `stream_endpoint` — optional path used instead of `endpoint` when streaming, `{model}` likewise
 *   (Gemini: "/v1beta/models/{model}:streamGenerateContent?alt=sse").
 * - `headers` — extra request headers (table of strings).
 * - `auth` — how the host sends the source's API key: "bearer" (default, `Authorization: Bearer <key>`),
 *   "x-api-key", "x-goog-api-key" (header of that name) or "none". The key never enters Lua.
 * - `stream_format` — "sse" (default: `data:` payloads, `[DONE]` ends the stream) or "ndjson" (one JSON
 *   document per line).
 * - `pass_through_text` — optional `true` for an adapter whose transform_request only moves texts and the
 *   tools list into the body, never reads or changes them: each string of 128 characters or more, and each
 *   tool definition (a string element of `tools`), then reaches it as a short stand-in, and the host puts
 *   them back into the body returned (stand-ins.ts).
 * - `transform_request(json) → json` — unified CompletionRequest (model resolved, `stream` set) → wire body.
 * - `transform_response(json) → json` — wire body → unified CompletionResponse. Raise an error for a body
 *   you cannot use; never return an empty reply instead.
 * - `transform_stream_chunk(payload) → json | ""` — optional; one SSE data payload or NDJSON line → a
 *   unified StreamChunk, a JSON array of them, or "" to skip. Without it a stream request is made as a
 *   normal one and answered as a single chunk. A stream counts as complete once a chunk has `done` or a
 *   `finish_reason` (or SSE sent `[DONE]`); one that ends before is a transient error.
 * - `begin_stream()` — optional; called before each stream. Per-stream state may live in upvalues: every
 *   stream in flight runs on an instance of the script of its own, and this hook resets a reused one.
 *
 * Globals: the sandboxed Lua of vm.ts with `json`, `log`, `source` ({ name, base_url, model } of the
 * configured source; never the API key), `import(name)` (a library of `libraries`, e.g. openai_compat) and
 * `http_get(url, headers?)` / `http_post(url, body, headers?)` → body, status, headers, which may reach only
 * the host of base_url (plus `httpAllowedHosts`).
 */
import type { Logger } from "@homeagent/sdk";
import type { ChatMessage, CompletionRequest, CompletionResponse, StreamChunk } from "../kernel/llm-spec.js";
import type { LuaVM } from "../lua/vm.js";
import { formatBytes } from "../util/bytes.js";
import { BodyTooLargeError, readCappedText } from "../util/capped-body.js";
import { causeOf, errorMessage } from "../util/errors.js";
import { safeUrl, trimTrailingSlash } from "../util/url.js";
import { AdapterCalls } from "./adapter-calls.js";
import type { AdapterSpec } from "./adapter-script.js";
import { type CallLimits, CallWatch, DEFAULT_CALL_LIMITS } from "./call-watch.js";
import { httpPost, type PostReply } from "./http-post.js";
import { LineTooLongError } from "./lines.js";
import { ndjsonBatches } from "./ndjson.js";
import { type CallOptions, type Provider, ProviderError } from "./provider.js";
import { ReplyBudget } from "./reply-budget.js";
import { sseBatches } from "./sse.js";
import { type StandIns, withStandIns } from "./stand-ins.js";
import { toResponse, toStreamChunks } from "./unified.js";
import { httpError, snippet } from "./wire-errors.js";

export interface LuaAdaptedProviderOptions {
  /** The configured source this provider serves; used as the provider name and in every message. */
  sourceName: string;
  adapterName: string;
  adapterSource: string;
  /** The libraries the adapter may import(), name → Lua source; by default the bundled ones. */
  libraries?: Readonly<Record<string, string>>;
  baseUrl: string;
  apiKey?: string;
  /** Sent when the request names no model (empty or "AUTO"). */
  model: string;
  /** A VM to load the adapter into; by default the provider creates its own on first use. */
  vm?: LuaVM;
  /** Limit of each adapter call, in ms (default 2000). */
  timeoutMs?: number;
  /**
   * Give up (transient error) when the response headers, or for a stream its first bytes, have not arrived
   * within this many ms. Default 60000; 0 waits as long as the caller does.
   */
  firstByteTimeoutMs?: number;
  /**
   * Give up (transient error) when a stream has carried no text, reasoning or tool call this many ms after
   * the request, whatever keep-alives came. Default 5 min; 0 = none.
   */
  firstContentTimeoutMs?: number;
  /**
   * Give up (transient error) when a reply waits this many ms mid-stream: for any bytes before content, for
   * new content after (keep-alives do not count). Default 60000; 0 = none.
   */
  idleTimeoutMs?: number;
  /** Deadline of the whole call, request to last byte, in ms. Default 10 min; 0 = none. */
  callTimeoutMs?: number;
  /** Largest reply (default 4 MiB): a stream is cut there, with a note saying so; a larger whole body fails. */
  maxResponseBytes?: number;
  /** Largest stream line or event (default 1 MiB); a longer one fails the call. */
  maxLineBytes?: number;
  /** Hosts (`host[:port]`) besides base_url's that the adapter may reach with http_get/http_post. */
  httpAllowedHosts?: readonly string[];
  log?: Logger;
}

/** An error body is read for its message only; the start of it is enough. */
const ERROR_BODY_BYTES = 64 * 1024;
const STREAM_TYPES: Record<AdapterSpec["streamFormat"], string> = {
  sse: "text/event-stream",
  ndjson: "application/x-ndjson",
};

/** What warm() has the adapter build a request of: a system prompt and a question, as a turn's starts. */
const WARM_MESSAGES: ChatMessage[] = [
  { role: "system", content: "You are a helpful assistant." },
  { role: "user", content: "Hello" },
];

export class LuaAdaptedProvider implements Provider {
  readonly name: string;
  readonly model: string;
  private readonly limits: CallLimits;
  private readonly lua: AdapterCalls;

  constructor(private readonly opts: LuaAdaptedProviderOptions) {
    this.name = opts.sourceName;
    this.model = opts.model;
    this.lua = new AdapterCalls({ ...opts, label: this.label() });
    const d = DEFAULT_CALL_LIMITS;
    this.limits = {
      firstByteTimeoutMs: opts.firstByteTimeoutMs ?? d.firstByteTimeoutMs,
      firstContentTimeoutMs: opts.firstContentTimeoutMs ?? d.firstContentTimeoutMs,
      idleTimeoutMs: opts.idleTimeoutMs ?? d.idleTimeoutMs,
      callTimeoutMs: opts.callTimeoutMs ?? d.callTimeoutMs,
      maxResponseBytes: opts.maxResponseBytes ?? d.maxResponseBytes,
      maxLineBytes: opts.maxLineBytes ?? d.maxLineBytes,
    };
  }

  async chat(req: CompletionRequest, opts: CallOptions = {}): Promise<CompletionResponse> {
    const script = await this.lua.load();
    const model = this.modelFor(req);
    const wire = this.wireRequest(script.spec, req, model, false);
    const body = wire.restore(
      await this.lua.call(script, script.name, "transform_request", wire.wire, "build the request", opts.signal),
    );
    const call = this.startCall(opts.signal);
    try {
      const res = await this.post(call, script.spec, model, body, false);
      const text = await this.readWhole(call, res, this.limits.maxResponseBytes);
      const out = await this.lua.call(
        script,
        script.name,
        "transform_response",
        text,
        "parse the response",
        opts.signal,
      );
      return this.decode(out, "transform_response", toResponse);
    } finally {
      call.close();
    }
  }

  async *chatStream(req: CompletionRequest, opts: CallOptions = {}): AsyncGenerator<StreamChunk> {
    const script = await this.lua.load();
    if (!script.spec.streams) {
      // No transform_stream_chunk: the answer arrives whole, as one chunk.
      yield wholeAsChunk(await this.chat(req, opts));
      return;
    }
    const instance = await this.lua.acquire(script);
    const call = this.startCall(opts.signal);
    try {
      const model = this.modelFor(req);
      const wire = this.wireRequest(script.spec, req, model, true);
      const body = wire.restore(await this.lua.beginStream(script, instance, wire.wire, opts.signal));
      const res = await this.post(call, script.spec, model, body, true);
      if (!res.body) throw new ProviderError(`${this.label()}: streaming response has no body`, "transient");
      const read = script.spec.streamFormat === "ndjson" ? ndjsonBatches : sseBatches;
      // Payloads that arrived together go to the adapter in one round trip to its worker.
      const batches: AsyncGenerator<string[], "done" | "eof"> = read(call.watch(res.body), {
        maxLineBytes: this.limits.maxLineBytes,
      });
      const budget = new ReplyBudget(this.limits.maxResponseBytes);
      let finished = false;
      let sentDone = false;
      try {
        for (;;) {
          const next = await this.guardRead(call, () => batches.next());
          if (next.done) {
            finished ||= next.value === "done";
            break;
          }
          const outs = await this.lua.chunks(script, instance, next.value, opts.signal);
          for (const out of outs) {
            if (out === "") continue;
            for (const chunk of this.decode(out, "transform_stream_chunk", toStreamChunks)) {
              call.progress(chunk);
              const kept = budget.take(chunk);
              if (budget.cut) {
                // What arrived is kept and the reply ends with a note; asking again would only repeat it.
                this.opts.log?.warn(`${this.label()}: ${budget.notice().content.trim()}`);
                yield kept;
                yield budget.notice();
                return;
              }
              finished ||= chunk.done || Boolean(chunk.finish_reason);
              sentDone ||= chunk.done;
              yield chunk;
            }
          }
        }
      } finally {
        await batches.return("eof");
      }
      if (!finished) {
        throw new ProviderError(`${this.label()}: stream ended before the reply was complete`, "transient");
      }
      if (!sentDone) yield { content: "", reasoning_content: "", done: true, usage: null, tool_calls: [] };
    } finally {
      call.close();
      script.release(instance);
    }
  }

  private label(): string {
    return `adapter ${this.opts.adapterName} (source ${this.opts.sourceName})`;
  }

  private modelFor(req: CompletionRequest): string {
    return req.model && req.model !== "AUTO" ? req.model : this.model;
  }

  /**
   * Loads the adapter and, when it declares that transform_request only moves texts (`pass_through_text`:
   * a pure mapping, nothing else runs), builds one small request with it (not sent): the worker's first
   * calls run its code cold, and the first turn's request is then not among them. A failure to build it
   * is left to the first real call to report.
   */
  async warm(): Promise<void> {
    const script = await this.lua.load();
    // Each stream runs on an instance of its own (adapter-script.ts): one loaded now is as fresh as one
    // loaded by the first stream (transform_request starts each stream afresh).
    if (!script.spec.streams) return;
    const instance = await this.lua.acquire(script);
    try {
      if (script.spec.passThroughText) {
        const wire = this.wireRequest(script.spec, { model: this.model, messages: WARM_MESSAGES }, this.model, true);
        await this.lua.beginStream(script, instance, wire.wire, undefined).catch(() => {});
      }
    } finally {
      script.release(instance);
    }
  }

  /** Stops the Lua worker this provider created; see AdapterCalls.close. */
  close(): Promise<void> {
    return this.lua.close();
  }

  /** The unified request as transform_request reads it: long texts as stand-ins when the adapter passes them through. */
  private wireRequest(spec: AdapterSpec, req: CompletionRequest, model: string, stream: boolean): StandIns {
    const request = { ...req, model, stream };
    if (spec.passThroughText) return withStandIns(request);
    return { wire: JSON.stringify(request), restore: (body) => body };
  }

  private decode<T>(out: string, fn: string, convert: (value: unknown) => T): T {
    try {
      return convert(JSON.parse(out));
    } catch (err) {
      throw new ProviderError(
        `${this.label()}: ${fn} returned unusable JSON (${errorMessage(err)}): ${snippet(out)}`,
        "fatal",
        { cause: err },
      );
    }
  }

  private startCall(signal: AbortSignal | undefined): CallWatch {
    return new CallWatch(this.limits, signal);
  }

  private async post(
    call: CallWatch,
    spec: AdapterSpec,
    model: string,
    body: string,
    stream: boolean,
  ): Promise<PostReply> {
    const endpoint = (stream ? spec.streamEndpoint : spec.endpoint).replaceAll("{model}", encodeURIComponent(model));
    const url = trimTrailingSlash(this.opts.baseUrl) + endpoint;
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: stream ? STREAM_TYPES[spec.streamFormat] : "application/json",
      ...authHeader(spec.auth, this.opts.apiKey),
      ...spec.headers,
    };
    this.opts.log?.debug(`${this.label()}: POST ${safeUrl(url)}${stream ? " (stream)" : ""}`);
    let res: PostReply;
    call.send(stream);
    try {
      res = await httpPost(url, { headers, body, signal: call.signal });
    } catch (err) {
      throw (
        this.interrupted(call) ??
        new ProviderError(`cannot reach ${safeUrl(url)}: ${this.redact(causeOf(err))}`, "transient", { cause: err })
      );
    }
    // Headers are the first byte of a whole reply; a stream must still show a first byte of its body.
    if (!stream || !res.ok) call.begin();
    if (!res.ok) {
      const text = await this.readWhole(call, res, ERROR_BODY_BYTES, true).catch((err) => {
        if (err instanceof ProviderError && err.kind === "aborted") throw err;
        return "";
      });
      throw httpError(res, text, (t) => this.redact(t));
    }
    return res;
  }

  /**
   * A whole body as text, at most `maxBytes` of it: a larger one fails the call, or with `truncate` (an error
   * body, read only for its message) is cut there. Either way the connection is dropped at the limit.
   */
  private readWhole(call: CallWatch, res: PostReply, maxBytes: number, truncate = false): Promise<string> {
    return this.guardRead(call, () => readCappedText(res.body && call.watch(res.body), maxBytes, { truncate }));
  }

  /**
   * Reading a body can fail midway: the caller aborted, a time limit ran out, the reply or one of its lines
   * outgrew its limit, or the connection broke.
   */
  private async guardRead<T>(call: CallWatch, read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (err) {
      throw this.interrupted(call) ?? this.readFailure(err);
    }
  }

  private readFailure(err: unknown): ProviderError {
    if (err instanceof BodyTooLargeError) {
      return new ProviderError(
        `${this.label()}: the reply is larger than ${formatBytes(err.limitBytes)} (core.llm.max_response_bytes); ` +
          "raise that setting if the model's replies are really this long",
        "fatal",
        { cause: err, code: "llm_reply_too_large" },
      );
    }
    if (err instanceof LineTooLongError) {
      return new ProviderError(`${this.label()}: ${err.message}`, "fatal", { cause: err, code: err.code });
    }
    const reason = this.redact(causeOf(err));
    return new ProviderError(`${this.label()}: connection lost while reading: ${reason}`, "transient", { cause: err });
  }

  private interrupted(call: CallWatch): ProviderError | undefined {
    const timeout = call.timeoutError(this.name);
    if (timeout) return timeout;
    if (call.callerAborted) return new ProviderError("request aborted", "aborted");
    return undefined;
  }

  private redact(text: string): string {
    return this.lua.redact(text);
  }
}

function authHeader(auth: AdapterSpec["auth"], key: string | undefined): Record<string, string> {
  if (!key || auth === "none") return {};
  return auth === "bearer" ? { authorization: `Bearer ${key}` } : { [auth]: key };
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
