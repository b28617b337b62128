/**
 * The remote unified-space tier: an embeddings endpoint over HTTP, either OpenAI-compatible
 * (`POST {base_url}/embeddings`, `{model, input}` → `data[i].embedding`) or Ollama
 * (`POST {base_url}/api/embed`, `{model, input}` → `embeddings`). The first answer fixes the dimension;
 * any later answer of another width is an error, because vectors of two widths cannot share an index.
 * Answers are read up to a size limit, so a broken or hostile server cannot fill the daemon's memory.
 */
import { formatBytes } from "../util/bytes.js";
import { BodyTooLargeError, readCappedText } from "../util/capped-body.js";
import { causeOf } from "../util/errors.js";
import { isObject } from "../util/object.js";
import { redactSecret } from "../util/secret.js";
import { trimTrailingSlash } from "../util/url.js";
import { EmbeddingError, type EmbeddingErrorCode } from "./errors.js";
import {
  EMBEDDING_SPECIFICATION_VERSION,
  type EmbeddingInfo,
  type EmbeddingInput,
  type EmbeddingProvider,
} from "./spi.js";
import { textsOf } from "./text-only.js";

export type HttpEmbeddingApi = "openai" | "ollama";

/** 2,048 texts × 1,024 dimensions of JSON numbers fit; more means the batch size is too large. */
const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
/** Of an error answer only the start is shown. */
const ERROR_EXCERPT_BYTES = 4096;

export interface HttpEmbedderOptions {
  api: HttpEmbeddingApi;
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Expected width; 0 or absent = whatever the first answer has. */
  dimension?: number;
  /** Texts per request; default 64. */
  batchSize?: number;
  /** Per request, in milliseconds; default 30 000. */
  timeoutMs?: number;
  /** Largest answer read; default 64 MiB. */
  maxResponseBytes?: number;
}

export class HttpEmbedder implements EmbeddingProvider {
  readonly specificationVersion = EMBEDDING_SPECIFICATION_VERSION;
  readonly name = "http";
  private dimension: number;
  private readonly url: string;

  private constructor(private readonly opts: Required<HttpEmbedderOptions>) {
    const config = (message: string) => new EmbeddingError({ code: "embedding_config", message });
    if (opts.api !== "openai" && opts.api !== "ollama") {
      throw config(`core.embedding.http.api must be "openai" or "ollama", got ${JSON.stringify(opts.api)}`);
    }
    if (!opts.baseUrl) throw config("the http embedding tier needs core.embedding.http.base_url");
    if (!opts.model) throw config("the http embedding tier needs core.embedding.http.model");
    if (!(opts.batchSize >= 1)) {
      throw config(`core.embedding.http.batch_size must be at least 1, got ${opts.batchSize}`);
    }
    const base = trimTrailingSlash(opts.baseUrl);
    this.url = opts.api === "openai" ? `${base}/embeddings` : `${base}/api/embed`;
    this.dimension = opts.dimension;
  }

  /** Builds the provider and embeds one tiny probe, so an unreachable server fails here, not later. */
  static async connect(options: HttpEmbedderOptions, signal?: AbortSignal): Promise<HttpEmbedder> {
    const e = new HttpEmbedder({
      apiKey: "",
      dimension: 0,
      batchSize: 64,
      timeoutMs: 30_000,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      ...options,
    });
    await e.request(["probe"], signal);
    return e;
  }

  info(): EmbeddingInfo {
    const { api, model } = this.opts;
    return { dimension: this.dimension, fingerprint: `http:${api}:${model}:${this.dimension}`, modalities: ["text"] };
  }

  async embed(inputs: EmbeddingInput[], opts: { signal?: AbortSignal } = {}): Promise<Float32Array[]> {
    const texts = textsOf(this.name, inputs);
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.opts.batchSize) {
      out.push(...(await this.request(texts.slice(i, i + this.opts.batchSize), opts.signal)));
    }
    return out;
  }

  private async request(texts: string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const { model, apiKey, timeoutMs } = this.opts;
    const timeout = AbortSignal.timeout(timeoutMs);
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    let res: Response;
    let body: string;
    try {
      res = await fetch(this.url, {
        method: "POST",
        headers,
        body: JSON.stringify({ model, input: texts }),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      const limit = res.ok ? this.opts.maxResponseBytes : ERROR_EXCERPT_BYTES;
      body = await readCappedText(res.body, limit, { truncate: !res.ok });
    } catch (err) {
      if (signal?.aborted) throw err;
      if (err instanceof BodyTooLargeError) {
        const what = `answered more than ${formatBytes(err.limitBytes)} for ${texts.length} texts`;
        throw this.error("embedding_invalid_data", `${what}; lower core.embedding.http.batch_size`, err);
      }
      const why = timeout.aborted ? `no answer within ${timeoutMs} ms` : causeOf(err);
      throw this.error("embedding_unavailable", `unreachable: ${why}; check core.embedding.http.base_url`, err);
    }
    if (!res.ok) throw this.error("embedding_unavailable", `answered ${res.status}: ${body.slice(0, 300)}`);
    const vectors = this.parse(body);
    if (vectors.length !== texts.length) {
      throw this.error("embedding_invalid_data", `returned ${vectors.length} vectors for ${texts.length} texts`);
    }
    for (const v of vectors) this.checkDimension(v.length);
    return vectors.map((v) => Float32Array.from(v));
  }

  private parse(body: string): number[][] {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      // No cause: JSON.parse quotes the body in its message, and the body may echo the API key.
      throw this.error("embedding_invalid_data", `sent invalid JSON: ${body.slice(0, 200)}`);
    }
    const vectors = this.opts.api === "openai" ? openaiVectors(json) : isObject(json) ? json.embeddings : undefined;
    if (!Array.isArray(vectors) || !vectors.every(isVector)) {
      throw this.error("embedding_invalid_data", `sent no ${this.opts.api} embeddings: ${body.slice(0, 200)}`);
    }
    return vectors;
  }

  private checkDimension(got: number): void {
    if (this.dimension === 0) {
      this.dimension = got;
      return;
    }
    if (got !== this.dimension) {
      const expected = this.opts.dimension ? "core.embedding.http.dimension is" : "the first answer had";
      throw new EmbeddingError({
        code: "embedding_invalid_data",
        message: `embedding model ${this.opts.model} returned ${got} dimensions but ${expected} ${this.dimension}; vectors of different widths cannot be compared`,
      });
    }
  }

  /** An error about the server; a key the server echoed back is redacted from it. */
  private error(code: EmbeddingErrorCode, what: string, cause?: unknown): EmbeddingError {
    const message = redactSecret(`embedding server ${this.url} ${what}`, this.opts.apiKey);
    return new EmbeddingError({ code, message, cause });
  }
}

function openaiVectors(json: unknown): unknown[] | undefined {
  if (!isObject(json) || !Array.isArray(json.data) || !json.data.every(isObject)) return undefined;
  // The OpenAI API labels each vector with its input's index; order by it rather than trusting array order.
  const indexOf = (d: Record<string, unknown>) => (typeof d.index === "number" ? d.index : 0);
  return [...json.data].sort((a, b) => indexOf(a) - indexOf(b)).map((d) => d.embedding);
}

function isVector(v: unknown): v is number[] {
  return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "number");
}
