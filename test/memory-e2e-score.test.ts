/** The scoring definition of bench/memory-e2e.ts, checked rule by rule against issue 8's wording. */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  isPresent,
  newestUserText,
  normalise,
  promptTokens,
  requestText,
  scoreQuestion,
  summarise,
} from "../bench/memory-e2e-score.js";

const LONG = "I went to a LGBTQ support group yesterday and it was so powerful. The stories were inspiring and brave!";

function body(system: string, ...rest: Array<[string, string]>) {
  return { messages: [{ role: "system", content: system }, ...rest.map(([role, content]) => ({ role, content }))] };
}

test("normalise: lower-case, runs of other characters become one space, CJK kept, trimmed", () => {
  assert.equal(normalise("  Hey, Mel!  Good—to see you… "), "hey mel good to see you");
  assert.equal(normalise("我叫小明，I'm 30."), "我叫小明 i m 30");
  assert.equal(normalise("[shares a photo: a CAT]"), "shares a photo a cat");
  assert.equal(normalise("Café"), "caf");
});

test("request text: every message except the newest user message, joined by spaces", () => {
  const b = body(`persona ${LONG}`, ["user", "older question"], ["assistant", "ok."], ["user", "newest"]);
  assert.equal(requestText(b), `persona ${LONG} older question ok.`);
  assert.equal(newestUserText(b), "newest");
  const parts = {
    messages: [
      {
        role: "system",
        content: [
          { type: "text", text: "a" },
          { type: "text", text: "b" },
        ],
      },
    ],
  };
  assert.equal(requestText(parts), "a b");
});

test("evidence only in the newest user message is not present", () => {
  const b = body("nothing here", ["user", LONG]);
  assert.equal(scoreQuestion([LONG], b), 0);
});

test("short evidence (≤ 40 normalised characters) must occur whole", () => {
  const short = "I love painting sunsets!";
  assert.equal(isPresent(short, normalise("she said i love painting sunsets a lot")), true);
  assert.equal(isPresent(short, normalise("she said i love painting")), false);
  // Exactly 40 characters after normalising is still the whole-occurrence rule.
  const forty = "a".repeat(40);
  assert.equal(isPresent(forty, "a".repeat(39)), false);
  assert.equal(isPresent(forty, "a".repeat(40)), true);
});

test("long evidence: present when at least half of its 40-character windows at 0, 8, 16 … occur", () => {
  const e = normalise(LONG);
  // Windows start at 0, 8, …, ≤ length − 40.
  const starts: number[] = [];
  for (let at = 0; at <= e.length - 40; at += 8) starts.push(at);
  const half = Math.ceil(starts.length / 2);
  // A request holding exactly the first `half` windows (and nothing of the rest beyond them).
  const firstHalf = e.slice(0, starts[half - 1] + 40);
  const lastWindowsMissing = starts.slice(half).every((at) => !firstHalf.includes(e.slice(at, at + 40)));
  assert.ok(lastWindowsMissing, "the fixture must leave the later windows out");
  assert.equal(isPresent(LONG, firstHalf), true);
  const lessThanHalf = e.slice(0, starts[half - 2] + 40);
  assert.equal(isPresent(LONG, lessThanHalf), false);
  // Punctuation and case differences do not matter: the request is normalised too.
  assert.equal(isPresent(LONG, normalise(`[2023-05-08] ${LONG.toUpperCase().replace(/ /g, "  ")}`)), true);
});

test("a question scores the share of its evidence turns present; no request scores 0", () => {
  const b = body(`memory: ${LONG} and I love painting sunsets`, ["user", "q?"]);
  assert.equal(scoreQuestion([LONG, "I love painting sunsets!", "never said"], b), 2 / 3);
  assert.equal(scoreQuestion([LONG], null), 0);
});

test("photo captions are part of the evidence text", () => {
  const evidence = "Look at this! [shares a photo: a dog on a beach at sunset]";
  assert.equal(scoreQuestion([evidence], body("look at this shares a photo a dog on a beach at sunset")), 1);
  assert.equal(scoreQuestion([evidence], body("look at this")), 0);
});

test("prompt tokens: characters of the messages plus the JSON of the tools, over 4", () => {
  const tools = [{ type: "function", function: { name: "t", parameters: {} } }];
  const b = { ...body("12345678", ["user", "1234"]), tools };
  assert.equal(promptTokens(b), (12 + JSON.stringify(tools).length) / 4);
  assert.equal(promptTokens(body("1234")), 1);
});

test("recall is the mean over questions, also per category", () => {
  const s = summarise([
    { category: 1, score: 1 },
    { category: 1, score: 0 },
    { category: 2, score: 0.5 },
    { category: 4, score: 1 },
  ]);
  assert.deepEqual(s, { recall: 0.625, by_category: { 1: 0.5, 2: 0.5, 4: 1 } });
});
