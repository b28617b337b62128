/**
 * Model output as HTML, without a DOM (so node tests run exactly what the page runs): marked with raw HTML
 * switched off, so a `<style>` or `<img onerror>` the model writes is shown as the text it is instead of
 * being parsed (a sanitizer that drops a raw `<style>` also drops everything after it when the tag is never
 * closed). Images load only from this origin's own files or data: URLs; any other image becomes a link, so
 * the page never even asks another origin for it. The sanitizer in sanitize.ts is the second wall.
 *
 * `block()` renders one piece of a reply with the link definitions of the pieces before it, which is what
 * lets a streamed reply be rendered piece by piece (md-blocks.ts) and still match a render of the whole.
 */
import { Marked, type Tokens } from "marked";

/** A reference-link definition (`[label]: href "title"`). */
export interface LinkDef {
  href: string;
  title?: string | null;
}

/** Reference-link definitions by normalised label (normalizeLabel), read only by the renderer. */
export type LinkDefs = ReadonlyMap<string, LinkDef>;

export interface RenderedBlock {
  html: string;
  /** Definitions this block made for labels `defs` did not hold (the caller adds them when it keeps the block). */
  defined: [string, LinkDef][];
  /** Normalised labels in brackets that neither `defs` nor the block itself defines (a later definition may). */
  wanted: string[];
}

const OPTIONS = { gfm: true, breaks: true, async: false } as const;

/**
 * Container markers (">" or a list marker) one line may open. marked recurses a few frames per level and
 * overflows the stack in the low thousands; a reply nested deeper than this is shown as plain text instead.
 */
export const MAX_NESTING = 32;
const DEEP_MARKERS = new RegExp(`^(?:[ \\t]*(?:>|(?:[-+*]|\\d{1,9}[.)])(?=[ \\t]))){${MAX_NESTING + 1}}`, "m");
/** A list item indented this far is nested about as deep (marked's time grows fast with it, too). */
const DEEP_INDENT = new RegExp(`^[ \\t]{${MAX_NESTING * 3},}(?:[-+*]|\\d{1,9}[.)])(?:[ \\t]|$)`, "m");
/** Text in brackets that could be a reference label: no unescaped bracket inside, as a definition requires. */
const BRACKETED = /\[((?:\\[\s\S]|[^[\]\\])+)\]/g;

export class MarkdownRenderer {
  private readonly marked: Marked;

  /** `origin` is the page's own (location.origin): images from it, and data: images, are shown. */
  constructor(readonly origin: string) {
    this.marked = new Marked(OPTIONS, {
      // Returning nothing (not false) makes marked try its other rules: the text stays text.
      tokenizer: { html: () => undefined, tag: () => undefined },
      renderer: {
        image: (token: Tokens.Image) => (imageAllowed(token.href, origin) ? false : imageAsLink(token)),
        // Only web, mail and same-origin links; anything else (javascript:, data:…) keeps just its text.
        link(token: Tokens.Link) {
          return linkAllowed(token.href) ? false : this.parser.parseInline(token.tokens);
        },
        checkbox: ({ checked }: Tokens.Checkbox) => (checked ? "☑ " : "☐ "),
      },
    });
  }

  /** The whole text at once (the reference the piecewise render must match), degraded like `block()`. */
  whole(text: string): string {
    if (tooDeep(text)) return this.degraded(text, new Map(), []).html;
    try {
      return this.marked.parse(text, OPTIONS) as string;
    } catch {
      return plainText(text);
    }
  }

  /**
   * One piece, resolving reference links against `defs` (the definitions of earlier pieces). Only the
   * labels the piece has in brackets are handed to marked, so a render costs what the piece holds, not
   * what the reply defined so far. A piece marked cannot render is shown as text; one nested too deep
   * for marked, paragraph by paragraph (degraded).
   */
  block(src: string, defs: LinkDefs): RenderedBlock {
    const labels = bracketedLabels(src);
    if (tooDeep(src)) return this.degraded(src, defs, labels);
    const lexer = new this.marked.Lexer(this.marked.defaults);
    const links = lexer.tokens.links as Record<string, LinkDef>;
    for (const label of labels) {
      const def = defs.get(label);
      if (def) links[label] = def;
    }
    let html: string;
    try {
      html = this.marked.Parser.parse(lexer.lex(src), this.marked.defaults);
    } catch {
      return { html: plainText(src), defined: [], wanted: labels.filter((l) => !defs.has(l)) };
    }
    const defined = Object.entries(links).filter(([label]) => !defs.has(label));
    return { html, defined, wanted: labels.filter((label) => !(label in links)) };
  }

  /** A piece nested too deep: its paragraphs that are rendered as usual, the others as plain text. */
  private degraded(src: string, defs: LinkDefs, labels: string[]): RenderedBlock {
    let html = "";
    const defined = new Map<string, LinkDef>();
    let run = "";
    const flush = () => {
      if (run === "") return;
      const out = this.block(run, defs);
      html += out.html;
      for (const [label, def] of out.defined) if (!defined.has(label)) defined.set(label, def);
      run = "";
    };
    for (const part of src.split(/(?<=\n[ \t]*\n)/)) {
      if (tooDeep(part)) {
        flush();
        html += plainText(part);
      } else {
        run += part;
      }
    }
    flush();
    return { html, defined: [...defined], wanted: labels.filter((l) => !defs.has(l) && !defined.has(l)) };
  }
}

/** A label as marked normalises it, both where it is defined and where it is used. */
export function normalizeLabel(label: string): string {
  return label.trim().replace(/\s+/g, " ").toLowerCase().toUpperCase().toLowerCase();
}

function bracketedLabels(src: string): string[] {
  if (!src.includes("[")) return [];
  const labels = new Set<string>();
  for (const match of src.matchAll(BRACKETED)) {
    const label = normalizeLabel(match[1]);
    if (label !== "") labels.add(label);
  }
  return [...labels];
}

function tooDeep(src: string): boolean {
  return DEEP_MARKERS.test(src) || DEEP_INDENT.test(src);
}

/** Text marked could not render, whole and escaped: nothing is lost, only the formatting. */
export function plainText(src: string): string {
  return `<pre>${escapeHtml(src)}</pre>\n`;
}

/**
 * Whether an image may be loaded: a data:image URL, or a file of this origin outside the API (an image
 * URL of the API would be fetched with the session cookie, so a reply could make the page call a GET route).
 */
export function imageAllowed(href: string, origin: string): boolean {
  const trimmed = href.trim();
  if (/^data:image\//i.test(trimmed)) return true;
  let url: URL;
  try {
    url = new URL(trimmed, `${origin}/`);
  } catch {
    return false;
  }
  return url.origin === origin && !url.pathname.toLowerCase().startsWith("/api/");
}

/** http(s), mailto, or no scheme at all (a path of this origin or a #fragment). */
function linkAllowed(href: string): boolean {
  const scheme = /^\s*([a-z][a-z0-9+.-]*):/i.exec(href)?.[1]?.toLowerCase();
  return scheme === undefined || scheme === "http" || scheme === "https" || scheme === "mailto";
}

/** A refused image as a link to it (http/https only), its alt text (or its URL) as the link text. */
function imageAsLink({ href, text }: Tokens.Image): string {
  const label = escapeHtml(text || href);
  return /^https?:\/\//i.test(href.trim()) ? `<a href="${escapeHtml(href.trim())}">${label}</a>` : label;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
