/**
 * Forget and the knowledge base (issue 18, item 13): the user's own notes are listed when they mention what
 * is forgotten — by path or by text, case-insensitively, in Chinese too, including a note edited on disk —
 * and removed (with their index entry) only when the user opts in.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { KnowledgeBase } from "./base.js";
import { forgetKnowledge } from "./forget.js";

async function kbWithNotes(): Promise<KnowledgeBase> {
  const kb = new KnowledgeBase(join(tempDir("kb-forget-"), "knowledge"), { embedder: null });
  await kb.create("bank/pins", "Card PIN: 7391-ZEBRA-quartz");
  await kb.create("travel/京都", "暗号是青鸟七三九一，酒店在四条。");
  await kb.create("7391-zebra-quartz-notes", "nothing inside");
  await kb.create("recipes/soup", "Simmer for six hours.");
  await kb.create("vault-7391-zebra-quartz/old", "archived");
  // Edited by hand, never through the API: found all the same.
  mkdirSync(join(kb.root, "diary"), { recursive: true });
  mkdirSync(join(kb.root, "diary", "monday"));
  writeFileSync(join(kb.root, "diary", "monday", "content.md"), "wrote down 7391-zebra-quartz again");
  return kb;
}

test("items mentioning the terms are listed and left alone unless removal is asked for; full-width too", async () => {
  const kb = await kbWithNotes();
  const listed = await forgetKnowledge(kb, ["7391-zebra-quartz"], false);
  assert.deepEqual(listed, {
    matched: 4,
    paths: ["7391-zebra-quartz-notes", "bank/pins", "diary/monday", "vault-7391-zebra-quartz/old"].sort(),
    removed: 0,
  });
  assert.ok(existsSync(join(kb.root, "bank", "pins", "content.md")), "listing removes nothing");
  assert.deepEqual((await forgetKnowledge(kb, ["青鸟七三九一"], false)).paths, ["travel/京都"]);
  assert.equal((await forgetKnowledge(kb, ["７３９１-ｚｅｂｒａ"], false)).matched, 4);
  await kb.close();
});

test("with removal asked for, the items and their index entries go; the others stay", async () => {
  const kb = await kbWithNotes();
  mkdirSync(join(kb.root, "empty-7391-ZEBRA-quartz"));
  const removed = await forgetKnowledge(kb, ["7391-zebra-quartz"], true);
  assert.equal(removed.removed, 4);
  assert.equal(existsSync(join(kb.root, "vault-7391-zebra-quartz")), false, "the category named with it goes");
  assert.equal(existsSync(join(kb.root, "empty-7391-ZEBRA-quartz")), false, "so does an empty folder named so");
  assert.ok(existsSync(join(kb.root, "bank")), "a category whose name does not hold it stays");
  assert.equal(existsSync(join(kb.root, "bank", "pins", "content.md")), false);
  assert.deepEqual(
    (await kb.search("7391 zebra quartz", 10)).map((h) => h.path),
    [],
    "nothing is found by the index any more",
  );
  assert.deepEqual(
    (await kb.search("simmer soup", 10)).map((h) => h.path),
    ["recipes/soup"],
  );
  assert.equal((await forgetKnowledge(kb, ["7391-zebra-quartz"], false)).matched, 0);
  await kb.close();
});
