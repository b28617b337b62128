/**
 * A reply rendered piece by piece as it streams must end as the render of the whole: for every document of
 * the corpus and every piece size, the pieces (with the re-renders that later link definitions cause) add
 * up to marked's render of the whole text, byte for byte. Also the limits: no tail is ever rendered over
 * the limit, and a forced cut keeps every character of code and every table row. Hostile replies: nesting
 * deeper than marked's stack, and link definitions after their use, which must not make streaming cubic.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Block, BlockSplitter } from "./md-blocks";
import { CORPUS, mixedReply } from "./md-corpus.test-data";
import { MarkdownRenderer, plainText } from "./md-render";
import { MAX_REDOS, MarkdownStream } from "./md-stream";

const renderer = new MarkdownRenderer("http://127.0.0.1:8080");
const SIZES = [1, 2, 3, 5, 8, 13, 64, 2000];

interface Outcome {
  html: string;
  pieces: number;
  headless: number[];
  longestTail: number;
  tailRenders: number;
}

/** Streams `text` in pieces of `size`, taking what a view would take after each delta; returns the end state. */
function stream(text: string, size: number, limit?: number, maxChars = 8192): Outcome {
  const md = new MarkdownStream(renderer, limit);
  const pieces = new Map<number, string>();
  const headless: number[] = [];
  let longestTail = 0;
  let tailRenders = 0;
  const drain = () => {
    for (let p = md.nextPiece(maxChars); p; p = md.nextPiece(maxChars)) {
      pieces.set(p.id, p.html);
      if (p.headless) headless.push(p.id);
    }
    for (let p = md.redoPiece(); p; p = md.redoPiece()) pieces.set(p.id, p.html);
    const tail = md.tailHtml();
    if (tail !== null) {
      tailRenders += 1;
      longestTail = Math.max(longestTail, tail.length);
    }
  };
  for (let end = size; end < text.length; end += size) {
    md.update(text.slice(0, end), false);
    drain();
  }
  md.update(text, true);
  drain();
  assert.ok(md.idle, "the stream is not idle after the final text");
  const html = [...pieces.keys()]
    .sort((a, b) => a - b)
    .map((id) => pieces.get(id))
    .join("");
  return { html, pieces: pieces.size, headless, longestTail, tailRenders };
}

describe("MarkdownStream", () => {
  for (const [name, text] of Object.entries(CORPUS)) {
    it(`adds up to a render of the whole: ${name}`, () => {
      const whole = renderer.whole(text);
      for (const size of SIZES) assert.equal(stream(text, size).html, whole, `pieces of ${size} chars`);
    });
  }

  it("adds up to a render of the whole for random mixes of the corpus's lines (seeded)", () => {
    // Lines that open, continue or end a construct when they follow others: lists, fences, quotes, tables.
    const tricky = [
      "- a",
      "  - b",
      "    code",
      "   ```",
      "```",
      "~~~",
      "1. x",
      "2) y",
      "> q",
      "| a | b |",
      "|---|---|",
    ];
    const more = [
      "[r]: https://r.example",
      "[x][r]",
      "Title",
      "===",
      "---",
      "\t- tab",
      " - one space",
      "* star",
      "````",
    ];
    const lines = [...Object.values(CORPUS).flatMap((doc) => doc.split("\n")), ...tricky, ...more];
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let doc = 0; doc < 150; doc++) {
      const picked = Array.from({ length: 5 + random(40) }, () => (random(4) === 0 ? "" : lines[random(lines.length)]));
      const text = picked.join("\n");
      const size = 1 + random(40);
      assert.equal(
        stream(text, size).html,
        renderer.whole(text),
        `doc ${doc}, pieces of ${size}: ${JSON.stringify(text)}`,
      );
    }
  });

  it("renders a long mixed reply in many pieces that add up to the whole", () => {
    const text = mixedReply(300_000);
    const out = stream(text, 2000);
    assert.equal(out.html, renderer.whole(text));
    assert.ok(out.pieces > 30, `only ${out.pieces} pieces`);
    assert.ok(out.longestTail < 20_000, `a tail of ${out.longestTail} chars of HTML was rendered`);
  });

  it("renders a reference link used before its definition once the definition comes", () => {
    const md = new MarkdownStream(renderer);
    md.update("Read [the guide][g].\n\n", false);
    assert.ok(!md.backlog, "a block was given out before the line after it");
    md.update("Read [the guide][g].\n\nMore text.\n\nAnd more.\n", false);
    assert.ok(md.backlog);
    const first = md.nextPiece(10);
    assert.ok(md.backlog, "the second block went with the first despite maxChars");
    assert.match(first?.html ?? "", /\[the guide\]\[g\]/);
    md.update("Read [the guide][g].\n\nMore text.\n\nAnd more.\n\n[g]: https://guide.example\n", true);
    while (md.nextPiece(10));
    const redo = md.redoPiece();
    assert.equal(redo?.id, first?.id);
    assert.match(redo?.html ?? "", /<a href="https:\/\/guide.example">the guide<\/a>/);
    assert.equal(md.redoPiece(), null, "a piece without the label was rendered again");
  });

  it("resolves a label that spans white space and case like a render of the whole", () => {
    const text = "Uses [Foo\n   Bar] here.\n\nmore text\n\n[foo bar]: https://example.com/x\n";
    const whole = renderer.whole(text);
    assert.match(whole, /<a href="https:\/\/example.com\/x">Foo<br>Bar<\/a>/);
    for (const size of [1, 3, 5, 20]) assert.equal(stream(text, size).html, whole, `pieces of ${size} chars`);
  });

  it("streams 100 KB of links defined after their use in linear time, each redo only for its label", () => {
    // The hostile reply: every paragraph uses [ref], which is never defined, and has a long word that
    // hundreds of later labels are substrings of; then one definition per paragraph.
    const word = "thequickbrownfoxjumpsoverthelazydogandkeepsrunningthroughfieldsofgoldenwheat";
    const labels = new Set<string>();
    for (let i = 0; i < word.length && labels.size < 800; i++) {
      for (let j = i + 3; j <= word.length && labels.size < 800; j++) labels.add(word.slice(i, j));
    }
    const body = Array.from({ length: 800 }, (_, i) => `P${i} [ref] ${word}\n\n`).join("");
    const text = body + [...labels].map((label) => `[${label}]: /x\n\n`).join("");
    assert.ok(text.length > 100_000);
    const counting = new MarkdownRenderer("http://127.0.0.1:8080");
    let renderedChars = 0;
    const block = counting.block.bind(counting);
    counting.block = (src, defs) => {
      renderedChars += src.length;
      return block(src, defs);
    };
    const md = new MarkdownStream(counting);
    const pieces: string[] = [];
    const started = performance.now();
    for (let end = 40; ; end += 40) {
      md.update(text.slice(0, Math.min(end, text.length)), end >= text.length);
      for (let p = md.nextPiece(4096) ?? md.redoPiece(); p; p = md.nextPiece(4096) ?? md.redoPiece()) {
        pieces[p.id] = p.html;
      }
      md.tailHtml();
      if (end >= text.length) break;
    }
    const ms = performance.now() - started;
    assert.ok(md.idle);
    assert.equal(pieces.join(""), renderer.whole(text));
    // Before: 643,000 renders (68 MB of source rendered), 106 s. The tail's re-renders are most of this.
    assert.ok(renderedChars < 8 * text.length, `${renderedChars} chars rendered for ${text.length}`);
    assert.ok(ms < 3000, `${Math.round(ms)} ms`);
  });

  it("re-renders at most MAX_REDOS earlier pieces while streaming, and the rest once at the end", () => {
    const n = MAX_REDOS + 100;
    const body = Array.from({ length: n }, (_, i) => `Cites [source][s${i}].\n\n`).join("");
    const defs = Array.from({ length: n }, (_, i) => `[S${i}]: https://example.com/${i}\n\n`).join("");
    const text = body + defs;
    const md = new MarkdownStream(renderer);
    const pieces: string[] = [];
    let redos = 0;
    for (let end = 30; end < text.length; end += 30) {
      md.update(text.slice(0, end), false);
      for (let p = md.nextPiece(1); p; p = md.nextPiece(1)) pieces[p.id] = p.html;
      for (let p = md.redoPiece(); p; p = md.redoPiece()) {
        pieces[p.id] = p.html;
        redos += 1;
      }
      md.tailHtml();
    }
    assert.equal(redos, MAX_REDOS, "redos while streaming");
    md.update(text, true);
    for (let p = md.nextPiece(1); p; p = md.nextPiece(1)) pieces[p.id] = p.html;
    for (let p = md.redoPiece(); p; p = md.redoPiece()) {
      pieces[p.id] = p.html;
      redos += 1;
    }
    md.tailHtml();
    assert.ok(md.idle);
    assert.equal(redos, n, "each piece that wanted a label was rendered again once");
    assert.equal(pieces.join(""), renderer.whole(text));
  });

  it("shows a reply nested deeper than marked's stack as plain text, whole, and renders what is around it", () => {
    const deep = `${">".repeat(100_000)} deep\n\n`;
    const text = `BEFORE-QUOTE\n\n${deep}AFTER-QUOTE\n`;
    const out = stream(text, 2000);
    assert.ok(out.html.startsWith("<p>BEFORE-QUOTE</p>\n"), out.html.slice(0, 80));
    assert.ok(out.html.endsWith("<p>AFTER-QUOTE</p>\n"), out.html.slice(-80));
    const shown = out.html.replace(/<\/?pre>|<p>[A-Z-]+<\/p>|\n/g, "").replaceAll("&#62;", ">");
    assert.equal(shown, deep.trim(), "the deep part lost characters");
    const whole = renderer.whole(text);
    assert.ok(whole.startsWith("<p>BEFORE-QUOTE</p>\n<pre>") && whole.endsWith("</pre>\n<p>AFTER-QUOTE</p>\n"));
    for (const nested of ["- ".repeat(3000), "> - ".repeat(3000), `${" ".repeat(200)}- `]) {
      assert.equal(renderer.block(`${nested}x\n`, new Map()).html, plainText(`${nested}x\n`));
    }
    assert.match(renderer.block(`${"> ".repeat(5)}x\n`, new Map()).html, /^<blockquote>/, "shallow nesting");
  });

  it("takes a final text that only lost trailing white space, and nothing else shorter", () => {
    const md = new MarkdownStream(renderer);
    md.update("one\n\ntwo\n\n\n", false);
    while (md.nextPiece(100));
    assert.ok(md.accepts("one\n\ntwo"));
    md.update("one\n\ntwo", true);
    assert.ok(md.accepts("one\n\ntwo"));
    assert.ok(!md.accepts("one\n\ntwo!"), "a final text took more text");
    const pieces: string[] = [];
    for (let p = md.nextPiece(100); p; p = md.nextPiece(100)) pieces.push(p.html);
    md.tailHtml();
    assert.equal(pieces.join(""), "<p>two</p>\n");
    assert.ok(md.idle);
    const cut = new MarkdownStream(renderer);
    cut.update("one\n\ntwo\n", false);
    assert.ok(!cut.accepts("on"), "a text shorter than the finished blocks was taken");
  });

  it("cuts a huge code block, table and line at the limit and keeps every character", () => {
    const code = Array.from({ length: 400 }, (_, i) => `line ${i} ${"x".repeat(i % 30)}`).join("\n");
    const fenced = stream(`\`\`\`js\n${code}\n\`\`\`\n\nafter\n`, 50, 1000);
    assert.ok(fenced.pieces > 5, "the fence was not cut");
    assert.ok(fenced.longestTail < 1500, `a tail of ${fenced.longestTail} chars`);
    const codeText = [...fenced.html.matchAll(/<code class="language-js">([\s\S]*?)<\/code>/g)].map((m) => m[1]);
    assert.equal(codeText.join("").replace(/\n$/, ""), code);

    const rows = Array.from({ length: 300 }, (_, i) => `| ${i} | 值 ${i} |`).join("\n");
    const table = stream(`| n | v |\n|---|---|\n${rows}\n\nend\n`, 64, 1000);
    assert.ok(table.headless.length > 3, "the table was not cut, or its header not marked to hide");
    const cells = (table.html.match(/<td>/g) ?? []).length;
    assert.equal(cells, 600, "table rows were lost or doubled");

    const line = "很长的一行没有空格".repeat(2000);
    const long = stream(`${line}\n`, 500, 1000);
    assert.ok(long.longestTail < 3000, `a tail of ${long.longestTail} chars`);
    assert.equal(long.html.replace(/<\/?p>|\n/g, ""), line);
  });

  it("cuts a long loose list at a blank line before an item", () => {
    const list = Array.from({ length: 200 }, (_, i) => `- item ${i}\n`).join("\n");
    const out = stream(list, 30, 500);
    assert.ok(out.pieces > 3, "the list was not cut");
    assert.equal((out.html.match(/<li>/g) ?? []).length, 200);
  });
});

describe("BlockSplitter", () => {
  it("gives out nothing before the whole line after a blank line decides", () => {
    const split = new BlockSplitter();
    assert.deepEqual(split.push("para\n\n"), []);
    assert.deepEqual(split.push("para\n\n- item\n"), [], "a list item was cut off its paragraph");
    assert.deepEqual(split.push("para\n\n- item\n\nne"), [], "a cut before a line that could still be anything");
    const text = "para\n\n- item\n\nnext\nmore";
    assert.deepEqual(split.push(text), [{ src: "para\n\n- item\n\n" }]);
    assert.equal(split.tail(text), "next\nmore");
    assert.deepEqual(split.finish(text), [{ src: "next\nmore" }]);
    assert.deepEqual(split.finish(text), [], "finish gave out a block twice");
  });

  it("never cuts inside a fence, or before an indented line", () => {
    const text = "```\na\n\nb\n```\n\n    indented\n\nx\n";
    const blocks = new BlockSplitter().finish(text);
    assert.deepEqual(
      blocks.map((b) => b.src),
      ["```\na\n\nb\n```\n\n    indented\n\n", "x\n"],
    );
  });

  it("keeps every character once when an endless line after blank lines is cut", () => {
    const text = `intro\n\n${"长".repeat(500)}\nnext line\n\n- item\n\nend\n`;
    for (const size of [7, 50, 300]) {
      const split = new BlockSplitter(100);
      const blocks: Block[] = [];
      for (let end = size; end < text.length; end += size) blocks.push(...split.push(text.slice(0, end)));
      blocks.push(...split.finish(text));
      // A cut inside the line ends its block with a line end of its own: drop those to compare.
      const cutEnd = (i: number) => blocks[i].src.endsWith("长\n") && blocks[i + 1]?.src.startsWith("长");
      const joined = blocks.map((b, i) => (cutEnd(i) ? b.src.slice(0, -1) : b.src)).join("");
      assert.equal(joined, text, `pieces of ${size}`);
    }
  });

  it("does not close and reopen an indented fence whose list item has ended", () => {
    const text = `1. step\n   \`\`\`\n   code\n\n${"prose line\n".repeat(30)}`;
    const blocks = new BlockSplitter(100).finish(text);
    const joined = blocks.map((b) => b.src).join("");
    assert.equal(joined, text, "the forced cuts added fence lines to prose");
  });
});
