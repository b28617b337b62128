/**
 * The knowledge API: paths taken as the tree lists them and checked, the 1 MiB cap, the index updated before
 * a put resolves, items-only deletes, search limits, and the error codes a server maps to statuses.
 */
import assert from "node:assert/strict";
import { mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import type { KnowledgeAPI } from "@homeagent/sdk";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { HomeAgentError } from "../util/errors.js";
import { knowledgeApi, MAX_ITEM_BYTES } from "./api.js";
import { KnowledgeBase } from "./base.js";
import { MAX_TREE_NODES } from "./tree.js";

const open: KnowledgeBase[] = [];
afterEach(async () => {
  for (const kb of open.splice(0)) await kb.close();
});

function setup(): { kb: KnowledgeBase; api: KnowledgeAPI } {
  const kb = new KnowledgeBase(join(tempDir("ha-kb-api-"), "knowledge"));
  open.push(kb);
  return { kb, api: knowledgeApi(kb) };
}

const refusedWith = (code: string, message?: RegExp) => (err: Error) => {
  assert.ok(err instanceof HomeAgentError, String(err));
  assert.equal(err.code, code, err.message);
  if (message) assert.match(err.message, message);
  return true;
};

test("put then get, search and tree; the path is kept exactly as given", async () => {
  const { kb, api } = setup();
  const entry = await api.put("Recipes/Family Soup", "Simmer the bones for six hours.");
  assert.equal(entry.path, "Recipes/Family Soup");
  assert.equal(entry.content, "Simmer the bones for six hours.");
  assert.equal(entry.size, Buffer.byteLength(entry.content));
  assert.ok(entry.updatedAt > 0);
  assert.equal(statSync(join(kb.root, "Recipes", "Family Soup", "content.md")).mode & 0o777, 0o600);
  await api.put("旅行/京都", "京都的樱花在四月初最好看。");
  await api.put("wifi", "The guest wifi password is on the fridge.");

  // Searched right after put resolved: the index already holds it.
  const [hit] = await api.search("how long to simmer the bones");
  assert.equal(hit.path, "Recipes/Family Soup");
  assert.ok(hit.score > 0);
  assert.equal(hit.preview, "Simmer the bones for six hours.");

  assert.deepEqual(await api.get("Recipes/Family Soup"), entry);
  assert.equal(await api.get("Recipes/Other"), null);
  assert.equal(await api.get("Recipes"), null, "a category is no item");
  assert.deepEqual(await api.tree(), [
    {
      name: "Recipes",
      path: "Recipes",
      kind: "category",
      children: [{ name: "Family Soup", path: "Recipes/Family Soup", kind: "item" }],
    },
    { name: "wifi", path: "wifi", kind: "item" },
    { name: "旅行", path: "旅行", kind: "category", children: [{ name: "京都", path: "旅行/京都", kind: "item" }] },
  ]);

  const updated = await api.put("wifi", "Guest wifi: see the router label.");
  assert.equal(updated.content, "Guest wifi: see the router label.");
  assert.equal((await api.search("router label"))[0]?.path, "wifi");
  assert.equal((await api.search("fridge")).length, 0, "the old text left the index with the put");
});

test("the tree shows folders made by hand, skipping hidden ones and links", async () => {
  const { kb, api } = setup();
  mkdirSync(join(kb.root, "manuals", "empty"), { recursive: true });
  mkdirSync(join(kb.root, ".git"), { recursive: true });
  mkdirSync(join(kb.root, "manuals", "dishwasher"), { recursive: true });
  writeFileSync(join(kb.root, "manuals", "dishwasher", "content.md"), "Rinse the filter monthly.");
  writeFileSync(join(kb.root, "stray.md"), "not an item");
  symlinkSync(tempDir("ha-kb-outside-"), join(kb.root, "outside"));
  assert.deepEqual(await api.tree(), [
    {
      name: "manuals",
      path: "manuals",
      kind: "category",
      children: [
        { name: "dishwasher", path: "manuals/dishwasher", kind: "item" },
        { name: "empty", path: "manuals/empty", kind: "category", children: [] },
      ],
    },
  ]);
  assert.equal((await api.get("manuals/dishwasher"))?.content, "Rinse the filter monthly.");
});

test("paths that could leave the folder, hide an item or are no path are refused with invalid_path", async () => {
  const { kb, api } = setup();
  const outside = tempDir("ha-kb-outside-");
  symlinkSync(outside, join(kb.root, "link"));
  const bad = [
    "",
    "/etc/passwd",
    "../escape",
    "a/../../b",
    "a//b",
    "a/",
    ".hidden/x",
    "a/.git",
    " padded",
    "a\\b",
    "semi;colon",
    "nul\0byte",
    "x".repeat(101),
    Array(17).fill("d").join("/"),
    "link/inside",
  ];
  for (const path of bad) {
    await assert.rejects(api.put(path, "x"), refusedWith("invalid_path"), JSON.stringify(path));
    await assert.rejects(api.get(path), refusedWith("invalid_path"), JSON.stringify(path));
    await assert.rejects(api.delete(path), refusedWith("invalid_path"), JSON.stringify(path));
  }
  await assert.rejects(api.get(42 as unknown as string), refusedWith("invalid_path"));
  await api.put("recipes/soup", "soup");
  await assert.rejects(api.put("recipes/soup/extra", "x"), refusedWith("invalid_path", /is an item, not a category/));
  await assert.rejects(api.put("recipes", "x"), refusedWith("invalid_path", /is a category/));
});

test("items over 1 MiB are refused with too_large; exactly 1 MiB is accepted", async () => {
  const { api } = setup();
  await assert.rejects(api.put("big", "x".repeat(MAX_ITEM_BYTES + 1)), refusedWith("too_large", /at most 1 MiB/));
  // Counted in bytes: 3 bytes per character here.
  await assert.rejects(api.put("big", "京".repeat(MAX_ITEM_BYTES / 2)), refusedWith("too_large"));
  assert.equal(await api.get("big"), null, "nothing was written");
  assert.equal((await api.put("big", "x".repeat(MAX_ITEM_BYTES))).size, MAX_ITEM_BYTES);
  await assert.rejects(api.put("bad", 42 as unknown as string), refusedWith("invalid_argument"));
});

test("an item grown past 1 MiB on disk is refused by get rather than read whole", async () => {
  const { kb, api } = setup();
  mkdirSync(join(kb.root, "huge"));
  writeFileSync(join(kb.root, "huge", "content.md"), "x".repeat(MAX_ITEM_BYTES + 1));
  await assert.rejects(api.get("huge"), refusedWith("too_large", /edit it on disk/));
});

test("delete removes items only, and takes them out of the index at once", async () => {
  const { kb, api } = setup();
  await api.put("recipes/soup", "Simmer the bones for six hours.");
  await api.put("recipes/bread", "Knead the dough.");
  await assert.rejects(api.delete("recipes"), refusedWith("invalid_path", /only items can be removed/));
  assert.equal(await api.delete("recipes/soup"), true);
  assert.equal(await api.delete("recipes/soup"), false);
  assert.equal(await api.delete("never/there"), false);
  assert.equal(await api.get("recipes/soup"), null);
  assert.equal(kb.index.get("recipes/soup"), null, "gone from the index without a rescan");
  assert.deepEqual(
    (await api.search("simmer bones")).map((h) => h.path),
    [],
  );
  assert.deepEqual(
    (await api.tree()).map((n) => n.children?.map((c) => c.path)),
    [["recipes/bread"]],
  );
});

test("search: limit default 10, cut to 50, refused when it is no count; blank queries find nothing", async () => {
  const { api } = setup();
  for (let i = 0; i < 60; i++) await api.put(`notes/n${i}`, `shared topic note number ${i}`);
  assert.equal((await api.search("shared topic")).length, 10);
  assert.equal((await api.search("shared topic", 3)).length, 3);
  assert.equal((await api.search("shared topic", 500)).length, 50);
  for (const limit of [0, -1, 1.5, Number.NaN]) {
    await assert.rejects(api.search("shared", limit), refusedWith("invalid_argument"), String(limit));
  }
  assert.deepEqual(await api.search("   "), []);
  await assert.rejects(api.search("q".repeat(5000)), refusedWith("too_large"));
});

test("a tree beyond its node limit fails with knowledge_tree_too_large instead of growing without end", async () => {
  const { kb, api } = setup();
  for (let i = 0; i <= MAX_TREE_NODES / 100; i++) {
    for (let j = 0; j < 100; j++) mkdirSync(join(kb.root, `c${i}`, `d${j}`), { recursive: true });
  }
  await assert.rejects(api.tree(), refusedWith("knowledge_tree_too_large", /more than 10000/));
});
