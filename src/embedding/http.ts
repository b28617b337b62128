/**
 * The remote unified-space tier: an embeddings endpoint over HTTP, either OpenAI-compatible
 * (`POST {base_url}/embeddings`, `{model, input}` → `data[i].embedding`) or Ollama
 * (`POST {base_url}/api/embed`, `{model, input}` → `embeddings`). The first answer fixes the dimension;
 * any later answer of another width is an error, because vectors of two widths cannot share an index.
 */
import { maskSecret } from "../config/registry.js";
import type { EmbeddingInfo, EmbeddingInput, EmbeddingProvider } from "./spi.js";
import { textsOf } from "./text-only.js";

export type HttpEmbeddingApi = "openai" | "ollama";

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
}

export class HttpEmbedder implements EmbeddingProvider {
  readonly name = "http";
  private dimension: number;
  private readonly url: string;

  private constructor(private readonly opts: Required<HttpEmbedderOptions>) {
    if (opts.api !== "openai" && opts.api !== "ollama") {
      throw new Error(`core.embedding.http.api must be "openai" or "ollama", got ${JSON.stringify(opts.api)}`);
    }
    if (!opts.baseUrl) throw new Error("the http embedding tier needs core.embedding.http.base_url");
    if (!opts.model) throw new Error("the http embedding tier needs core.embedding.http.model");
    if (!(opts.batchSize >= 1)) throw new Error(`embedding batch size must be at least 1, got ${opts.batchSize}`);
    const base = opts.baseUrl.replace(/\/+$/, "");
    this.url = opts.api === "openai" ? `${base}/embeddings` : `${base}/api/embed`;
    this.dimension = opts.dimension;
  }

  /** Builds the provider and embeds one tiny probe, so an unreachable server fails here, not later. */
  static async connect(options: HttpEmbedderOptions, signal?: AbortSignal): Promise<HttpEmbedder> {
    const e = new HttpEmbedder({ apiKey: "", dimension: 0, batchSize: 64, timeoutMs: 30_000, ...options });
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
      body = await res.text();
    } catch (err) {
      if (signal?.aborted) throw err;
      const why = timeout.aborted ? `no answer within ${timeoutMs} ms` : causeOf(err);
      throw new Error(this.masked(`embedding server ${this.url} unreachable: ${why}`));
    }
    if (!res.ok) {
      throw new Error(this.masked(`embedding server ${this.url} answered ${res.status}: ${body.slice(0, 300)}`));
    }
    const vectors = this.parse(body);
    if (vectors.length !== texts.length) {
      throw new Error(`embedding server ${this.url} returned ${vectors.length} vectors for ${texts.length} texts`);
    }
    for (const v of vectors) this.checkDimension(v.length);
    return vectors.map((v) => Float32Array.from(v));
  }

  private parse(body: string): number[][] {
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw new Error(this.masked(`embedding server ${this.url} sent invalid JSON: ${body.slice(0, 200)}`));
    }
    const vectors =
      this.opts.api === "openai"
        ? openaiVectors(json as { data?: { embedding?: unknown; index?: number }[] })
        : (json as { embeddings?: unknown[] }).embeddings;
    if (!Array.isArray(vectors) || !vectors.every((v) => Array.isArray(v) && v.every((x) => typeof x === "number"))) {
      throw new Error(
        this.masked(`embedding server ${this.url} sent no ${this.opts.api} embeddings: ${body.slice(0, 200)}`),
      );
    }
    return vectors as number[][];
  }

  private checkDimension(got: number): void {
    if (this.dimension === 0) {
      this.dimension = got;
      return;
    }
    if (got !== this.dimension) {
      const expected = this.opts.dimension ? "core.embedding.http.dimension is" : "the first answer had";
      throw new Error(
        `embedding model ${this.opts.model} returned ${got} dimensions but ${expected} ${this.dimension}; vectors of different widths cannot be compared`,
      );
    }
  }

  private masked(message: string): string {
    const key = this.opts.apiKey;
    return key ? message.split(key).join(maskSecret(key)) : message;
  }
}

function openaiVectors(json: { data?: { embedding?: unknown; index?: number }[] }): unknown[] | undefined {
  if (!Array.isArray(json?.data)) return undefined;
  // The OpenAI API labels each vector with its input's index; order by it rather than trusting array order.
  return [...json.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0)).map((d) => d.embedding);
}

/** fetch hides the real reason (ECONNREFUSED…) in `cause`. */
function causeOf(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}
