/** The knowledge base: its tools, edits made on disk, and name sanitising. */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { ToolContext } from "@homeagent/sdk";
import { WordEmbedder } from "../../test/fixtures/embedding/word-embedder.js";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { KnowledgeBase } from "./base.js";
import { sanitizeName } from "./paths.js";
import { knowledgeTools } from "./tools.js";

function freshKb(embedder: WordEmbedder | null = new WordEmbedder()): KnowledgeBase {
  return new KnowledgeBase(join(tempDir("kb-test-"), "knowledge"), { embedder });
}
const ctx = { requestId: "r", source: "test", channel: "test", signal: new AbortController().signal } as ToolContext;
function tool(kb: KnowledgeBase, name: string) {
  const t = knowledgeTools(kb).find((t) => t.def.name === name);
  assert.ok(t, name);
  return (args: Record<string, unknown>) => t.handler(args, ctx) as Promise<Record<string, unknown>>;
}

test("create with a category path, search with a 200-character preview, list as a tree", async () => {
  const kb = freshKb();
  const create = tool(kb, "knowledge_create");
  const long = `Family soup: simmer the bones for six hours. ${"Add vegetables and salt. ".repeat(20)}`;
  assert.deepEqual(await create({ name: " Recipes/Family Soup ", content: long }), {
    path: "recipes/family_soup",
    name: "family_soup",
    category: "recipes",
    status: "created",
  });
  assert.ok(existsSync(join(kb.root, "recipes", "family_soup", "content.md")));
  await create({ name: "wifi", content: "The guest wifi password is on the fridge." });
  await create({ name: "旅行/京都", content: "京都的樱花在四月初最好看，记得提前订酒店。" });
  assert.equal((await create({ name: "wifi", content: "Guest wifi: see the router label." })).status, "updated");

  const { results } = await tool(kb, "knowledge_search")({ query: "how long to simmer soup bones" });
  const [top] = results as Array<{ name: string; category: string; content: string; score: number }>;
  assert.equal(top.name, "family_soup");
  assert.equal(top.category, "recipes");
  assert.ok(top.score > 0);
  assert.equal(top.content.length, 201, "200 characters and an ellipsis");
  const zh = (await kb.search("樱花什么时候好看", 1))[0];
  assert.deepEqual([zh.category, zh.name], ["旅行", "京都"]);

  assert.deepEqual(await tool(kb, "knowledge_list")({}), {
    categories: [
      { category: "", items: ["wifi"] },
      { category: "recipes", items: ["family_soup"] },
      { category: "旅行", items: ["京都"] },
    ],
    total: 3,
  });
  await kb.close();
});

test("files edited, added and removed on disk are picked up", async () => {
  const kb = freshKb();
  await kb.create("garden/tomatoes", "Water the tomatoes every morning.");
  assert.equal((await kb.search("tomatoes"))[0]?.name, "tomatoes");

  writeFileSync(join(kb.root, "garden", "tomatoes", "content.md"), "Prune the roses in February.");
  assert.deepEqual(await kb.search("water every morning"), [], "old text is gone from the index");
  assert.equal((await kb.search("roses"))[0]?.name, "tomatoes");

  mkdirSync(join(kb.root, "car", "insurance"), { recursive: true });
  writeFileSync(join(kb.root, "car", "insurance", "content.md"), "Insurance renews in March, policy 4711.");
  mkdirSync(join(kb.root, ".trash", "old"), { recursive: true });
  writeFileSync(join(kb.root, ".trash", "old", "content.md"), "policy 4711 draft");
  const hits = await kb.search("policy 4711");
  assert.deepEqual(
    hits.map((h) => h.path),
    ["car/insurance"],
    "hidden folders are skipped",
  );

  rmSync(join(kb.root, "car"), { recursive: true });
  assert.deepEqual(await kb.search("policy 4711"), []);
  assert.deepEqual(await kb.list(), [{ category: "garden", items: ["tomatoes"] }]);
  await kb.close();
});

test("an item rewritten on disk is no longer found by its old words", async () => {
  // Keyword search only: hashed test vectors would match unrelated items by chance.
  const kb = freshKb(null);
  // Enough other items that the rewrite's stale keyword postings are not compacted away at once.
  for (let i = 0; i < 40; i++) await kb.create(`notes/note_${i}`, `Shopping list ${i}: apples, bread and milk.`);
  await kb.create("events/yoga", "Yoga class on Thursday evening.");
  await kb.create("events/dentist", "Dentist appointment on Thursday at the Lindenstrasse practice.");
  assert.equal((await kb.search("Lindenstrasse"))[0]?.name, "dentist");

  writeFileSync(join(kb.root, "events", "dentist", "content.md"), "Cancelled.");
  assert.deepEqual(
    (await kb.search("Thursday")).map((h) => h.name),
    ["yoga"],
    "the old words no longer find it",
  );
  assert.equal((await kb.search("cancelled"))[0]?.name, "dentist");
  await kb.close();
});

test("names are sanitised and path escapes are refused", async () => {
  assert.deepEqual(sanitizeName("  My Notes\\Work Plan  "), ["my_notes_work_plan"]);
  assert.deepEqual(sanitizeName("A/B c"), ["a", "b_c"]);
  const kb = freshKb();
  const create = tool(kb, "knowledge_create");
  const outside = join(kb.root, "..", "escaped");
  for (const [name, why] of [
    ["../escaped", /"\." and "\.\." are not allowed/],
    ["a/../../escaped", /"\." and "\.\." are not allowed/],
    ["/etc/passwd", /absolute paths/],
    ["a//b", /empty path segment/],
    ["a/", /empty path segment/],
    ["", /empty/],
    ["bad\0name", /NUL/],
    [".hidden", /hidden/],
  ] as const) {
    await assert.rejects(create({ name, content: "x" }), why, name);
  }
  assert.ok(!existsSync(outside));

  symlinkSync(tmpdir(), join(kb.root, "link"));
  await assert.rejects(create({ name: "link/evil", content: "x" }), /link outside the knowledge folder/);

  await kb.create("notes", "an item");
  await assert.rejects(kb.create("notes/child", "x"), /"notes" is an item, not a category/);
  await kb.create("cat/item", "x");
  await assert.rejects(kb.create("cat", "x"), /"cat" is a category/);
  await kb.close();
});
