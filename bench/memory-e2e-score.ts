/**
 * The scoring rules of bench/memory-e2e.ts, exactly as issue 8 defines them, kept pure so a test checks the
 * definition itself: any faithful memory implementation must get the same figure from the same requests.
 *
 * - A request's text: every message content except the newest user message, joined by spaces.
 * - Normalising: lower-case; each run of characters other than [0-9a-z] and \u4e00-\u9fff → one space; trim.
 * - An evidence turn is present when, normalised, it is ≤ 40 characters and occurs whole in the normalised
 *   request, or it is longer and at least half of its 40-character windows starting at 0, 8, 16, …
 *   (≤ length − 40) occur in it.
 * - A question scores the share of its evidence turns present.
 * - Prompt tokens: characters of the messages' contents plus the JSON of the tool definitions, over 4.
 */

export const WINDOW = 40;
export const STRIDE = 8;

/** An OpenAI chat-completions request body, as far as scoring reads it. */
export interface RequestBody {
  messages?: Array<{ role?: string; content?: unknown }>;
  tools?: unknown;
}

export function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^0-9a-z\u4e00-\u9fff]+/g, " ")
    .trim();
}

/** A message's content as text: a string, or the text parts of a content array. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part) => (typeof part?.text === "string" ? part.text : typeof part === "string" ? part : ""))
    .filter(Boolean)
    .join(" ");
}

/** Index of the newest message with role user, or -1. */
function newestUser(messages: Array<{ role?: string }>): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === "user") return i;
  return -1;
}

/** Every message content except the newest user message, joined by spaces. */
export function requestText(body: RequestBody): string {
  const messages = body.messages ?? [];
  const skip = newestUser(messages);
  return messages
    .filter((_m, i) => i !== skip)
    .map((m) => contentText(m.content))
    .join(" ");
}

/** The newest user message's text (to tell which request a question caused). */
export function newestUserText(body: RequestBody): string {
  const messages = body.messages ?? [];
  const i = newestUser(messages);
  return i < 0 ? "" : contentText(messages[i].content);
}

/** Whether one evidence turn's text is present in an already normalised request text. */
export function isPresent(evidence: string, normalisedRequest: string): boolean {
  const e = normalise(evidence);
  if (e.length <= WINDOW) return normalisedRequest.includes(e);
  let windows = 0;
  let found = 0;
  for (let at = 0; at <= e.length - WINDOW; at += STRIDE) {
    windows++;
    if (normalisedRequest.includes(e.slice(at, at + WINDOW))) found++;
  }
  return found * 2 >= windows;
}

/** Share of the evidence turns present in the request; a request that never came scores 0. */
export function scoreQuestion(evidence: string[], body: RequestBody | null): number {
  if (!body || evidence.length === 0) return 0;
  const text = normalise(requestText(body));
  return evidence.filter((e) => isPresent(e, text)).length / evidence.length;
}

export function promptTokens(body: RequestBody): number {
  const chars = (body.messages ?? []).reduce((n, m) => n + contentText(m.content).length, 0);
  const tools = body.tools === undefined ? 0 : JSON.stringify(body.tools).length;
  return (chars + tools) / 4;
}

export interface ScoredQuestion {
  category: number;
  score: number;
}

/** Mean score over questions, and per category (keys are the category numbers). */
export function summarise(scored: ScoredQuestion[]): { recall: number; by_category: Record<string, number> } {
  const mean = (xs: number[]) => (xs.length ? round(xs.reduce((a, b) => a + b, 0) / xs.length) : 0);
  const categories = [...new Set(scored.map((s) => s.category))].sort((a, b) => a - b);
  const by_category: Record<string, number> = {};
  for (const c of categories) by_category[c] = mean(scored.filter((s) => s.category === c).map((s) => s.score));
  return { recall: mean(scored.map((s) => s.score)), by_category };
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
