/** forgetMatcher: how every forget matches text, for the daemon and for plugins' onForget handlers. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { forgetMatcher } from "./forget.js";

test("every term, case-insensitively in any script, after NFKC and with white space collapsed", () => {
  const m = forgetMatcher(["zorg77", "alice smith"]);
  assert.equal(m("ＺＯＲＧ７７ met Alice   Smith"), true);
  assert.equal(m("ZORG77 met Alice"), false, "every term");
  assert.equal(forgetMatcher(["émile"])("ÉMILE ZOLA"), true);
  assert.equal(forgetMatcher(["青鸟七三九一"])("暗号是青鸟七三九一。"), true);
});

test("a term with quotes or backslashes is found where the text is JSON, once or twice escaped", () => {
  const term = 'pw"9931\\quux';
  const m = forgetMatcher([term]);
  assert.equal(m(`plain ${term}`), true);
  assert.equal(m(JSON.stringify({ tags: [term] })), true);
  assert.equal(m(JSON.stringify({ result: JSON.stringify({ note: term }) })), true);
  assert.equal(m("pw 9931 quux"), false);
});

test("no terms, or an empty one, match nothing", () => {
  assert.equal(forgetMatcher([])("anything"), false);
  assert.equal(forgetMatcher([" "])("anything at all"), false);
});
