/**
 * The plugin-facing memory calls added for the web UI — history, commit, graph — on a real MemorySystem
 * (memory.db in a temp dir) behind a real Agent: history spans the context window and the turns a prune
 * archived, follows `forget`, and commit writes facts that recall finds.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { HistoryEntry, MemoryAPI } from "@homeagent/sdk";
import { type MemoryHarness, startMemoryAgent } from "../../test/fixtures/memory-system.js";
import type { NewContextEvent } from "../kernel/types.js";
import { memoryApis } from "./memory-api.js";

const T = Date.UTC(2025, 0, 6, 9);

function setup(t: { after(fn: () => Promise<void>): void }, contextSize?: number) {
  const h = startMemoryAgent({ contextSize });
  t.after(() => h.close());
  return { h, memory: memoryApis(h.memory).memory };
}

/** A user input at T + `at` minutes from `source`, answered unless `response` is "". */
async function said(
  h: MemoryHarness,
  at: number,
  source: string,
  input: string,
  response = `re: ${input}`,
  extra: Partial<NewContextEvent> = {},
): Promise<number> {
  const channel = source.split("/")[0];
  const id = await h.memory.context.append({ ts: T + at * 60_000, kind: "user", source, channel, input, ...extra });
  if (response) await h.memory.context.respond(id, { response, toolsUsed: [], toolResults: [] });
  return id;
}

/** Eight exchanges from four sources; the oldest five are archived into a document, three stay in the window. */
async function conversation(h: MemoryHarness): Promise<void> {
  await said(h, 1, "webui", "w1");
  await said(h, 2, "cli", "c1");
  await said(h, 3, "webui/phone", "p1");
  await said(h, 4, "webuix", "x1");
  await said(h, 5, "webui", "w2");
  await said(h, 6, "webui/phone", "p2");
  await said(h, 7, "webui", "w3", "");
  await said(h, 8, "cli", "c2");
  const archived = await h.memory.context.prune("", 3);
  assert.equal(archived.length, 5);
  assert.equal(h.memory.docs.count(), 1);
}

const inputs = (items: HistoryEntry[]) => items.map((e) => e.input);

test("history: the window, then archived turns, newest first, by source prefix", async (t) => {
  const { h, memory } = setup(t);
  await conversation(h);
  const webui = await memory.history({ source: "webui" });
  assert.deepEqual(inputs(webui.items), ["w3", "p2", "w2", "p1", "w1"], '"webuix" is another source');
  assert.equal(webui.more, false);
  assert.deepEqual(
    webui.items.map((e) => e.id.split(":")[0]),
    ["ctx", "ctx", "turn", "turn", "turn"],
  );
  assert.deepEqual(webui.items[1], {
    id: webui.items[1].id,
    ts: T + 6 * 60_000,
    source: "webui/phone",
    channel: "webui",
    input: "p2",
    response: "re: p2",
  });
  assert.equal(webui.items[0].response, "", "not answered yet");
  assert.equal(webui.items[2].response, "re: w2", "the archived turn keeps its reply");
  assert.deepEqual(inputs((await memory.history({ source: "webui/phone" })).items), ["p2", "p1"]);
  assert.deepEqual(inputs((await memory.history({ source: "webuix" })).items), ["x1"]);
  assert.deepEqual(inputs((await memory.history()).items), ["c2", "w3", "p2", "w2", "x1", "p1", "c1", "w1"]);
});

test("history: `before` and `limit` page through both layers; `more` tells whether older entries exist", async (t) => {
  const { h, memory } = setup(t);
  await conversation(h);
  const pages: string[][] = [];
  const more: boolean[] = [];
  let before: number | undefined;
  for (;;) {
    const page = await memory.history({ source: "webui", before, limit: 2 });
    pages.push(inputs(page.items));
    more.push(page.more);
    if (!page.more) break;
    before = page.items[page.items.length - 1].ts;
  }
  assert.deepEqual(pages, [["w3", "p2"], ["w2", "p1"], ["w1"]]);
  assert.deepEqual(more, [true, true, false]);
  assert.deepEqual(inputs((await memory.history({ source: "webui", before: T + 5 * 60_000 })).items), ["p1", "w1"]);
  assert.deepEqual((await memory.history({ source: "webui", before: T })).items, []);
  assert.deepEqual(inputs((await memory.history({ source: "webui", limit: 5 })).items).length, 5);
  assert.equal((await memory.history({ source: "webui", limit: 5 })).more, false);
});

test("history: a page never ends inside a millisecond, so paging by `before` skips nothing", async (t) => {
  const { h, memory } = setup(t);
  await said(h, 1, "webui", "a");
  await said(h, 2, "webui", "b1");
  await said(h, 2, "webui", "b2");
  await said(h, 2, "webui", "b3");
  await said(h, 3, "webui", "c");
  await h.memory.context.prune("", 3);
  const first = await memory.history({ source: "webui", limit: 2 });
  assert.deepEqual(inputs(first.items), ["c"], "b2 and b3 share b1's millisecond: the page stops before them");
  assert.equal(first.more, true);
  const rest = await memory.history({ source: "webui", before: first.items[0].ts, limit: 10 });
  assert.deepEqual(inputs(rest.items), ["b3", "b2", "b1", "a"]);
  assert.equal(rest.more, false);
});

test("history: NoMemory inputs and recalled notes are not conversation", async (t) => {
  const { h, memory } = setup(t);
  await said(h, 1, "webui", "kept");
  await said(h, 2, "webui", "terminal noise", "", { noMemory: true });
  await said(h, 3, "webui", "a recalled note", "", { kind: "cold_storage", channel: "document" });
  await said(h, 4, "webui", "an older turn recalled", "its reply", { kind: "cold_storage" });
  assert.deepEqual(inputs((await memory.history()).items), ["an older turn recalled", "kept"]);
});

test("history: bad source, before or limit is refused with invalid_argument", async (t) => {
  const { memory } = setup(t);
  const bad: Array<[Parameters<MemoryAPI["history"]>[0], RegExp]> = [
    [{ limit: 0 }, /limit must be an integer from 1 to 200, got 0/],
    [{ limit: 201 }, /limit must be an integer from 1 to 200, got 201/],
    [{ limit: 1.5 }, /limit must be an integer from 1 to 200/],
    [{ before: -1 }, /before \(unix ms\) must be an integer ≥ 0, got -1/],
    [{ before: "yesterday" as unknown as number }, /before \(unix ms\) must be an integer ≥ 0, got "yesterday"/],
    [{ source: "" }, /source must be a source name of 1–200 characters/],
    [{ source: 7 as unknown as string }, /source must be a source name/],
    [{ source: "x".repeat(201) }, /source must be a source name of 1–200 characters/],
  ];
  for (const [opts, message] of bad) {
    await assert.rejects(
      memory.history(opts),
      (err: Error & { code?: string }) => err.code === "invalid_argument" && message.test(err.message),
      JSON.stringify(opts),
    );
  }
});

test("history: after forget, the exchange is gone from the window and from the archived turns", async (t) => {
  const { h, memory } = setup(t, 3);
  const ask = async (text: string) => {
    const reply = await h.agent.injectInputSync("webui", "webui", text);
    assert.equal(reply.error, undefined);
  };
  await ask("my locker code is quokka-7731");
  for (const n of [1, 2, 3, 4]) await ask(`filler question ${n}`);
  await ask("what was quokka-7731 for again?");
  const before = await memory.history({ source: "webui" });
  assert.equal(before.items.length, 6);
  assert.ok(
    before.items.some((e) => e.id.startsWith("turn:") && e.input.includes("quokka")),
    "the first mention was archived",
  );
  assert.ok(before.items.some((e) => e.id.startsWith("ctx:") && e.input.includes("quokka")));
  const sorted = [...before.items].sort((a, b) => b.ts - a.ts);
  assert.deepEqual(
    before.items.map((e) => e.ts),
    sorted.map((e) => e.ts),
  );

  const report = await memory.forget("quokka-7731", { confirm: true });
  assert.equal(report.removed.context, 1);
  const after = await memory.history({ source: "webui" });
  assert.deepEqual(inputs(after.items), [
    "filler question 4",
    "filler question 3",
    "filler question 2",
    "filler question 1",
  ]);
  assert.ok(after.items.every((e) => !`${e.input} ${e.response}`.includes("quokka")));
});

test("commit writes facts that recall finds, with their sentence; committing again refreshes them", async (t) => {
  const { memory } = setup(t);
  const sentence = "Marguerite grows tomatoes on her balcony.";
  const triples = [
    { subject: "Marguerite", relation: "grows", object: "tomatoes" },
    { subject: "Marguerite", relation: "lives in", object: "Lyon", confidence: 0.6 },
  ];
  assert.deepEqual(await memory.commit(triples, { sentence }), { added: 2, updated: 0 });
  const found = await memory.recall("Marguerite");
  const grows = found.relations.find((r) => r.relation === "grows");
  assert.ok(grows, "recall finds the committed fact");
  assert.equal(grows.object, "tomatoes");
  assert.equal(grows.confidence, 0.9, "told by the user");
  assert.equal(grows.sentence, sentence);
  assert.equal(found.relations.find((r) => r.relation === "lives in")?.confidence, 0.6);
  assert.deepEqual(await memory.commit([triples[0]]), { added: 0, updated: 1 });
  const page = await memory.graph({ limit: 10 });
  assert.equal(page.nodes[0].name, "Marguerite");
  assert.equal(page.edges.length, 2);
});

test("commit refuses bad input with invalid_argument and writes nothing", async (t) => {
  const { memory } = setup(t);
  const ok = { subject: "Alice", relation: "likes", object: "tea" };
  const bad: Array<[unknown, RegExp]> = [
    [[], /triples must be an array of 1–100/],
    ["Alice likes tea", /triples must be an array of 1–100/],
    [Array.from({ length: 101 }, () => ok), /triples must be an array of 1–100/],
    [[ok, null], /triple #2 must be an object/],
    [[ok, { ...ok, subject: "  " }], /triple #2: subject must be a non-empty string of at most 512 characters/],
    [[ok, { ...ok, relation: "r".repeat(513) }], /triple #2: relation must be a non-empty string of at most 512/],
    [[ok, { ...ok, object: 42 }], /triple #2: object must be a non-empty string .* got 42/],
    [[ok, { ...ok, confidence: 0 }], /triple #2: confidence must be a number above 0 and at most 1, got 0/],
    [[ok, { ...ok, confidence: 1.5 }], /confidence must be a number above 0 and at most 1, got 1.5/],
    [[ok, { ...ok, confidence: "high" }], /confidence must be a number above 0 and at most 1, got "high"/],
    [[ok, { ...ok, subject: "I" }], /triple #2: "I" must be 2–50 characters/],
    [[ok, { ...ok, object: "Alice" }], /triple #2: subject and object are the same/],
  ];
  for (const [triples, message] of bad) {
    await assert.rejects(
      memory.commit(triples as Parameters<MemoryAPI["commit"]>[0]),
      (err: Error & { code?: string }) => err.code === "invalid_argument" && message.test(err.message),
      message.source,
    );
  }
  await assert.rejects(
    memory.commit([ok], { sentence: "s".repeat(4001) }),
    (err: Error & { code?: string }) => err.code === "invalid_argument" && /more than 4000/.test(err.message),
  );
  const stats = await memory.stats();
  assert.equal(stats.entities, 0, "no call wrote anything");
  assert.equal(stats.relations, 0);
});

test("graph pages through the API, and refuses a limit over 1000", async (t) => {
  const { memory } = setup(t);
  await memory.commit([
    { subject: "Alice", relation: "knows", object: "Bob" },
    { subject: "Alice", relation: "likes", object: "tea" },
  ]);
  const page = await memory.graph({ offset: 0, limit: 1 });
  assert.deepEqual(
    page.nodes.map((n) => [n.name, n.mentions]),
    [["Alice", 2]],
  );
  assert.equal(page.total, 3);
  assert.equal(page.edges.length, 2);
  await assert.rejects(memory.graph({ limit: 1001 }), { code: "invalid_argument" });
  await assert.rejects(memory.graph({ offset: -5 }), { code: "invalid_argument" });
});
