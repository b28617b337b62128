/**
 * How forgetting matches text, in one place for the daemon and for plugins' `onForget` handlers: a text
 * mentions what is forgotten when it holds every term, compared case-insensitively in every script, after
 * NFKC (full-width "ＺＯＲＧ" is "zorg") and with runs of white space as one space — and also where the
 * text is JSON, in which a term with quotes or backslashes is stored escaped (once, or twice for JSON
 * inside a JSON string, as a tool result inside an event).
 */

const NOT_ASCII = /[^\p{ASCII}]/u;
const SPACE_RUN = /\s{2,}|[^\S ]/;

/** Text as forgetting compares it. (NFKC leaves ASCII alone, and most texts need no space folding.) */
export function foldForForget(text: string): string {
  const normal = NOT_ASCII.test(text) ? text.normalize("NFKC") : text;
  const lower = normal.toLowerCase();
  return SPACE_RUN.test(lower) ? lower.replace(/\s+/g, " ") : lower;
}

/**
 * A test for "this text mentions every term", for the terms a forget names (`ForgetRequest.terms`). Build
 * it once and call it on every text of the plugin's own data. No terms, or an empty one, match nothing.
 */
export function forgetMatcher(terms: readonly string[]): (text: string) => boolean {
  const forms = terms.map((term) => {
    const plain = foldForForget(term).trim();
    const once = JSON.stringify(plain).slice(1, -1);
    const twice = JSON.stringify(once).slice(1, -1);
    return [...new Set([plain, once, twice])];
  });
  if (forms.length === 0 || forms.some((variants) => variants[0] === "")) return () => false;
  return (text) => {
    const folded = foldForForget(text);
    return forms.every((variants) => variants.some((v) => folded.includes(v)));
  };
}
