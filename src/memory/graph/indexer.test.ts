/** The 【记忆索引】 block: what matches, its format and budget, and what markRecalled keeps out of it. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { WordEmbedder } from "../../../test/fixtures/embedding/word-embedder.js";
import { openGraph } from "../../../test/fixtures/memory-graph.js";
import { estimateTokens } from "../../kernel/budget.js";
import { Indexer, queryKeywords } from "./indexer.js";

/** Synonyms share a vector, so "automobile" finds "car" with no word in common. */
class SynonymEmbedder extends WordEmbedder {
  override vector(text: string): Float32Array {
    return super.vector(text.replace(/automobile|汽车/gi, "car"));
  }
}

async function seeded() {
  const g = openGraph({ embedder: new SynonymEmbedder() });
  g.graph.commit([
    { subject: "Alice", relation: "lives in", object: "Paris", subjectType: "Person", objectType: "Place" },
    { subject: "Alice", relation: "works at", object: "Acme" },
    { subject: "Paris", relation: "capital of", object: "France" },
    { subject: "France", relation: "borders", object: "Spain" },
    { subject: "Bob", relation: "drives", object: "red car" },
  ]);
  g.graph.setTrait("Alice", "age", "31");
  await g.index.flush();
  return { ...g, indexer: new Indexer(g.graph, g.index) };
}

const HEAD = "【记忆索引】 关联 ";
const TAIL = " | 需更多细节请用 memory_recall 查询";

test("the block names the related entities (type unless Concept) and the facts two hops out", async () => {
  const { index, indexer, close } = await seeded();
  const block = await indexer.buildContext(await index.prepare("Where does Alice live?"), 500, "r1");
  assert.ok(block.startsWith(`${HEAD}4 个记忆实体，高频：`), block);
  assert.ok(block.endsWith(TAIL), block);
  assert.match(block, /高频：Alice\(Person\)、/);
  assert.match(block, /Paris\(Place\)/);
  assert.match(block, / 索引: Alice age 31; /, "traits first");
  for (const fact of ["Alice lives in Paris", "Alice works at Acme", "Paris capital of France"]) {
    assert.ok(block.includes(fact), `${fact} in ${block}`);
  }
  assert.ok(!block.includes("Spain"), "three hops away");
  assert.ok(!block.includes("Bob"), "unrelated");
  await close();
});

test("nothing relevant, or no budget: the block is empty", async () => {
  const { index, indexer, close } = await seeded();
  assert.equal(await indexer.buildContext(await index.prepare("what is the weather like today"), 500, "r1"), "");
  assert.equal(await indexer.buildContext(await index.prepare("的 了 吗"), 500, "r1"), "", "stop words only");
  assert.equal(await indexer.buildContext(await index.prepare("Alice"), 0, "r1"), "");
  assert.equal(await indexer.buildContext(await index.prepare("Alice"), 10, "r1"), "", "not even the header fits");
  await close();
});

test("facts are cut to the token budget; the block never exceeds it", async () => {
  const { graph, index, indexer, close } = await seeded();
  graph.commit(
    Array.from({ length: 40 }, (_, i) => ({ subject: "Alice", relation: "visited", object: `museum number ${i}` })),
  );
  const q = await index.prepare("Alice");
  const full = await indexer.buildContext(q, 2000, "r1");
  let least = 1;
  while ((await indexer.buildContext(q, least, "r1")) === "") least++;
  assert.ok(!(await indexer.buildContext(q, least, "r1")).includes(" 索引: "), "just the header fits: names only");
  for (const budget of [least, least + 10, least + 40, least + 150]) {
    const block = await indexer.buildContext(q, budget, "r1");
    assert.ok(block.startsWith(HEAD) && block.endsWith(TAIL), `${budget}: ${block}`);
    assert.ok(estimateTokens(block) <= budget, `${budget}: ${estimateTokens(block)} tokens`);
    assert.ok(block.length < full.length);
  }
  await close();
});

test("a vector match finds an entity with no word in common with the message", async () => {
  const { index, indexer, graph, close } = await seeded();
  const block = await indexer.buildContext(await index.prepare("automobile"), 500, "r1");
  assert.ok(block.includes("Bob drives red car"), block);
  const strict = new Indexer(graph, index, { minSimilarity: 0.99 });
  assert.equal(await strict.buildContext(await index.prepare("automobile"), 500, "r1"), "", "below the floor");
  await close();
});

test("markRecalled keeps fetched entities out of that turn's block; endTurn clears it", async () => {
  const { index, indexer, close } = await seeded();
  const q = await index.prepare("Alice Paris");
  indexer.markRecalled("r1", ["alice"]);
  const block = await indexer.buildContext(q, 500, "r1");
  assert.ok(!block.includes("Alice"), block);
  assert.ok(block.includes("Paris capital of France"), block);
  assert.ok((await indexer.buildContext(q, 500, "r2")).includes("Alice lives in Paris"), "other turns unaffected");
  indexer.markRecalled("r1", ["Paris", "France", "Acme", "Spain"]);
  assert.equal(await indexer.buildContext(q, 500, "r1"), "", "everything was fetched already");
  indexer.endTurn("r1");
  assert.ok((await indexer.buildContext(q, 500, "r1")).includes("Alice lives in Paris"));
  await close();
});

test("keywords: at most five, the most specific, in message order; short Latin tokens dropped", () => {
  assert.deepEqual(queryKeywords(["go", "to", "paris", "with", "my", "sister"]), ["paris", "with", "sister"]);
  assert.deepEqual(queryKeywords(["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "北京大学"]), [
    "alpha",
    "gamma",
    "delta",
    "epsilon",
    "北京大学",
  ]);
  assert.deepEqual(queryKeywords(["猫", "猫咪", "猫咪"]), ["猫咪"]);
});

test("entity names are scanned for the message's keywords only when the index matched no entity", async () => {
  const { graph, index, indexer, close } = await seeded();
  graph.commit([{ subject: "Carol", relation: "keeps", object: "a leather notebook" }]);
  await index.flush();
  const keywordsAsked: string[][] = [];
  const recall = graph.recall.bind(graph);
  graph.recall = (keywords, ...rest) => {
    keywordsAsked.push([...keywords]);
    return recall(keywords, ...rest);
  };
  const matched = await indexer.buildContext(await index.prepare("Where does Alice live?"), 500, "r1");
  assert.ok(matched.includes("Alice lives in Paris"), matched);
  assert.deepEqual(keywordsAsked.at(-1), [], "the index found Alice: no scan of every entity name");
  // "book" is no word of any entity, only part of one: the scan finds it.
  const inside = await indexer.buildContext(await index.prepare("the book"), 500, "r1");
  assert.ok(inside.includes("Carol keeps a leather notebook"), inside);
  assert.deepEqual(keywordsAsked.at(-1), ["book"]);
  await close();
});

test("an empty graph is asked nothing: no entity search, no scan of names", async () => {
  const { graph, index, close } = openGraph({ embedder: new SynonymEmbedder() });
  const indexer = new Indexer(graph, index);
  let searched = 0;
  let recalled = 0;
  const search = index.search.bind(index);
  index.search = (...args) => {
    searched++;
    return search(...args);
  };
  const recall = graph.recall.bind(graph);
  graph.recall = (...args) => {
    recalled++;
    return recall(...args);
  };
  assert.equal(await indexer.buildContext(await index.prepare("Where does Alice live?"), 500, "r1"), "");
  assert.deepEqual({ searched, recalled }, { searched: 0, recalled: 0 });
  graph.commit([{ subject: "Alice", relation: "lives in", object: "Paris" }]);
  await index.flush();
  assert.ok((await indexer.buildContext(await index.prepare("Where does Alice live?"), 500, "r1")).includes("Paris"));
  assert.deepEqual({ searched, recalled }, { searched: 1, recalled: 1 });
  await close();
});
