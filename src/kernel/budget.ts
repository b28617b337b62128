/**
 * The token budget of one LLM request (inventory §3.4): it must fit 0.8 × the source's context window,
 * leaving the rest for the reply. Tokens are estimated, not counted: no tokenizer matches every model, and
 * a cheap estimate that is fair to Chinese (about one token per CJK character, one per four Latin
 * characters) keeps requests in range; a provider's "context length exceeded" covers the misses.
 */
import type { ContextMessage } from "@homeagent/sdk";
import type { ChatMessage } from "./llm-spec.js";

/** Assumed when a source's window is unknown: small enough for most local models, large enough to work. */
export const DEFAULT_CONTEXT_WINDOW = 32_768;
const REQUEST_SHARE = 0.8;
/** Role markers and separators around each message. */
export const MESSAGE_OVERHEAD = 4;
const DROPPED_RESULT = "[earlier tool result dropped to fit the context window]";

export function estimateTokens(text: string): number {
  if (!text) return 0;
  // Most prompt text has no character past U+2FFF at all; this test answers that without a loop (at once
  // for a string V8 stores one byte a character).
  if (!MAYBE_CJK.test(text)) return Math.ceil(text.length / 4);
  let cjk = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x3000 && isCjk(c)) cjk++;
  }
  return cjk + Math.ceil((text.length - cjk) / 4);
}

const MAYBE_CJK = /[\u3000-\uffef]/;

/**
 * Han, kana, Hangul, CJK punctuation and full-width forms: roughly one token each in common tokenizers. A
 * loop over code units, not a global regex match: every prompt text is estimated several times per turn,
 * and the match built an array of every CJK character.
 */
function isCjk(c: number): boolean {
  return (
    (c >= 0x4e00 && c <= 0x9fff) ||
    (c >= 0x3000 && c <= 0x30ff) ||
    (c >= 0x3400 && c <= 0x4dbf) ||
    (c >= 0xac00 && c <= 0xd7af) ||
    (c >= 0xf900 && c <= 0xfaff) ||
    (c >= 0xff00 && c <= 0xffef)
  );
}

/**
 * A message's count, computed once per message: composing a request counts its messages and every LLM call
 * of the turn counts them again (fitToBudget). Messages are never changed in place — a cut replaces one.
 */
const counted = new WeakMap<ChatMessage | ContextMessage, number>();

export function messageTokens(m: ChatMessage | ContextMessage): number {
  let n = counted.get(m);
  if (n === undefined) {
    n = MESSAGE_OVERHEAD + estimateTokens(m.content);
    if ("reasoning_content" in m && m.reasoning_content) n += estimateTokens(m.reasoning_content);
    if ("tool_calls" in m && m.tool_calls?.length) n += estimateTokens(JSON.stringify(m.tool_calls));
    counted.set(m, n);
  }
  return n;
}

/** The longest start of `text` whose estimate fits `tokens`, marked as cut when it is shorter than `text`. */
export function truncateToTokens(text: string, tokens: number): string {
  if (estimateTokens(text) <= tokens) return text;
  const mark = " …[cut]";
  const room = tokens - estimateTokens(mark);
  if (room <= 0) return "";
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (estimateTokens(text.slice(0, mid)) <= room) lo = mid;
    else hi = mid - 1;
  }
  return `${text.slice(0, lo)}${mark}`;
}

export function requestBudget(contextWindow: number): number {
  return Math.floor(REQUEST_SHARE * (contextWindow > 0 ? contextWindow : DEFAULT_CONTEXT_WINDOW));
}

/** The items that fit `budget`, preferring the newest; returned oldest-first, as given. */
export function newestThatFit<T>(items: T[], budget: number, cost: (item: T) => number): T[] {
  let used = 0;
  let start = items.length;
  while (start > 0) {
    const next = used + cost(items[start - 1]);
    if (next > budget) break;
    used = next;
    start--;
  }
  return items.slice(start);
}

/** The items that fit `budget`, in order, skipping any too large for what is left (memory ranks first-best). */
export function firstThatFit<T>(items: T[], budget: number, cost: (item: T) => number): T[] {
  let left = budget;
  return items.filter((item) => {
    const c = cost(item);
    if (c > left) return false;
    left -= c;
    return true;
  });
}

export function totalTokens(messages: ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + messageTokens(m), 0);
}

/**
 * Shrinks a request that grew past its budget during the tool loop: tool results are dropped oldest first
 * (never those of the latest round, which the model is about to read), then the timeline. Changes
 * `messages` in place, so later rounds keep the savings. Returns whether anything changed.
 */
export function fitToBudget(messages: ChatMessage[], budget: number): boolean {
  let total = totalTokens(messages);
  let changed = false;
  for (const i of olderToolResults(messages)) {
    if (total <= budget) return changed;
    total -= messageTokens(messages[i]);
    messages[i] = { ...messages[i], content: DROPPED_RESULT };
    total += messageTokens(messages[i]);
    changed = true;
  }
  if (total > budget) changed = dropTimeline(messages) || changed;
  return changed;
}

/**
 * After a provider said the request was too long: drop the timeline and every older tool result at once.
 * Returns false when there was nothing left to drop (asking again would fail the same way).
 */
export function pruneForRetry(messages: ChatMessage[]): boolean {
  let changed = dropTimeline(messages);
  for (const i of olderToolResults(messages)) {
    messages[i] = { ...messages[i], content: DROPPED_RESULT };
    changed = true;
  }
  return changed;
}

/** Indexes of tool results before the latest assistant message whose content is still there, oldest first. */
function olderToolResults(messages: ChatMessage[]): number[] {
  const lastAssistant = messages.findLastIndex((m) => m.role === "assistant");
  const out: number[] = [];
  for (let i = 0; i < lastAssistant; i++) {
    if (messages[i].role === "tool" && messages[i].content !== DROPPED_RESULT) out.push(i);
  }
  return out;
}

/**
 * The timeline messages compose made, known by identity: a message whose text merely starts like the
 * timeline (a plugin's, a client's) is never taken for it, and the header's wording can change freely.
 */
const timelines = new WeakSet<ChatMessage>();

/** Marks `message` as the request's timeline, the section dropped when a request must shrink. */
export function tagTimeline(message: ChatMessage): ChatMessage {
  timelines.add(message);
  return message;
}

function dropTimeline(messages: ChatMessage[]): boolean {
  const i = messages.findIndex((m) => timelines.has(m));
  if (i < 0) return false;
  messages.splice(i, 1);
  return true;
}
