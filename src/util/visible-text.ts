/**
 * What the user approves must be what they see. A question built from a model's arguments could carry an
 * ANSI escape that clears the line, a CR that overwrites it, or a bidi override that reverses `rm -rf ~`
 * into something harmless-looking; this makes every such character visible as an escape before a client
 * shows the text (the approvals broker for questions, waiter for every notice it prints). Long text is cut,
 * and the cut said.
 */

const NAMED: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t", "\u001b": "\\e" };

/**
 * C0 controls (newline and tab included: a line break can fake a second prompt line), DEL, C1 controls,
 * bidi embeddings, overrides, isolates and marks, zero-width characters, line and paragraph separators.
 */
const INVISIBLE: ReadonlyArray<readonly [number, number]> = [
  [0x00, 0x1f],
  [0x7f, 0x9f],
  // Soft hyphen, combining grapheme joiner, Arabic letter mark, Hangul fillers, Mongolian vowel separator.
  [0xad, 0xad],
  [0x34f, 0x34f],
  [0x61c, 0x61c],
  [0x115f, 0x1160],
  [0x180e, 0x180e],
  [0x200b, 0x200f],
  [0x2028, 0x202e],
  [0x2060, 0x206f],
  [0x3164, 0x3164],
  // Variation selectors, the BOM, halfwidth Hangul filler, interlinear annotation marks, tag characters.
  [0xfe00, 0xfe0f],
  [0xfeff, 0xfeff],
  [0xffa0, 0xffa0],
  [0xfff9, 0xfffb],
  [0xe0000, 0xe007f],
];

export const MAX_QUESTION_CHARS = 2_000;

function isInvisible(code: number): boolean {
  return INVISIBLE.some(([from, to]) => code >= from && code <= to);
}

function shown(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  if (!isInvisible(code)) return c;
  return NAMED[c] ?? `\\u{${code.toString(16).padStart(4, "0")}}`;
}

export function visibleText(text: string, max = MAX_QUESTION_CHARS): string {
  let out = "";
  let read = 0;
  for (const c of text) {
    if (out.length >= max) break;
    out += shown(c);
    read += c.length;
  }
  // An escape may take the last few characters past `max`: all of the text is shown, so nothing is cut.
  if (read === text.length) return out;
  // What is cut is counted in characters of the text, not escaped: no work is spent on what is not shown.
  return `${out.slice(0, max)}… [${text.length - read} more characters not shown]`;
}

/** Whether `text` holds a character visibleText would escape. */
export function hasInvisible(text: string): boolean {
  for (const c of text) if (isInvisible(c.codePointAt(0) ?? 0)) return true;
  return false;
}
