/**
 * What a local model server says about its models: Ollama's `/api/tags` and `/api/show`, and the
 * `/models` list of OpenAI-compatible servers (vLLM, LM Studio, llama.cpp). Every call has a short
 * time limit and a size limit, and failure means "unknown", never an error: a server that does not answer
 * (or answers without end) must not slow the daemon's start or stop a source from being used.
 */
import { readCappedText } from "../../util/capped-body.js";
import { isObject } from "../../util/object.js";
import { trimTrailingSlash } from "../../util/url.js";
import type { SourceInfo } from "../source-state.js";

export const DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434";

/** A model list or a model's details; far more than any real one (Ollama's /api/show with a long license). */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

export interface ProbeOptions {
  timeoutMs?: number;
  apiKey?: string;
}

/**
 * The first model of an Ollama server that can chat (embedding-only models are skipped), or undefined
 * when nothing answers at `baseUrl` or it has no chat model.
 */
export async function detectOllama(baseUrl: string, opts: ProbeOptions = {}): Promise<string | undefined> {
  const tags = await getJson(`${trimTrailingSlash(baseUrl)}/api/tags`, opts);
  const models = isObject(tags) && Array.isArray(tags.models) ? tags.models : [];
  for (const m of models) {
    const name = isObject(m) ? (m.model ?? m.name) : undefined;
    if (typeof name !== "string" || !name) continue;
    const show = await showOllamaModel(baseUrl, name, opts);
    // Servers older than the `capabilities` field say nothing; then the name is the only hint.
    const canChat = show?.capabilities ? show.capabilities.includes("completion") : !/embed/i.test(name);
    if (canChat) return name;
  }
  return undefined;
}

/** Context length and tool support of one Ollama model (POST /api/show). */
export async function probeOllamaModel(baseUrl: string, model: string, opts: ProbeOptions = {}): Promise<SourceInfo> {
  const show = await showOllamaModel(baseUrl, model, opts);
  if (!show) return {};
  const info: SourceInfo = {};
  if (show.contextLength) info.contextWindow = show.contextLength;
  if (show.capabilities) info.supportsTools = show.capabilities.includes("tools");
  return info;
}

/** Context length of `model` from an OpenAI-compatible server's GET <base_url>/models, when it says. */
export async function probeOpenAIModel(baseUrl: string, model: string, opts: ProbeOptions = {}): Promise<SourceInfo> {
  const list = await getJson(`${trimTrailingSlash(baseUrl)}/models`, opts);
  const data = isObject(list) && Array.isArray(list.data) ? list.data.filter(isObject) : [];
  const entry = model ? data.find((m) => m.id === model) : data[0];
  if (!entry) return {};
  const meta = isObject(entry.meta) ? entry.meta : {};
  // vLLM: max_model_len; OpenRouter and LM Studio: context_length / max_context_length; llama.cpp: meta.n_ctx.
  const window = [entry.max_model_len, entry.context_length, entry.max_context_length, entry.context_window, meta.n_ctx]
    .map(positiveInt)
    .find((n) => n !== undefined);
  return window ? { contextWindow: window } : {};
}

/** Whether a base URL points at this machine (only local servers are asked about their models). */
export function isLoopback(baseUrl: string): boolean {
  try {
    const host = new URL(baseUrl).hostname;
    return host === "localhost" || host === "[::1]" || /^127\./.test(host);
  } catch {
    return false;
  }
}

interface OllamaShow {
  contextLength?: number;
  capabilities?: string[];
}

async function showOllamaModel(baseUrl: string, model: string, opts: ProbeOptions): Promise<OllamaShow | undefined> {
  const show = await postJson(`${trimTrailingSlash(baseUrl)}/api/show`, { model }, opts);
  if (!isObject(show)) return undefined;
  const out: OllamaShow = {};
  if (Array.isArray(show.capabilities)) out.capabilities = show.capabilities.filter((c) => typeof c === "string");
  // A num_ctx in the Modelfile is what the server actually runs with; the architecture's maximum is the fallback.
  const numCtx =
    typeof show.parameters === "string" ? /(?:^|\n)\s*num_ctx\s+(\d+)/.exec(show.parameters)?.[1] : undefined;
  const info = isObject(show.model_info) ? show.model_info : {};
  const arch = info["general.architecture"];
  const trained = typeof arch === "string" ? info[`${arch}.context_length`] : undefined;
  const contextLength = positiveInt(numCtx === undefined ? trained : Number(numCtx));
  if (contextLength) out.contextLength = contextLength;
  return out;
}

function getJson(url: string, opts: ProbeOptions): Promise<unknown> {
  return request(url, { method: "GET" }, opts);
}

function postJson(url: string, body: unknown, opts: ProbeOptions): Promise<unknown> {
  return request(
    url,
    { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } },
    opts,
  );
}

/** The answer as JSON, or undefined for anything else: no answer in time, an error, too large, not JSON. */
async function request(url: string, init: RequestInit, opts: ProbeOptions): Promise<unknown> {
  const headers = new Headers(init.headers);
  if (opts.apiKey) headers.set("authorization", `Bearer ${opts.apiKey}`);
  try {
    const res = await fetch(url, { ...init, headers, signal: AbortSignal.timeout(opts.timeoutMs ?? 1500) });
    if (!res.ok) {
      await res.body?.cancel();
      return undefined;
    }
    return JSON.parse(await readCappedText(res.body, MAX_ANSWER_BYTES));
  } catch {
    return undefined;
  }
}

function positiveInt(v: unknown): number | undefined {
  return typeof v === "number" && Number.isInteger(v) && v > 0 ? v : undefined;
}
