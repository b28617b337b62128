/**
 * The second wall around model output. md-render.ts already shows raw HTML as text and never emits an
 * image of another origin; the HTML it makes still goes through DOMPurify (an instance of its own, so its
 * hooks and settings touch nothing else) with only the tags and attributes marked makes, and comes out as
 * a DocumentFragment to append, so the page parses it once. Links open in a new tab without an opener;
 * an image whose source is not allowed loses it, so no request leaves for it.
 */
import DOMPurify from "dompurify";
import { imageAllowed, MarkdownRenderer } from "./md-render";

const TAGS = [
  // The root DOMPurify walks from: were it not allowed, DOMPurify would copy the whole content out of it.
  "body",
  "p",
  "br",
  "hr",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "strong",
  "em",
  "del",
  "code",
  "pre",
  "blockquote",
  "ul",
  "ol",
  "li",
  "table",
  "thead",
  "tbody",
  "tr",
  "th",
  "td",
  "a",
  "img",
];
const ATTRS = ["href", "title", "alt", "src", "align", "start", "class"];

const purify = DOMPurify(window);
purify.addHook("afterSanitizeAttributes", (node) => {
  const element = node as Element;
  if (element.tagName === "A") {
    element.setAttribute("target", "_blank");
    element.setAttribute("rel", "noopener noreferrer");
  } else if (element.tagName === "IMG" && !imageAllowed(element.getAttribute("src") ?? "", location.origin)) {
    element.removeAttribute("src");
  }
  // marked's only class is a code block's language; page classes stay out of reach of model output.
  const cls = element.getAttribute?.("class");
  if (cls && !/^language-[\w+#.-]+$/.test(cls)) element.removeAttribute("class");
});

/** Marked's HTML for model output as nodes to append: sanitized, parsed once. */
export function sanitizedFragment(html: string): DocumentFragment {
  return purify.sanitize(html, {
    ALLOWED_TAGS: TAGS,
    ALLOWED_ATTR: ATTRS,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  });
}

let renderer: MarkdownRenderer | undefined;

/** The Markdown renderer for this page's origin. */
export function pageRenderer(): MarkdownRenderer {
  renderer ??= new MarkdownRenderer(location.origin);
  return renderer;
}
