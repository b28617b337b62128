import assert from "node:assert/strict";
import { performance } from "node:perf_hooks";
import { test } from "node:test";
import { directJobs } from "../../../test/fixtures/distill-fakes.js";
import { openLayers, storedEvent } from "../../../test/fixtures/memory-layers.js";
import type { ContextEvent } from "../../kernel/types.js";
import { GraphDB } from "../graph/graph.js";
import { ARCHIVE_MAX_PER_TICK, runArchiveLoop } from "./archive.js";
import { docToTriples, isNoise } from "./doc-triples.js";

const HOUR = 60 * 60 * 1000;
const T0 = Date.UTC(2024, 4, 1, 9);

function said(id: number, ts: number, input: string, response = "ok"): ContextEvent {
  return storedEvent(id, ts, input, { response });
}

function setup() {
  let now = T0;
  const layers = openLayers({ now: () => now });
  const graph = new GraphDB(layers.db, layers.index, { now: () => now, timeZone: "UTC" });
  return {
    ...layers,
    graph,
    at(ms: number) {
      now = ms;
    },
  };
}

test("archive distills only cold documents into the graph and keeps their verbatim turns searchable", async () => {
  const s = setup();
  const cold = s.docs.archive([said(1, T0, "我住在北京，我喜欢爬山"), said(2, T0 + 1, "I work as a nurse")])!;
  const busy = s.docs.archive([said(3, T0 + 2, "I live in Oslo")])!;
  s.db.prepare("UPDATE documents SET access_count = 3 WHERE id = ?").run(busy.id);
  s.at(T0 + 70 * HOUR);
  const recent = s.docs.archive([said(4, T0 + 70 * HOUR, "I live in Rome")])!;

  s.at(T0 + 73 * HOUR);
  const summary = await runArchiveLoop({
    db: s.db,
    docs: s.docs,
    graph: s.graph,
    runJob: directJobs(),
    now: () => T0 + 73 * HOUR,
    timeZone: "UTC",
  });
  assert.match(summary, /^archive: 1 cold documents → \d+ new relations/);

  const facts = s.graph.relationsOf("用户").map((r) => `${r.relation}:${r.object}`);
  assert.deepEqual(facts.sort(), ["喜好:爬山", "居住地:北京", "职业:nurse"]);
  const sentence = s.graph.relationsOf("用户").find((r) => r.object === "北京")?.sentence;
  assert.equal(sentence, "我住在北京，我喜欢爬山", "each fact cites the turn it came from");
  assert.ok(s.graph.entity("文档 2024-05-01"), "the document's day is its subject");
  assert.ok(!s.graph.entity("Oslo") && !s.graph.entity("Rome"), "busy and recent documents stay out");

  assert.notEqual(s.docs.get(cold.id)?.distilledAt, null);
  assert.equal(s.docs.get(busy.id)?.distilledAt, null);
  assert.equal(s.docs.get(recent.id)?.distilledAt, null);
  assert.equal(s.docs.turns(cold.id).length, 2, "the document is kept, verbatim");
  const hits = await s.index.search("北京 爬山", { k: 5, filter: { kind: "turn" } });
  assert.ok(
    hits.some((h) => h.meta.docId === cold.id),
    "its turns are still found by search",
  );

  const again = await runArchiveLoop({
    db: s.db,
    docs: s.docs,
    graph: s.graph,
    runJob: directJobs(),
    now: () => T0 + 74 * HOUR,
  });
  assert.match(again, /^archive: 0 cold documents/, "a distilled document is not distilled twice");
});

test("a document whose commit fails stays cold for the next tick; the others go on", async () => {
  const s = setup();
  const a = s.docs.archive([said(1, T0, "I live in Paris")])!;
  const b = s.docs.archive([said(2, T0 + 1, "I live in Lyon")])!;
  let failures = 1;
  const graph = {
    commit: (...args: Parameters<GraphDB["commit"]>) => {
      if (failures-- > 0) throw new Error("disk I/O error");
      return s.graph.commit(...args);
    },
  };
  const warnings: string[] = [];
  const deps = {
    db: s.db,
    docs: s.docs,
    graph,
    runJob: directJobs(),
    now: () => T0 + 100 * HOUR,
    log: { info: () => {}, warn: (m: string) => warnings.push(m) },
  };
  assert.match(await runArchiveLoop(deps), /1 cold documents .*\(1 failed\)$/);
  assert.equal(s.docs.get(a.id)?.distilledAt, null);
  assert.notEqual(s.docs.get(b.id)?.distilledAt, null);
  assert.match(warnings[0], /disk I\/O error/);
  assert.match(await runArchiveLoop(deps), /1 cold documents .*\(0 failed\)$/);
  assert.notEqual(s.docs.get(a.id)?.distilledAt, null);
});

/** A commit that takes `ms` of CPU, so a 40 ms job step holds only a few of them. */
function slowCommits(graph: GraphDB, ms: number) {
  return {
    commit: (...args: Parameters<GraphDB["commit"]>) => {
      const until = performance.now() + ms;
      while (performance.now() < until);
      return graph.commit(...args);
    },
  };
}

test("a document interrupted mid-way resumes at its next turn: no fact is counted twice", async () => {
  const s = setup();
  const doc = s.docs.archive(Array.from({ length: 6 }, (_, i) => said(i + 1, T0 + i, `I like sport${i}`)))!;
  let commits = 0;
  const graph = {
    commit: (...args: Parameters<GraphDB["commit"]>) => {
      if (++commits === 4) throw new Error("killed");
      return s.graph.commit(...args);
    },
  };
  const deps = { db: s.db, docs: s.docs, graph, runJob: directJobs(), now: () => T0 + 100 * HOUR, timeZone: "UTC" };
  assert.match(await runArchiveLoop(deps), /0 cold documents .*\(1 failed\)$/);
  assert.equal(s.graph.entity("用户")?.mentionCount, 3, "three turns were in before the failure");
  assert.equal(s.docs.get(doc.id)?.distilledAt, null, "not marked before all its turns are in");

  assert.match(await runArchiveLoop(deps), /1 cold documents .*\(0 failed\)$/);
  assert.equal(s.graph.entity("用户")?.mentionCount, 6, "each turn committed exactly once");
  assert.notEqual(s.docs.get(doc.id)?.distilledAt, null);
  assert.equal(s.db.prepare("SELECT COUNT(*) FROM distill_archive_progress").pluck().get(), 0);
});

test("a document taken out between two steps (doc_query, forget) is dropped, not distilled further", async () => {
  const s = setup();
  const doc = s.docs.archive(Array.from({ length: 40 }, (_, i) => said(i + 1, T0 + i, `I like sport${i}`)))!;
  let before = 0;
  const runJob = directJobs({
    afterStep: (n) => {
      if (n !== 1) return;
      before = s.graph.entity("用户")?.mentionCount ?? 0;
      s.docs.take([doc.id]);
    },
  });
  const summary = await runArchiveLoop({
    db: s.db,
    docs: s.docs,
    graph: slowCommits(s.graph, 10),
    runJob,
    now: () => T0 + 100 * HOUR,
  });
  assert.ok(before > 0 && before < 40, `the first step committed part of the document (${before})`);
  assert.match(summary, /^archive: 0 cold documents/);
  assert.equal(s.graph.entity("用户")?.mentionCount, before, "nothing of it was committed after it left");
  assert.equal(s.db.prepare("SELECT COUNT(*) FROM distill_archive_progress").pluck().get(), 0);
});

test("docToTriples: rule facts per turn with their sentence, topics and sources on the day's document", () => {
  const doc = {
    id: "doc_1",
    summary: "s",
    tags: ["context_archived", "jazz", "25", "的", "Jazz"],
    source: "manual",
    tsStart: T0,
    distilledAt: null,
  };
  const turns = [
    { ts: T0, source: "cli", input: "I like jazz" },
    { ts: T0 + 1, source: "kernel", input: "我住在北京" },
    { ts: T0 + 2, source: "webui", input: "" },
  ];
  const commits = docToTriples(doc, turns, () => "2024-05-01");
  assert.deepEqual(commits[0], {
    triples: [{ subject: "用户", subjectType: "Person", relation: "喜好", object: "jazz" }],
    sentence: "I like jazz",
    ts: T0,
    sessionId: "distill",
  });
  assert.deepEqual(
    commits[1].triples.map((t) => `${t.subject}|${t.relation}|${t.object}`),
    ["文档 2024-05-01|主题|jazz", "文档 2024-05-01|来源|cli", "文档 2024-05-01|来源|webui"],
    "bookkeeping tags, numbers, stop words and duplicates are dropped; the agent's own turns are not sources",
  );
  assert.equal(commits.length, 2, "a self-task's text is not the user's");
});

test("the noise filter drops self-loops, numbers, stop words and names the graph refuses", () => {
  const t = (subject: string, object: string) => ({ subject, relation: "r", object });
  assert.equal(isNoise(t("用户", "用户")), true);
  assert.equal(isNoise(t("用户", "2024")), true);
  assert.equal(isNoise(t("用户", "the")), true);
  assert.equal(isNoise(t("用户", "x")), true);
  assert.equal(isNoise(t("用户", "x".repeat(51))), true);
  assert.equal(isNoise(t("用户", "25岁")), false);
  assert.equal(ARCHIVE_MAX_PER_TICK, 500);
});
