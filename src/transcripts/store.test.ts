/**
 * The transcript store on a real memory.db, fed through a real event bus: a turn keeps its input, tool
 * calls, reasoning, approvals and reply; NoMemory turns are kept and self-tasks are not; messages sent on
 * their own are entries too; pages go backwards by id, per channel; search finds Chinese and English text of
 * tool results; forget removes every entry that mentions the text (search rows included); age and size
 * bound the whole; a turn cut off by a crash reads as interrupted after a restart; writes that meet a busy
 * file wait and land.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import Database from "better-sqlite3";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { EventBus } from "../events/bus.js";
import { DAY } from "../util/time-units.js";
import { WriteBacklog } from "./backlog.js";
import { recordTranscripts } from "./recorder.js";
import { TranscriptStore } from "./store.js";

function open(opts: { maxDays?: number; maxBytes?: number; now?: () => number; file?: string } = {}) {
  const file = opts.file ?? join(tempDir("ha-transcripts-"), "memory.db");
  const db = new Database(file);
  db.pragma("foreign_keys = ON");
  const store = new TranscriptStore(
    db,
    { maxDays: () => opts.maxDays ?? 90, maxBytes: () => opts.maxBytes ?? 1e9 },
    opts.now,
  );
  const bus = new EventBus((err) => {
    throw err;
  });
  recordTranscripts(bus, store, new WriteBacklog(() => {}, 5));
  return { db, store, bus, file };
}

function turn(bus: EventBus, id: string, input: string, reply: string, more: Record<string, unknown> = {}) {
  bus.publish("raw_input", "cli", { requestId: id, source: "cli", channel: "cli", text: input, ...more });
  bus.publish("agent_output", "kernel", { requestId: id, source: "cli", channel: "cli", content: reply });
}

test("a turn keeps its input, tool calls, reasoning, approvals, what the user said while it ran and its reply, in order", () => {
  const { store, bus } = open();
  bus.publish("raw_input", "webui", { requestId: "r1", source: "webui", channel: "webui", text: "list my notes" });
  bus.publish("tool_call", "kernel", {
    phase: "start",
    requestId: "r1",
    toolCallId: "c1",
    name: "files_ls",
    arguments: { path: "" },
  });
  bus.publish("approval", "kernel", {
    phase: "asked",
    approval: { id: "a1", requestId: "r1", plugin: "cmd", channel: "webui", question: "run ls /" },
  });
  bus.publish("approval", "kernel", { phase: "closed", id: "a1", requestId: "r1", outcome: "once", by: "dashboard" });
  bus.publish("tool_call", "kernel", {
    phase: "end",
    requestId: "r1",
    toolCallId: "c1",
    name: "files_ls",
    status: "ok",
    result: "notes.md",
    durationMs: 3,
  });
  bus.publish("reasoning", "kernel", { requestId: "r1", content: "the user wants a listing" });
  bus.publish("system", "kernel", {
    kind: "interrupt",
    source: "webui",
    channel: "webui",
    requestId: "r1",
    text: "也看看 docs",
  });
  bus.publish("system", "kernel", { kind: "interrupt", source: "timer", channel: "timer" });
  bus.publish("agent_output", "kernel", { requestId: "r1", source: "webui", channel: "webui", content: "notes.md" });
  const [entry] = store.list().items;
  assert.equal(entry.kind, "turn");
  assert.equal(entry.status, "done");
  assert.equal(entry.input, "list my notes");
  assert.equal(entry.reply, "notes.md");
  assert.equal(entry.reasoning, "the user wants a listing");
  assert.deepEqual(entry.items, [
    { type: "tool", id: "c1", name: "files_ls", args: '{"path":""}', status: "ok", result: "notes.md", durationMs: 3 },
    { type: "approval", id: "a1", plugin: "cmd", question: "run ls /", outcome: "once", by: "dashboard" },
    { type: "interrupt", id: entry.items[2]?.id, source: "webui", text: "也看看 docs" },
  ]);
  assert.deepEqual(
    store.list({ search: "docs" }).items.map((e) => e.id),
    [entry.id],
    "what was said while it ran is found",
  );
});

test("NoMemory turns are kept, self-tasks are not; errors and stops say so; messages are entries", () => {
  const { store, bus } = open();
  turn(bus, "r1", "terminal output", "seen", { noMemory: true });
  turn(bus, "r2", "consolidate", "done", { self: true });
  bus.publish("raw_input", "cli", { requestId: "r3", source: "cli", channel: "cli", text: "long job" });
  bus.publish("agent_output", "kernel", {
    requestId: "r3",
    channel: "cli",
    content: "stopped by the user",
    error: "stopped by the user",
    stopped: true,
  });
  store.message({ channel: "webui", kind: "reminder", text: "⏰ stretch" });
  const items = store.list().items;
  assert.deepEqual(
    items.map((e) => [e.kind, e.input || e.reply, e.status, e.noMemory]),
    [
      ["message", "⏰ stretch", "done", false],
      ["turn", "long job", "stopped", false],
      ["turn", "terminal output", "done", true],
    ],
  );
  assert.equal(items[0].messageKind, "reminder");
  assert.equal(items[1].error, "stopped by the user");
});

test("pages go backwards by id, per channel", () => {
  const { store, bus } = open();
  for (let i = 1; i <= 5; i++) turn(bus, `r${i}`, `question ${i}`, `answer ${i}`);
  bus.publish("raw_input", "webui", { requestId: "w1", source: "webui", channel: "webui", text: "from the web" });
  const first = store.list({ channel: "cli", limit: 2 });
  assert.deepEqual(
    first.items.map((e) => e.input),
    ["question 5", "question 4"],
  );
  assert.equal(first.more, true);
  const next = store.list({ channel: "cli", limit: 10, before: first.items[1].id });
  assert.deepEqual(
    next.items.map((e) => e.input),
    ["question 3", "question 2", "question 1"],
  );
  assert.equal(next.more, false);
  assert.equal(store.list({ channel: "webui" }).items[0].status, "running");
  assert.throws(() => store.list({ limit: 0 }), /limit is a whole number from 1 to 200/);
});

test("search finds the text of a tool result, in Chinese and in English", () => {
  const { store, bus } = open();
  turn(bus, "r1", "what is in the fridge", "nothing much");
  bus.publish("raw_input", "cli", { requestId: "r2", source: "cli", channel: "cli", text: "read the recipe" });
  bus.publish("tool_call", "kernel", {
    phase: "end",
    requestId: "r2",
    toolCallId: "c1",
    name: "files_read",
    status: "ok",
    result: "菠萝炒饭 needs pineapple",
  });
  bus.publish("agent_output", "kernel", { requestId: "r2", channel: "cli", content: "done" });
  assert.deepEqual(
    store.list({ search: "菠萝" }).items.map((e) => e.input),
    ["read the recipe"],
  );
  assert.deepEqual(
    store.list({ search: "Pineapple" }).items.map((e) => e.input),
    ["read the recipe"],
  );
  assert.deepEqual(store.list({ search: "fridge pineapple" }).items, [], "every word must be there");
  assert.deepEqual(
    store.list({ search: "pine reci" }).items.map((e) => e.input),
    ["read the recipe"],
    "a word finds the words it starts",
  );
});

test("forget removes every entry that mentions the text, its items and its search row", () => {
  const { store, bus, db } = open();
  bus.publish("raw_input", "cli", { requestId: "r1", source: "cli", channel: "cli", text: "save my pin" });
  bus.publish("tool_call", "kernel", {
    phase: "start",
    requestId: "r1",
    toolCallId: "c1",
    name: "files_write",
    arguments: { content: "pin 4711" },
  });
  bus.publish("agent_output", "kernel", { requestId: "r1", channel: "cli", content: "saved" });
  turn(bus, "r2", "unrelated", "fine");
  assert.equal(store.list({ search: "4711" }).items.length, 1);
  assert.equal(store.forget(["4711"], false), 1, "a preview removes nothing");
  assert.equal(store.list().items.length, 2);
  assert.equal(store.forget(["4711"], true), 1);
  assert.deepEqual(
    store.list().items.map((e) => e.input),
    ["unrelated"],
  );
  assert.equal(store.list({ search: "4711" }).items.length, 0);
  assert.equal((db.prepare("SELECT count(*) AS n FROM transcript_items").get() as { n: number }).n, 0);
});

test("the oldest go when entries are older than max_days or the whole is over max_mb", () => {
  let now = Date.UTC(2026, 11, 1);
  const { store, bus } = open({ maxDays: 10, maxBytes: 2_000, now: () => now });
  turn(bus, "old", "from long ago", "yes");
  now += 11 * DAY;
  turn(bus, "new", "today", "yes");
  assert.deepEqual(
    store.list().items.map((e) => e.input),
    ["today"],
  );
  for (let i = 0; i < 20; i++) turn(bus, `big${i}`, "x".repeat(300), `reply ${i}`);
  assert.ok(store.bytes() <= 2_000, String(store.bytes()));
  assert.equal(store.list({ limit: 200 }).items[0].reply, "reply 19", "the newest stay");
});

test("a turn cut off by a crash reads as interrupted after a restart; a repeated request id is kept once", () => {
  const first = open();
  first.bus.publish("raw_input", "cli", { requestId: "r1", source: "cli", channel: "cli", text: "half way" });
  first.bus.publish("raw_input", "cli", { requestId: "r1", source: "cli", channel: "cli", text: "again" });
  first.db.close();
  const second = open({ file: first.file });
  const items = second.store.list().items;
  assert.equal(items.length, 1);
  assert.equal(items[0].input, "half way");
  assert.equal(items[0].status, "interrupted");
});

test("forget leaves none of the words in the file once it is vacuumed: the search index is merged", () => {
  const { store, bus, db, file } = open();
  turn(bus, "r1", "my passphrase is zqxwvsecret", "noted");
  turn(bus, "r2", "something else", "fine");
  assert.equal(store.list({ search: "zqxwvsecret" }).items.length, 1, "indexed");
  assert.equal(store.forget(["zqxwvsecret"], true), 1);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.exec("VACUUM");
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  assert.equal(readFileSync(file).includes("zqxwvsecret"), false);
});

test("a turn still running is not pushed out by the size limit; a page stops at its size; transient turns are not kept", () => {
  const { store, bus } = open({ maxBytes: 3_000 });
  bus.publish("raw_input", "cli", { requestId: "long", source: "cli", channel: "cli", text: "a long job" });
  for (let i = 0; i < 10; i++) store.message({ channel: "cli", kind: "notice", text: "n".repeat(500) });
  bus.publish("agent_output", "kernel", { requestId: "long", channel: "cli", content: "done at last" });
  assert.ok(store.list({ limit: 200 }).items.some((e) => e.reply === "done at last"));
  turn(bus, "t1", "from an API client", "not kept", { transient: true });
  assert.equal(
    store.list({ limit: 200 }).items.some((e) => e.input === "from an API client"),
    false,
  );

  const big = open();
  for (let i = 0; i < 6; i++) big.store.message({ channel: "webui", kind: "result", text: "x".repeat(1_000_000) });
  const page = big.store.list({ limit: 50 });
  assert.equal(page.items.length, 4, "about 4 MB a page");
  assert.equal(page.more, true);
  assert.throws(() => big.store.list({ search: 5 as unknown as string }), /search is a text/);
});

test("a turn that took another's place says so once the window has it; the one chosen back says when; a file from before gains the column", () => {
  const file = join(tempDir("ha-transcripts-"), "transcripts.db");
  const old = new Database(file);
  // The table as the first release wrote it: no chosen_at.
  old.exec(`CREATE TABLE transcripts (id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, request_id TEXT UNIQUE,
    ts INTEGER NOT NULL, ended_at INTEGER, source TEXT NOT NULL, channel TEXT NOT NULL, no_memory INTEGER NOT NULL DEFAULT 0,
    new_topic INTEGER NOT NULL DEFAULT 0, replaces TEXT, input TEXT NOT NULL DEFAULT '', reasoning TEXT NOT NULL DEFAULT '',
    reply TEXT NOT NULL DEFAULT '', status TEXT NOT NULL, error TEXT, message_kind TEXT, item_count INTEGER NOT NULL DEFAULT 0,
    bytes INTEGER NOT NULL DEFAULT 0, indexed INTEGER NOT NULL DEFAULT 0)`);
  old.close();
  const { store, bus } = open({ file });
  turn(bus, "r1", "capital of France?", "Lyon");
  bus.publish("raw_input", "cli", { requestId: "r2", source: "cli", channel: "cli", text: "capital of France?" });
  assert.equal(store.turn("r2")?.replaces, undefined, "not a version until the window took it");
  bus.publish("system", "kernel", { kind: "turn_replaced", requestId: "r2", channel: "cli", replaces: "r1" });
  assert.equal(store.turn("r2")?.replaces, "r1");
  assert.equal(store.chosen("r1", 12_345), true);
  assert.equal(store.turn("r1")?.chosenAt, 12_345);
  assert.equal(store.turn("r1")?.reply, "Lyon");
  assert.equal(store.chosen("nope", 1), false);
  assert.equal(store.turn("nope"), null);
});

test("writes that meet a busy file (the scrub's VACUUM) wait in order and land once it is free; none is lost", async () => {
  const { store, bus, file } = open();
  const scrub = new Database(file);
  scrub.exec("BEGIN IMMEDIATE");
  turn(bus, "r1", "said while the file was busy", "and answered");
  assert.equal(store.list().items.length, 0, "nothing could be written yet");
  scrub.exec("COMMIT");
  scrub.close();
  await waitFor(() => store.list().items.length === 1, "the waiting writes to land");
  const entry = store.list({ channel: "cli" }).items[0];
  assert.deepEqual([entry.input, entry.reply, entry.status], ["said while the file was busy", "and answered", "done"]);
});
