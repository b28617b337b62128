/** The lexical tier's query-time corrections: IDF-weighted query vectors and pivoted length normalisation. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { LexicalEmbedder } from "../embedding/lexical.js";
import { PIVOT_SLOPE, pivoted } from "./lexical-query.js";
import { SearchIndex } from "./search.js";

const VECTOR_ONLY = { weights: { bm25: 0, vector: 1 } };

/** 20 items sharing a common word, one holding a rare one; every item also has words of its own. */
async function corpus(common: string, rare: string, filler: (i: number) => string): Promise<SearchIndex> {
  const index = new SearchIndex(":memory:", { embedder: new LexicalEmbedder() });
  const items = Array.from({ length: 20 }, (_, i) => ({ id: `common${i}`, text: `${common} ${filler(i)}` }));
  await index.add([...items, { id: "rare", text: `${rare} ${filler(20)}` }]);
  return index;
}

test("a query's rare word counts more than its common one in the vector component (English and Chinese)", async () => {
  // "yesterday" is longer than "oboe", so unweighted it brings more n-gram features to the query vector
  // and its 20 items would come first; weighted by IDF the one item sharing the rare word does.
  const en = await corpus("yesterday", "oboe", (i) => `filler${String.fromCharCode(97 + i)}`);
  assert.equal((await en.search("oboe yesterday", VECTOR_ONLY))[0]?.id, "rare");
  const zh = await corpus("今天", "钢琴", (i) => ["散步", "下雨", "开会", "加班", "做饭"][i % 5]);
  assert.equal((await zh.search("今天钢琴", VECTOR_ONLY))[0]?.id, "rare");
  await en.close();
  await zh.close();
});

test("a query prepared by one index is weighted by the IDF of the index that searches with it", async () => {
  const a = await corpus("yesterday", "oboe", (i) => `filler${String.fromCharCode(97 + i)}`);
  const b = await corpus("oboe", "yesterday", (i) => `filler${String.fromCharCode(97 + i)}`);
  const q = await a.prepare("oboe yesterday");
  assert.equal((await a.search(q, VECTOR_ONLY))[0]?.id, "rare");
  assert.equal((await b.search(q, VECTOR_ONLY))[0]?.id, "rare", "b's rare word is yesterday");
  await a.close();
  await b.close();
});

test("pivoted length normalisation leaves an average-length item alone and lifts longer ones, boundedly", () => {
  assert.equal(pivoted(0.5, 1), 0.5);
  assert.ok(pivoted(0.5, 4) > 0.5 && pivoted(0.5, 0.25) < 0.5);
  // As the length grows the factor tends to 1 / PIVOT_SLOPE, so length alone never outweighs similarity.
  assert.ok(pivoted(0.5, 1e12) < 0.5 / PIVOT_SLOPE);
  assert.ok(pivoted(0.2, 4) < pivoted(0.3, 4), "monotone in the cosine");
});
