/**
 * Long texts and tool definitions of a request kept out of the Lua worker. An adapter that declares
 * `pass_through_text` only moves them around (the OpenAI-compatible ones copy message texts and the tools
 * list into the wire body as they are), so it gets a short stand-in for each long string and for each tool
 * definition, and the host puts them back into the body it returns. Decoding and encoding JSON in Lua costs
 * ≈ 0.1–0.2 ms per KB (a 12 KB prompt: 1.8–2.7 ms for transform_request; 25 tool definitions ≈ 1.5 ms), on
 * every LLM call of every turn; with stand-ins the adapter handles a few hundred bytes whatever the size.
 *
 * A text's stand-in is `\uE000<n>\uE001`: private-use characters, which neither JSON encoder escapes, so
 * it comes back verbatim wherever the adapter put it, also inside a longer string it built. A tool's is the
 * string `\uE002<n>\uE003`, an element of the tools list where the definition was; its whole JSON string
 * (quotes included) becomes the definition again. A request that holds any of these characters itself (a
 * page the agent read, say) is sent without stand-ins: put back, its text would be taken for one. Texts go
 * out as the Lua path sent them: a lone surrogate, which has no UTF-8 form, as U+FFFD.
 */

/** Strings at least this long are replaced: shorter ones cost less to copy than to stand in for. */
export const STAND_IN_MIN_CHARS = 128;
const OPEN = "\uE000";
const CLOSE = "\uE001";
const TOOL_OPEN = "\uE002";
const TOOL_CLOSE = "\uE003";
const MARKS = /[\uE000-\uE003]/;
const STAND_IN = /\uE000(\d+)\uE001/g;
const TOOL_STAND_IN = /"\uE002(\d+)\uE003"/g;

export interface StandIns {
  /** The request as JSON, its long strings and tool definitions replaced by stand-ins. */
  wire: string;
  /** The adapter's JSON body with every stand-in replaced by what it stands for. */
  restore(body: string): string;
}

export function withStandIns(request: object): StandIns {
  const texts: string[] = [];
  const tools: string[] = [];
  const listed = (request as { tools?: unknown }).tools;
  const toolList = Array.isArray(listed) ? listed : null;
  let marked = false;
  const wire = JSON.stringify(request, function (this: unknown, key: string, value: unknown) {
    if (MARKS.test(key)) marked = true;
    if (this === toolList && typeof value === "object" && value !== null) {
      const json = JSON.stringify(value, (_k, v: unknown) => (typeof v === "string" ? wellFormed(v) : v));
      if (MARKS.test(json)) marked = true;
      tools.push(json);
      return `${TOOL_OPEN}${tools.length - 1}${TOOL_CLOSE}`;
    }
    if (typeof value !== "string") return value;
    if (MARKS.test(value)) marked = true;
    if (marked || value.length < STAND_IN_MIN_CHARS) return value;
    texts.push(value);
    return `${OPEN}${texts.length - 1}${CLOSE}`;
  });
  if (marked) return { wire: JSON.stringify(request), restore: (body) => body };
  return {
    wire,
    restore: (body) =>
      body
        .replace(TOOL_STAND_IN, (whole, n: string) => tools[Number(n)] ?? whole)
        .replace(STAND_IN, (whole, n: string) => {
          const text = texts[Number(n)];
          return text === undefined ? whole : JSON.stringify(wellFormed(text)).slice(1, -1);
        }),
  };
}

/** String.prototype.toWellFormed: ES2024, in Node 20, but not in the ES2023 library the project compiles with. */
function wellFormed(text: string): string {
  return (text as string & { toWellFormed(): string }).toWellFormed();
}
