import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { WordEmbedder } from "../../../test/fixtures/embedding/word-embedder.js";
import { openLayers, userEvent } from "../../../test/fixtures/memory-layers.js";
import { entryPath, NODE_FLAGS } from "../../../test/fixtures/node-entry.js";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import type { ContextEvent } from "../../kernel/types.js";
import type { IndexWriter } from "../../retrieval/search.js";
import { type DocSource, DocStore } from "../documents/documents.js";
import { ContextError, contextItemId, MAX_TURN_VERSIONS } from "./context.js";

const T0 = Date.UTC(2023, 4, 8, 9, 0);
const MIN = 60_000;

const FILLER = [
  "the weather is mild today",
  "I watched a movie last night",
  "lunch was a sandwich",
  "the train was late again",
  "I bought new running shoes",
  "my sister called me",
  "the garden needs water",
  "I read a chapter of a novel",
  "we played board games",
  "the printer ran out of ink",
  "I cleaned the kitchen",
  "the meeting moved to Friday",
  "a friend sent me photos",
  "I tried a new coffee shop",
];

test("the window is ordered by timestamp, then id, whatever the insert order", async () => {
  const { context } = openLayers();
  const b = await context.append(userEvent(T0 + 2 * MIN, "second"));
  const a = await context.append(userEvent(T0 + 2 * MIN, "second, same ts, later id"));
  const [old] = await context.insertByTimestamp([userEvent(T0, "first (re-inserted)", { kind: "cold_storage" })]);
  const window = await context.window();
  assert.deepEqual(
    window.map((e) => e.id),
    [old, b, a],
  );
  assert.equal(context.size(), 3);
});

test("prune keeps the 10 newest and the best-related older events, and archives the rest with their timestamps", async () => {
  const { context, docs, index } = openLayers();
  await context.append(userEvent(T0, "My daughter Emma plays the violin in the school orchestra"));
  for (const [i, text] of FILLER.entries()) await context.append(userEvent(T0 + (i + 1) * MIN, text));
  assert.equal(context.size(), 15);

  // The query also matches older filler, so without the protection the newest unrelated events would go.
  const out = await context.prune("does Emma still play the violin? weather, movie, sandwich, train, shoes", 12);
  const window = await context.window();
  assert.equal(window.length, 12);
  assert.deepEqual(
    window.slice(-10).map((e) => e.input),
    FILLER.slice(-10),
    "the 10 newest are protected",
  );
  assert.ok(
    window.some((e) => e.input.includes("Emma")),
    "the related old event is kept over newer unrelated ones",
  );
  assert.equal(out.length, 3);
  for (const e of out) assert.equal(index.get(contextItemId(e.id)), null, "pruned events leave the index");

  const [doc] = docs.list();
  assert.equal(docs.count(), 1, "one document per prune batch");
  assert.deepEqual(
    docs.turns(doc.id).map((t) => [t.ts, t.input]),
    out.map((e) => [e.ts, e.input]),
  );
  for (const t of docs.turns(doc.id)) assert.equal(index.get(`turn:${t.id}`)?.ts, t.ts);
});

test("prune takes a prepared query and ranks with the index's vectors", async () => {
  const { context, index } = openLayers({ index: { embedder: new WordEmbedder() } });
  await context.append(userEvent(T0, "Emma violin orchestra"));
  for (const [i, text] of FILLER.entries()) await context.append(userEvent(T0 + (i + 1) * MIN, text));
  await index.flush();
  await context.prune(await index.prepare("Emma violin"), 11);
  const window = await context.window();
  assert.equal(window.length, 11);
  assert.equal(window[0].input, "Emma violin orchestra");
});

test("the window never exceeds max_context_size when each user input prunes first", async () => {
  const { context } = openLayers();
  const max = 12;
  for (let i = 0; i < 40; i++) {
    await context.prune(`message ${i}`, max - 1);
    const id = await context.append(userEvent(T0 + i * MIN, `message ${i} about ${FILLER[i % FILLER.length]}`));
    await context.respond(id, { response: `reply ${i}`, toolsUsed: [], toolResults: [] });
    assert.ok(context.size() <= max, `size ${context.size()} after input ${i}`);
  }
  assert.equal(context.size(), max);
});

test("a prune that fails while archiving moves nothing: the window, the documents and the index are as before", async () => {
  let fail = false;
  const { context, docs, index, db } = openLayers({
    docs: (db, index) =>
      new (class extends DocStore {
        override archive(events: readonly ContextEvent[], source?: DocSource, w?: IndexWriter) {
          const doc = super.archive(events, source, w);
          if (fail) throw new Error("disk full (injected)");
          return doc;
        }
      })(db, index),
  });
  for (let i = 0; i < 14; i++) await context.append(userEvent(T0 + i * MIN, `event number ${i} ${FILLER[i]}`));
  const before = await context.window();
  const itemsBefore = index.count();

  fail = true;
  await assert.rejects(context.prune("anything", 10), /disk full/);
  assert.deepEqual(await context.window(), before);
  assert.equal(docs.count(), 0);
  assert.equal(db.prepare("SELECT COUNT(*) FROM doc_turns").pluck().get(), 0);
  assert.equal(index.count(), itemsBefore);
  assert.equal(index.count({ kind: "turn" }), 0);
  assert.equal((await index.search("event number", { k: 20, filter: { kind: "turn" } })).length, 0);

  fail = false;
  assert.equal((await context.prune("anything", 10)).length, 4);
  assert.equal(docs.count(), 1);
});

test("NoMemory events and the agentcli / terminal sources leave the window without being archived", async () => {
  const { context, docs, index } = openLayers();
  const secret = await context.append(userEvent(T0, "password is hunter2", { noMemory: true }));
  assert.equal(index.get(contextItemId(secret)), null, "a NoMemory event is never indexed");
  await context.append(userEvent(T0 + 1, "make build output", { source: "terminal", channel: "terminal" }));
  await context.append(userEvent(T0 + 2, "claude code session log", { source: "agentcli", channel: "agentcli" }));
  await context.append(userEvent(T0 + 3, "I moved to Berlin in March"));
  for (let i = 0; i < 10; i++) await context.append(userEvent(T0 + 10 + i, FILLER[i]));

  const out = await context.prune("x", 10);
  assert.equal(out.length, 4);
  const [doc] = docs.list();
  assert.equal(docs.count(), 1);
  assert.deepEqual(
    docs.turns(doc.id).map((t) => t.input),
    ["I moved to Berlin in March"],
  );
  assert.doesNotMatch(doc.content, /hunter2|make build|claude code/);
  assert.equal((await index.search("hunter2", { k: 5 })).length, 0);
});

test("tool results join the user event's vector unless NoMemory; the cleaner's text is what is indexed", async () => {
  const { context, index } = openLayers();
  const id = await context.append(userEvent(T0, "raw INPUT with noise", { cleanInput: "clean input" }));
  await context.respond(id, {
    response: "the answer",
    toolsUsed: ["weather", "shell"],
    toolResults: [
      { name: "weather", content: "<b>sunny</b> in Paris", clean: "sunny in Paris" },
      { name: "shell", content: "ssh-key-AAAA", noMemory: true },
    ],
  });
  const item = index.get(contextItemId(id));
  assert.ok(item);
  assert.match(item.text, /clean input/);
  assert.match(item.text, /sunny in Paris/);
  assert.doesNotMatch(item.text, /noise|<b>|ssh-key|the answer/);
  const [event] = await context.window();
  assert.equal(event.input, "raw INPUT with noise", "the stored text is never cleaned");
  assert.equal(event.toolResults[1].content, "ssh-key-AAAA", "NoMemory output is kept verbatim");

  const agent = await context.append({
    ts: T0 + 1,
    kind: "agent",
    source: "self",
    channel: "self",
    input: "",
    response: "I set a reminder",
  });
  assert.equal(index.get(contextItemId(agent))?.text, "I set a reminder");
  const [cold] = await context.insertByTimestamp([
    { ts: T0 - 1, kind: "cold_storage", source: "cli", channel: "cli", input: "old question", response: "old answer" },
  ]);
  assert.equal(index.get(contextItemId(cold))?.text, "old question old answer");

  await context.markUnanswered(id, "cancelled before a reply");
  assert.equal((await context.window()).find((e) => e.id === id)?.unanswered, "cancelled before a reply");
  await assert.rejects(context.respond(999, { response: "x", toolsUsed: [], toolResults: [] }), ContextError);
});

test("recallDocs consumes documents and puts their turns back as cold_storage at their original timestamps", async () => {
  const { context, docs, index } = openLayers();
  await context.append(userEvent(T0, "We adopted a puppy called Biscuit", { response: "Congratulations!" }));
  for (let i = 0; i < 12; i++) await context.append(userEvent(T0 + (i + 1) * MIN, FILLER[i]));
  await context.prune("unrelated", 10);
  assert.equal(docs.count(), 1);
  const [doc] = docs.list();
  const turnIds = docs.turns(doc.id).map((t) => t.id);

  const { docs: taken, eventIds } = await context.recallDocs("puppy Biscuit", 1);
  assert.deepEqual(
    taken.map((d) => d.id),
    [doc.id],
  );
  assert.equal(docs.get(doc.id), null, "consumed: gone from the store");
  for (const id of turnIds) assert.equal(index.get(`turn:${id}`), null, "and from the index");
  const window = await context.window();
  const back = window.filter((e) => eventIds.includes(e.id));
  assert.ok(back.some((e) => e.input === "We adopted a puppy called Biscuit" && e.response === "Congratulations!"));
  for (const e of back) assert.equal(e.kind, "cold_storage");
  assert.equal(window[0].ts, T0, "back at its original place in time");
  assert.equal(window[0].kind, "cold_storage");
  assert.ok(index.get(contextItemId(window[0].id)), "searchable in the window again");
});

test("past maxEvents an insert archives the oldest events instead of growing or dropping them", async () => {
  const overflowed: ContextEvent[] = [];
  const { context, docs } = openLayers({ context: { maxEvents: 5, onOverflow: (e) => overflowed.push(...e) } });
  for (let i = 0; i < 7; i++) await context.append(userEvent(T0 + i, `note ${i} ${FILLER[i]}`));
  assert.equal(context.size(), 5);
  assert.deepEqual(
    overflowed.map((e) => e.input),
    [`note 0 ${FILLER[0]}`, `note 1 ${FILLER[1]}`],
  );
  const archived = docs.list().flatMap((d) => docs.turns(d.id).map((t) => t.input));
  assert.deepEqual(archived.sort(), overflowed.map((e) => e.input).sort());
});

test("replace swaps an event for another in one step, its search item too; a gone event is refused", async () => {
  const { context, index } = openLayers();
  const old = await context.append(userEvent(T0, "what is two plus two"));
  const { id, replaced } = await context.replace(old, userEvent(T0 + 1, "what is three plus three"));
  assert.equal(replaced.input, "what is two plus two");
  assert.deepEqual(
    (await context.window()).map((e) => e.input),
    ["what is three plus three"],
  );
  assert.equal(index.get(contextItemId(old)), null);
  assert.notEqual(index.get(contextItemId(id)), null);
  await assert.rejects(
    context.replace(old, userEvent(T0 + 2, "again")),
    (err: unknown) => err instanceof ContextError && err.code === "context_event_gone",
  );
  assert.equal(context.size(), 1, "a refused replace adds nothing");
});

test("a replaced turn is kept as a version: choose swaps it back whole in one step; a new turn of the channel ends them", async () => {
  const { context, index } = openLayers();
  const turn = (ts: number, input: string, requestId: string) => ({
    ...userEvent(ts, input, { channel: "webui" }),
    requestId,
    response: `re ${input}`,
  });
  const first = await context.append(turn(T0, "two plus two?", "r1"));
  const firstEvent = context.event(first);
  await context.replace(first, turn(T0 + 1, "two plus two, again?", "r2"));
  assert.deepEqual(context.lastTurn("webui")?.requestId, "r2");
  const swapped = await context.choose("webui", "r1");
  assert.equal(swapped?.replaced.requestId, "r2");
  assert.deepEqual({ ...swapped?.chosen, id: 0 }, { ...firstEvent, id: 0 }, "as it was, its time too");
  assert.deepEqual(
    (await context.window()).map((e) => e.requestId),
    ["r1"],
  );
  assert.notEqual(index.get(contextItemId(swapped?.chosen.id ?? 0)), null, "searchable again");
  assert.equal(await context.choose("webui", "r1"), null, "in the window already");
  await assert.rejects(context.choose("cli", "r2"), /not a version of channel "cli"'s last turn/);
  assert.equal((await context.choose("webui", "r2"))?.chosen.input, "two plus two, again?");

  // Forgetting reaches the versions; a new turn of the channel ends the others.
  await context.choose("webui", "r1");
  assert.equal(
    context.forgetVersions((text) => text.includes("again"), false),
    1,
  );
  await context.append(turn(T0 + 2, "thanks", "r3"));
  assert.equal(
    context.forgetVersions(() => true, false),
    0,
    "no version is kept once the channel moved on",
  );
  await assert.rejects(context.choose("webui", "r2"), /not a version/);
});

test("a channel keeps at most MAX_TURN_VERSIONS versions of its last turn; forget removes them", async () => {
  const { context } = openLayers();
  let id = await context.append({ ...userEvent(T0, "v0", { channel: "webui" }), requestId: "v0" });
  for (let i = 1; i <= MAX_TURN_VERSIONS + 5; i++) {
    const text = i % 2 === 1 ? `v${i} 秘密` : `v${i}`;
    id = (await context.replace(id, { ...userEvent(T0 + i, text, { channel: "webui" }), requestId: `v${i}` })).id;
  }
  // v5 … v24 are kept (v25 is in the window); every other one holds the word.
  const half = MAX_TURN_VERSIONS / 2;
  assert.equal(
    context.forgetVersions(() => true, false),
    MAX_TURN_VERSIONS,
  );
  assert.equal(
    context.forgetVersions((text) => text.includes("秘密"), true),
    half,
  );
  assert.equal(
    context.forgetVersions(() => true, false),
    half,
    "only the ones that held it went",
  );
});

test("remove deletes events and their items; bad input is refused with a clear error", async () => {
  const { context, index } = openLayers();
  const id = await context.append(userEvent(T0, "forget me"));
  assert.equal(await context.remove([id, 12345]), 1);
  assert.equal(context.size(), 0);
  assert.equal(index.get(contextItemId(id)), null);
  await assert.rejects(context.append(userEvent(Number.NaN, "x")), ContextError);
  await assert.rejects(context.append(userEvent(T0, "x", { source: "" })), ContextError);
  await assert.rejects(context.prune("x", -1), ContextError);
  await assert.rejects(
    context.append(userEvent(T0, "x".repeat(2_000_001))),
    (err: unknown) => err instanceof ContextError && err.code === "context_event_too_large",
  );
});

test("every acknowledged event survives the process being killed (no clean shutdown)", async () => {
  const path = join(tempDir("ha-ctx-kill-"), "memory.db");
  const fixture = entryPath("test/fixtures/memory-layers.ts");
  const script = `
    const { openLayers, userEvent } = await import(${JSON.stringify(fixture)});
    const { context } = openLayers({ path: ${JSON.stringify(path)} });
    for (let i = 0; i < 50; i++) {
      const id = await context.append(userEvent(${T0} + i, "acknowledged " + i));
      if (i % 2 === 0) await context.respond(id, { response: "reply " + i, toolsUsed: [], toolResults: [] });
      process.stdout.write("ack " + i + "\\n");
    }
    process.kill(process.pid, "SIGKILL");
  `;
  const child = spawn(process.execPath, [...NODE_FLAGS, "--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  let acked = 0;
  child.stdout.on("data", (chunk: Buffer) => {
    acked += chunk
      .toString()
      .split("\n")
      .filter((l) => l.startsWith("ack ")).length;
  });
  const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, sig) => resolve(sig)));
  assert.equal(signal, "SIGKILL");
  assert.equal(acked, 50);

  const { context, index } = openLayers({ path });
  const window = await context.window();
  assert.equal(window.length, 50);
  assert.equal(window[48].response, "reply 48");
  assert.equal(index.count({ kind: "context" }), 50);
});

test("when the last turn leaves the window (pruned, forgotten), its versions go: they never take the place of the turn before", async () => {
  const { context } = openLayers();
  const turn = (ts: number, input: string, requestId: string) => ({
    ...userEvent(ts, input, { channel: "webui" }),
    requestId,
  });
  await context.append(turn(T0, "an earlier turn", "p"));
  const v1 = await context.append(turn(T0 + 1, "the last turn", "v1"));
  const { id: v2 } = await context.replace(v1, turn(T0 + 2, "the last turn, again", "v2"));
  await context.remove([v2]);
  assert.equal(context.lastTurn("webui")?.requestId, "p");
  await assert.rejects(context.choose("webui", "v1"), /not a version/);
  assert.deepEqual(
    (await context.window()).map((e) => e.requestId),
    ["p"],
  );
});

test("a last turn with versions is kept by prune, even chosen back with its old time behind newer events", async () => {
  const { context } = openLayers();
  const v1 = await context.append({ ...userEvent(T0, "capital of France?", { channel: "webui" }), requestId: "v1" });
  await context.replace(v1, {
    ...userEvent(T0 + 1, "capital of France, again?", { channel: "webui" }),
    requestId: "v2",
  });
  for (let i = 0; i < 15; i++) await context.append(userEvent(T0 + 10 + i, `timer note ${i}`, { channel: "timer" }));
  await context.choose("webui", "v1");
  const gone = await context.prune("anything", 5);
  assert.ok(!gone.some((e) => e.requestId === "v1"), "the chosen version stayed");
  assert.equal(context.lastTurn("webui")?.requestId, "v1");
  assert.equal((await context.choose("webui", "v2"))?.replaced.requestId, "v1");
});
