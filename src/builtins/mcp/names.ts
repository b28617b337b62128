/**
 * What of a server's tool list reaches the model. A server is someone else's code: its tool names must fit
 * every provider's rule (1–64 of letters, digits, "_" and "-"), and its descriptions are prompt text, so
 * control characters (ANSI escapes, NUL) and invisible ones (zero-width, bidi overrides, tag characters)
 * that could hide instructions are removed before anything is registered.
 */
import { createHash } from "node:crypto";

const MAX_NAME = 64;
/** Of a description: enough to choose the tool by, not a page of the server's prose in every prompt. */
export const MAX_DESCRIPTION = 1_024;

// Control characters (Cc), format ones (Cf: zero-width, bidi overrides, tags), line and paragraph
// separators, and the marks and fillers that draw nothing: variation selectors (which can spell out a whole
// hidden text), the combining grapheme joiner, Hangul fillers, the braille blank, Khmer and Mongolian ones.
const HIDDEN =
  /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\u115f\u1160\u17b4\u17b5\u2800\u3164\uffa0]|\u034f|\p{Variation_Selector}|[\u180b-\u180d]/gu;
const HAS_HIDDEN = new RegExp(HIDDEN.source, "u");

/** Whether `text` holds a character cleanText removes (a name that cannot be cleaned without changing it). */
export function hasHidden(text: string): boolean {
  return HAS_HIDDEN.test(text.replaceAll("\n", ""));
}

/** Text of a server shown to the model: hidden characters removed, blank runs folded, cut at `max`. */
export function cleanText(text: unknown, max = MAX_DESCRIPTION): string {
  const clean = String(text ?? "")
    // A newline stays (descriptions have paragraphs), a tab is a space, everything else goes.
    .replace(HIDDEN, (c) => (c === "\n" ? c : c === "\t" ? " " : ""))
    .replace(/[ \t]+/g, " ")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/**
 * `<server>_<tool>` as a provider accepts it: other characters become "_" (two tools that then meet are
 * refused by the registry, by name), and a name over 64 characters, or with no letter or digit left,
 * keeps its start and a hash of the whole, so such names stay apart.
 */
export function toolName(server: string, tool: string): string {
  const raw = `${server}_${cleanText(tool, 256)}`;
  const safe = raw.replace(/[^A-Za-z0-9_-]/g, "_");
  // A name written in another script would be all "_": its hash keeps it apart from its neighbours.
  const readable = /[A-Za-z0-9]/.test(safe.slice(server.length + 1));
  if (safe.length <= MAX_NAME && readable) return safe;
  const hash = createHash("sha256").update(raw).digest("hex").slice(0, 8);
  return `${safe.slice(0, MAX_NAME - 9)}_${hash}`;
}

/** `[MCP/<server>] <description>`: the model (and the user reading tool cards) sees where a tool comes from. */
export function toolDescription(server: string, title: unknown, description: unknown): string {
  const text = cleanText(description) || cleanText(title, 200) || "(no description)";
  return `[MCP/${server}] ${text}`;
}
