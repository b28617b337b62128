/**
 * `/api/v1/knowledge` over real HTTP against a real daemon's knowledge base: put, get, tree, search,
 * delete, and the refusals (bad paths, missing parameters, bodies over the limit).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startWebDaemon, type WebDaemon } from "../../../../test/fixtures/webui.js";

let w: WebDaemon;
before(async () => {
  w = await startWebDaemon({ webuiOnly: true });
});
after(() => w.stop());

const item = (path: string) => `/api/v1/knowledge/item?path=${encodeURIComponent(path)}`;

test("an item put is in the tree, readable and found by search at once; delete removes it", async () => {
  const put = await w.json("PUT", item("recipes/bread"), {
    content: "# Bread\nFlour, water, salt and sourdough starter.",
  });
  assert.equal(put.status, 200);
  assert.equal(put.body.path, "recipes/bread");
  assert.ok(put.body.size > 0);
  const got = await w.json("GET", item("recipes/bread"));
  assert.equal(got.status, 200);
  assert.match(got.body.content, /sourdough starter/);
  const tree = await w.json("GET", "/api/v1/knowledge");
  assert.equal(tree.status, 200);
  const recipes = tree.body.tree.find((n: { name: string }) => n.name === "recipes");
  assert.equal(recipes.kind, "category");
  assert.deepEqual(
    recipes.children.map((n: { path: string; kind: string }) => [n.path, n.kind]),
    [["recipes/bread", "item"]],
  );
  const search = await w.json("GET", "/api/v1/knowledge/search?q=sourdough&limit=5");
  assert.equal(search.status, 200);
  assert.equal(search.body.hits[0]?.path, "recipes/bread");
  const deleted = await w.json("DELETE", item("recipes/bread"));
  assert.deepEqual([deleted.status, deleted.body], [200, { deleted: "recipes/bread" }]);
  assert.equal((await w.json("GET", item("recipes/bread"))).status, 404);
  const again = await w.json("DELETE", item("recipes/bread"));
  assert.equal(again.status, 404);
  assert.equal(again.body.error.code, "not_found");
});

test("bad paths and parameters are 400 with the reason", async () => {
  for (const path of ["../etc/passwd", ".hidden/x", "a//b"]) {
    const res = await w.json("PUT", item(path), { content: "x" });
    assert.equal(res.status, 400, path);
    assert.match(res.body.error.message, /knowledge|path|name/i, path);
  }
  assert.equal((await w.json("GET", "/api/v1/knowledge/item")).status, 400);
  assert.equal((await w.json("GET", "/api/v1/knowledge/search")).status, 400);
  assert.equal((await w.json("GET", "/api/v1/knowledge/search?q=x&limit=500")).status, 400);
  assert.equal((await w.json("GET", "/api/v1/knowledge/search?q=x&limit=two")).status, 400);
  assert.equal((await w.json("PUT", item("a/b"), { content: 5 })).status, 400);
  assert.equal((await w.json("PUT", item("a/b"), {})).status, 400);
  assert.equal((await w.json("GET", item("x".repeat(2000)))).status, 400);
});

test("content over the base's 1 MiB is refused; a body over 2 MiB is 413 before it is read", async () => {
  const tooBig = await w.json("PUT", item("big/one"), { content: "x".repeat(1024 * 1024 + 10) });
  assert.equal(tooBig.status, 413);
  assert.equal(tooBig.body.error.code, "too_large");
  const huge = await w.json("PUT", item("big/two"), { content: "x".repeat(2 * 1024 * 1024 + 10) });
  assert.equal(huge.status, 413);
  assert.equal(huge.body.error.code, "body_too_large");
  assert.equal((await w.json("GET", item("big/one"))).status, 404);
});

test("Chinese names are kept; absolute, NUL, backslash, emoji and over-long paths are 400", async () => {
  const put = await w.json("PUT", item("食谱/面包 做法"), { content: "# 面包\n面粉、水、盐。" });
  assert.equal(put.status, 200);
  assert.equal((await w.json("GET", item("食谱/面包 做法"))).body.content, "# 面包\n面粉、水、盐。");
  const hits = await w.json("GET", `/api/v1/knowledge/search?q=${encodeURIComponent("面粉")}`);
  assert.equal(hits.body.hits[0]?.path, "食谱/面包 做法");
  for (const path of ["/etc/passwd", "a\u0000b", "a\\..\\b", "面包 🍞", `${"x/".repeat(600)}y`]) {
    const res = await w.json("PUT", item(path), { content: "x" });
    assert.equal(res.status, 400, JSON.stringify(path).slice(0, 40));
  }
  assert.equal((await w.json("DELETE", item("食谱"))).status, 400, "a category is not an item");
  assert.equal((await w.json("DELETE", item("食谱/面包 做法"))).status, 200);
});
