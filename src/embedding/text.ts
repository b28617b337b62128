/**
 * The one tokenizer every index uses (FTS5, TF-IDF, word vectors), and CleanText. CJK runs are cut by
 * jieba's search mode (which also emits the shorter words inside long ones, e.g. 北京大学 → 北京, 大学);
 * Latin text is split into lower-cased words. FTS5 then indexes the space-joined tokens, because its
 * own tokenizers cannot segment Chinese. jieba's dictionary is loaded by the first CJK text (segmenter.ts).
 */
import { segmenter } from "./segmenter.js";
import { STOP_WORDS } from "./stopwords.js";

const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
const CJK_CHAR = new RegExp(CJK_RUN.source, "u");
const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)*/gu;
const ZERO_WIDTH = /[\u200b-\u200f\u2060\ufeff]/g;
const CONTROL = /\p{Cc}/gu;
/** Prompt-template markers that say nothing about content, e.g. `[打断消息]`, `{{user}}`, `<|im_end|>`. */
const TEMPLATE_NOISE = /\[打断消息\]|\[来源:[^\]]*\]|\{\{[^}]*\}\}|<\|[^|>]*\|>/g;

/** Normalises text before anything is indexed or embedded: Unicode width, noise, whitespace. */
export function cleanText(text: string): string {
  return text
    .normalize("NFKC")
    .replace(ZERO_WIDTH, "")
    .replace(CONTROL, " ")
    .replace(TEMPLATE_NOISE, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Tokens of `text`, in order, stop words removed. Shared, not copied: one text is tokenized for the query,
 * its keyword row and its vector, so the last few texts' tokens are kept (see analysed).
 */
export function tokenize(text: string): readonly string[] {
  return analysed(text).tokens;
}

/** Whether `text` has a character that `tokenize` would cut with jieba (and so load its dictionary for). */
export function hasCjk(text: string): boolean {
  return CJK_CHAR.test(text);
}

/**
 * The CJK runs of `text` as `tokenize` sees them (cleaned, lower-cased), for character-level features.
 * Taken from a recent analysis when there is one, else found without segmenting (and not remembered: the
 * graph's keyword ranking asks this of single tokens, which would push the turn's texts out).
 */
export function cjkRuns(text: string): readonly string[] {
  return recentAnalysis(text)?.cjkRuns ?? runsOf(cleanText(text).toLowerCase());
}

/** Drops the remembered analyses: a forget leaves no copy of the words it removed, not even here. */
export function forgetRecentTexts(): void {
  recent.clear();
}

interface Analysis {
  tokens: readonly string[];
  cjkRuns: readonly string[];
}

/**
 * A turn analyses the same few texts several times (its input as the query, as a window item, as that
 * item's vector; its reply likewise), and cleaning plus segmenting costs far more than finding the text
 * again. So the most recent texts are remembered, by their exact content; long ones are not, whose lookup
 * would hash them and whose tokens would stay in memory.
 */
const recent = new Map<string, Analysis>();
const RECENT_TEXTS = 32;
const RECENT_MAX_CHARS = 16 * 1024;

/** The remembered analysis of `text`, made the most recent; undefined if there is none. */
function recentAnalysis(text: string): Analysis | undefined {
  if (text.length > RECENT_MAX_CHARS) return undefined;
  const known = recent.get(text);
  if (known) {
    recent.delete(text);
    recent.set(text, known);
  }
  return known;
}

function analysed(text: string): Analysis {
  const known = recentAnalysis(text);
  if (known) return known;
  const clean = cleanText(text).toLowerCase();
  const tokens: string[] = [];
  let last = 0;
  for (const m of clean.matchAll(CJK_RUN)) {
    latinWords(clean.slice(last, m.index), tokens);
    for (const t of segmenter().cutForSearch(m[0], true)) {
      if (t.trim() && !STOP_WORDS.has(t)) tokens.push(t);
    }
    last = m.index + m[0].length;
  }
  latinWords(clean.slice(last), tokens);
  const out = { tokens: Object.freeze(tokens), cjkRuns: runsOf(clean) };
  if (text.length <= RECENT_MAX_CHARS) {
    // The least recently used goes first: a Map keeps insertion order, and a hit is inserted again.
    if (recent.size >= RECENT_TEXTS) recent.delete(recent.keys().next().value as string);
    recent.set(text, out);
  }
  return out;
}

function runsOf(clean: string): readonly string[] {
  return Object.freeze(Array.from(clean.matchAll(CJK_RUN), (m) => m[0]));
}

function latinWords(text: string, out: string[]): void {
  for (const m of text.matchAll(WORD)) {
    const w = m[0].replace(/’/g, "'");
    if (!STOP_WORDS.has(w)) out.push(w.endsWith("'s") ? w.slice(0, -2) : w);
  }
}
