/**
 * Long texts of a request kept out of the Lua worker. An adapter that declares `pass_through_text` only
 * moves message texts around (the OpenAI-compatible ones copy them into the wire body as they are), so it
 * gets a short stand-in for each long string and the host puts the texts back into the body it returns.
 * Decoding and encoding JSON in Lua costs ≈ 0.1 ms per KB (a 12 KB prompt: 1.8–2.7 ms for
 * transform_request), on every LLM call of every turn; with stand-ins the adapter handles a few hundred
 * bytes whatever the prompt's size.
 *
 * A stand-in is `\uE000<n>\uE001`: private-use characters, which neither JSON encoder escapes, so it comes
 * back verbatim wherever the adapter put it, also inside a longer string it built. A request that holds
 * either character anywhere itself (a page the agent read, say) is sent without stand-ins: put back, its
 * text would otherwise be taken for one. A text goes out as the Lua path sent it: a lone surrogate, which
 * has no UTF-8 form, as U+FFFD.
 */

/** Strings at least this long are replaced: shorter ones cost less to copy than to stand in for. */
export const STAND_IN_MIN_CHARS = 128;
const OPEN = "\uE000";
const CLOSE = "\uE001";
const STAND_IN = /\uE000(\d+)\uE001/g;

export interface StandIns {
  /** The request as JSON, its long strings replaced by stand-ins. */
  wire: string;
  /** The adapter's JSON body with every stand-in replaced by its text (escaped for a JSON string). */
  restore(body: string): string;
}

export function withStandIns(request: unknown): StandIns {
  const texts: string[] = [];
  let marked = false;
  const wire = JSON.stringify(request, (key: string, value: unknown) => {
    if (hasMark(key)) marked = true;
    if (typeof value !== "string") return value;
    if (hasMark(value)) marked = true;
    if (marked || value.length < STAND_IN_MIN_CHARS) return value;
    texts.push(value);
    return `${OPEN}${texts.length - 1}${CLOSE}`;
  });
  if (marked) return { wire: JSON.stringify(request), restore: (body) => body };
  return {
    wire,
    restore: (body) =>
      texts.length === 0
        ? body
        : body.replace(STAND_IN, (whole, n: string) => {
            const text = texts[Number(n)];
            return text === undefined ? whole : JSON.stringify(wellFormed(text)).slice(1, -1);
          }),
  };
}

function hasMark(text: string): boolean {
  return text.includes(OPEN) || text.includes(CLOSE);
}

/** String.prototype.toWellFormed: ES2024, in Node 20, but not in the ES2023 library the project compiles with. */
function wellFormed(text: string): string {
  return (text as string & { toWellFormed(): string }).toWellFormed();
}
