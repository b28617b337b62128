import assert from "node:assert/strict";
import { test } from "node:test";
import { directJobs } from "../../../test/fixtures/distill-fakes.js";
import { openLayers } from "../../../test/fixtures/memory-layers.js";
import type { ContextEvent } from "../../kernel/types.js";
import { GraphDB } from "../graph.js";
import { ARCHIVE_MAX_PER_TICK, runArchiveLoop } from "./archive.js";
import { docToTriples, isNoise } from "./doc-triples.js";

const HOUR = 60 * 60 * 1000;
const T0 = Date.UTC(2024, 4, 1, 9);

function said(id: number, ts: number, input: string, response = "ok"): ContextEvent {
  return {
    id,
    ts,
    kind: "user",
    source: "cli",
    channel: "cli",
    input,
    response,
    toolsUsed: [],
    toolResults: [],
    noMemory: false,
  };
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

  const again = await runArchiveLoop({ docs: s.docs, graph: s.graph, runJob: directJobs(), now: () => T0 + 74 * HOUR });
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
