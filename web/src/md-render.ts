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

/** marked's table of reference-link definitions: normalised label → target. */
export type LinkDefs = Record<string, { href: string; title?: string | null }>;

export interface RenderedBlock {
  html: string;
  /** Labels this block defined that `defs` did not hold before (they are added to it). */
  added: string[];
}

const OPTIONS = { gfm: true, breaks: true, async: false } as const;

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

  /** The whole text at once (the reference the piecewise render must match). */
  whole(text: string): string {
    return this.marked.parse(text, OPTIONS) as string;
  }

  /**
   * One piece, resolving reference links against `defs` (the definitions of earlier pieces); the piece's
   * own new definitions are added to `defs`. Pass a copy when the piece is not final.
   */
  block(src: string, defs: LinkDefs): RenderedBlock {
    const lexer = new this.marked.Lexer(this.marked.defaults);
    const links = lexer.tokens.links as LinkDefs;
    Object.assign(links, defs);
    const tokens = lexer.lex(src);
    const added = Object.keys(links).filter((label) => !(label in defs));
    for (const label of added) defs[label] = links[label];
    return { html: this.marked.Parser.parse(tokens, this.marked.defaults), added };
  }
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
