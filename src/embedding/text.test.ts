import assert from "node:assert/strict";
import { test } from "node:test";
import { cjkRuns, cleanText, forgetRecentTexts, tokenize } from "./text.js";

test("Chinese is segmented into words, with search-mode sub-words", () => {
  const t = tokenize("我今天去北京大学看樱花");
  for (const w of ["今天", "北京", "大学", "北京大学", "樱花"]) assert.ok(t.includes(w), `${w} in ${t}`);
  assert.ok(!t.includes("我"), "stop word removed");
});

test("English is lower-cased words without stop words or possessives", () => {
  assert.deepEqual(tokenize("What did Caroline's sister paint in 2023?"), ["caroline", "sister", "paint", "2023"]);
});

test("mixed text keeps both scripts in order", () => {
  assert.deepEqual(tokenize("用 HomeAgent 管理日程"), ["用", "homeagent", "管理", "日程"]);
});

test("cleanText removes width variants, zero-width characters and template noise", () => {
  assert.equal(cleanText("[打断消息][来源:timer]  ＨＥＬＬＯ\u200b  world\n\n"), "HELLO world");
  assert.equal(cleanText("{{user}}: hi <|im_end|>"), ": hi");
});

test("a text analysed again gives the same tokens and CJK runs, which no caller can change", () => {
  const text = "Met 张伟 at the 北京大学 library";
  const first = tokenize(text);
  assert.equal(tokenize(text), first, "the recent answer is shared");
  assert.deepEqual([...cjkRuns(text)], ["张伟", "北京大学"]);
  assert.throws(() => (first as string[]).push("x"), TypeError);
  assert.deepEqual(tokenize(`${text} `), first, "an equal analysis of a different text");
});

test("a forget drops the remembered analyses: no copy of a text's words stays behind", () => {
  const text = "my locker code is 7391";
  const first = tokenize(text);
  forgetRecentTexts();
  const again = tokenize(text);
  assert.notEqual(again, first, "analysed afresh");
  assert.deepEqual(again, first);
});
