/** graphPage: nodes by mentions then name, edges touching the page, total, paging and argument bounds. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type GraphFixture, openGraph } from "../../../test/fixtures/memory-graph.js";
import { GRAPH_PAGE_LIMITS, graphPage } from "./page.js";

/** Hub 4 mentions; Alice and Bob 2; Carol, Dave and Erin 1 each (Erin's only fact soft-purged). */
function seed(g: GraphFixture): void {
  g.graph.commit([
    { subject: "Hub", relation: "links", object: "Alice" },
    { subject: "Hub", relation: "links", object: "Bob" },
    { subject: "Hub", relation: "links", object: "Carol" },
    { subject: "Alice", relation: "knows", object: "Bob" },
    { subject: "Dave", relation: "follows", object: "Hub" },
    { subject: "Erin", relation: "visited", object: "Zed Town" },
  ]);
  g.graph.purge({ subjectContains: "Erin", mode: "soft" });
}

const names = (p: { nodes: Array<{ name: string }> }) => p.nodes.map((n) => n.name);
const facts = (p: { edges: Array<{ subject: string; relation: string; object: string }> }) =>
  p.edges.map((e) => `${e.subject} ${e.relation} ${e.object}`).sort();

test("nodes come most mentioned first, ties by name; hidden entities are neither listed nor counted", async (t) => {
  const g = openGraph();
  t.after(() => g.close());
  seed(g);
  const page = graphPage(g.db, {});
  assert.deepEqual(names(page), ["Hub", "Alice", "Bob", "Carol", "Dave"]);
  assert.deepEqual(
    page.nodes.map((n) => n.mentions),
    [4, 2, 2, 1, 1],
  );
  assert.equal(page.total, 5, "Erin and Zed Town only have a soft-purged fact: out of sight");
  assert.ok(page.edges.every((e) => e.status === "active"));
  assert.equal(page.edges.length, 5);
});

test("a page's edges are the active facts with an end on that page, including ends on other pages", async (t) => {
  const g = openGraph();
  t.after(() => g.close());
  seed(g);
  const first = graphPage(g.db, { offset: 0, limit: 2 });
  assert.deepEqual(names(first), ["Hub", "Alice"]);
  assert.deepEqual(facts(first), [
    "Alice knows Bob",
    "Dave follows Hub",
    "Hub links Alice",
    "Hub links Bob",
    "Hub links Carol",
  ]);
  assert.equal(first.total, 5);
  const last = graphPage(g.db, { offset: 4, limit: 2 });
  assert.deepEqual(names(last), ["Dave"]);
  assert.deepEqual(facts(last), ["Dave follows Hub"]);
  const beyond = graphPage(g.db, { offset: 5, limit: 2 });
  assert.deepEqual(beyond, { nodes: [], edges: [], total: 5 });
});

test("the default page holds 200 nodes and the whole graph is reachable by paging", async (t) => {
  const g = openGraph();
  t.after(() => g.close());
  const triples = Array.from({ length: 250 }, (_, i) => ({
    subject: `node-${String(i).padStart(3, "0")}`,
    relation: "next",
    object: `node-${String(i + 1).padStart(3, "0")}`,
  }));
  g.graph.commit(triples);
  const page = graphPage(g.db, undefined);
  assert.equal(page.nodes.length, GRAPH_PAGE_LIMITS.defaultLimit);
  assert.equal(page.total, 251);
  const seen = new Set<string>();
  for (let offset = 0; offset < page.total; offset += 100) {
    for (const n of graphPage(g.db, { offset, limit: 100 }).nodes) seen.add(n.name);
  }
  assert.equal(seen.size, 251, "every node once");
  assert.equal(graphPage(g.db, { limit: GRAPH_PAGE_LIMITS.maxLimit }).nodes.length, 251);
});

test("bad offset or limit is refused with invalid_argument and says the range", async (t) => {
  const g = openGraph();
  t.after(() => g.close());
  const bad: Array<[Record<string, unknown>, RegExp]> = [
    [{ offset: -1 }, /offset must be an integer ≥ 0, got -1/],
    [{ offset: 1.5 }, /offset must be an integer ≥ 0/],
    [{ offset: "3" }, /offset must be an integer ≥ 0, got "3"/],
    [{ limit: 0 }, /limit must be an integer from 1 to 1000, got 0/],
    [{ limit: 1001 }, /limit must be an integer from 1 to 1000, got 1001/],
    [{ limit: 2.5 }, /limit must be an integer from 1 to 1000/],
    [{ limit: Number.NaN }, /limit must be an integer from 1 to 1000, got NaN/],
  ];
  for (const [opts, message] of bad) {
    assert.throws(
      () => graphPage(g.db, opts as { offset?: number; limit?: number }),
      (err: Error & { code?: string }) => err.code === "invalid_argument" && message.test(err.message),
      JSON.stringify(opts),
    );
  }
});

test("a hub's edges are capped, keeping the facts between two nodes of the page", async (t) => {
  const g = openGraph();
  t.after(() => g.close());
  const leaves = GRAPH_PAGE_LIMITS.maxEdges + 100;
  for (let from = 0; from < leaves; from += 500) {
    const batch = Array.from({ length: Math.min(500, leaves - from) }, (_, i) => ({
      subject: "Hub",
      relation: "links",
      object: `leaf-${String(from + i).padStart(5, "0")}`,
    }));
    g.graph.commit(batch);
  }
  const page = graphPage(g.db, { limit: 2 });
  assert.deepEqual(names(page), ["Hub", "leaf-00000"]);
  assert.equal(page.edges.length, GRAPH_PAGE_LIMITS.maxEdges);
  assert.equal(page.edges[0].object, "leaf-00000", "the oldest fact, but both its ends are on the page");
});
