import assert from "node:assert/strict";
import { test } from "node:test";
import { estimateTokens } from "../../kernel/budget.js";
import { cutToTokens, excerptCost, RELATED_HEADER, RelatedPacker } from "./related-pack.js";

const ex = (key: string, ts: number, text: string) => ({ key, ts, seq: ts, text });

test("groups: linked excerpts render together, oldest first; groups in rank order", () => {
  const p = new RelatedPacker(1000);
  assert.ok(p.add(ex("b", 20, "B hit"), 0));
  assert.ok(p.add(ex("a", 10, "A before"), 0));
  assert.ok(p.add(ex("c", 30, "C after"), 0));
  assert.ok(p.add(ex("z", 5, "Z second hit, older"), 1));
  p.link("a", "b");
  p.link("b", "c");
  assert.equal(p.render(), `${RELATED_HEADER}\nA before\nB hit\nC after\n\nZ second hit, older`);
});

test("two hits sharing a neighbour become one group", () => {
  const p = new RelatedPacker(1000);
  for (const [k, ts] of [
    ["x", 1],
    ["y", 2],
    ["z", 3],
  ] as const)
    p.add(ex(k, ts, k.toUpperCase()), ts);
  p.link("x", "y");
  p.link("z", "y");
  assert.equal(p.render(), `${RELATED_HEADER}\nX\nY\nZ`);
});

test("nothing placed: no header either", () => {
  assert.equal(new RelatedPacker(1000).render(), "");
  const tiny = new RelatedPacker(3);
  assert.equal(tiny.add(ex("a", 1, "a"), 0), false);
  assert.equal(tiny.render(), "");
});

test("the rendered section never exceeds its budget, whatever mix of excerpts is offered", () => {
  let seed = 7;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const words = ["memory", "记忆", "a", "dentist", "周末", "photo", "!", "—", "🙂", "x".repeat(30)];
  for (let round = 0; round < 200; round++) {
    const budget = 20 + Math.floor(rand() * 400);
    const p = new RelatedPacker(budget);
    for (let i = 0; i < 40; i++) {
      const n = 1 + Math.floor(rand() * 60);
      const text = Array.from({ length: n }, () => words[Math.floor(rand() * words.length)]).join(
        rand() < 0.5 ? " " : "",
      );
      if (rand() < 0.3) p.addCut(ex(`k${i}`, i, text), i);
      else p.add(ex(`k${i}`, i, text), i);
      if (rand() < 0.5) p.link(`k${i}`, `k${i - 1}`);
    }
    const out = p.render();
    assert.ok(estimateTokens(out) <= budget, `round ${round}: ${estimateTokens(out)} > ${budget}`);
  }
});

test("an over-long excerpt is cut to what is left instead of skipped", () => {
  const p = new RelatedPacker(60);
  const long = `[2023-05-08 13:56] cli: ${"the quick brown fox jumps over the lazy dog ".repeat(50)}`;
  assert.equal(p.add(ex("long", 1, long), 0), false);
  assert.ok(p.addCut(ex("long", 1, long), 0));
  const out = p.render();
  assert.ok(out.startsWith(`${RELATED_HEADER}\n[2023-05-08 13:56] cli: the quick brown fox`));
  assert.ok(out.endsWith("…"));
  assert.ok(estimateTokens(out) <= 60);
});

test("cutToTokens: whole when it fits, cut with … otherwise, never half a surrogate pair", () => {
  assert.equal(cutToTokens("short", 10), "short");
  const cut = cutToTokens("一二三四五六七八九十", 6);
  assert.ok(cut.endsWith("…") && excerptCost(cut) <= 6, cut);
  const emoji = cutToTokens("🙂".repeat(40), 5);
  assert.ok(!/[\ud800-\udbff]…$/.test(emoji), "a lone high surrogate before the mark");
  assert.equal(cutToTokens("anything at all", 0), "");
});
