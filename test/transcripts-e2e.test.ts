/**
 * Transcripts through a real daemon with the fake LLM: a turn over the cli socket that calls a tool is kept
 * with its tool call, reasoning and reply; the dashboard's route lists it with its channel, finds it by a
 * word of the tool's result and pages backwards; waiter's /history prints it; a reminder sent on its own is
 * an entry; bad parameters are refused clearly; a message may start a new topic or name the LLM source to
 * ask first.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { TranscriptEntry } from "@homeagent/sdk";
import Database from "better-sqlite3";
import { CliLines } from "./fixtures/homed-process.js";
import { waitFor } from "./fixtures/wait.js";
import { startWebDaemon, TEST_API_KEY, type WebDaemon } from "./fixtures/webui.js";

let w: WebDaemon;
let cli: CliLines;

before(async () => {
  w = await startWebDaemon();
  cli = await CliLines.open(join(w.daemon.paths.root, "cli.sock"));
  assert.equal(await cli.text(`/auth ${TEST_API_KEY}`), "authenticated");
});

after(async () => {
  cli?.close();
  await w?.stop();
});

async function transcripts(query = ""): Promise<{ items: TranscriptEntry[]; more: boolean }> {
  const res = await w.json("GET", `/api/v1/transcripts${query}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

test("a cli turn with a tool call is kept whole, listed by the route and printed by /history", async () => {
  w.llm.enqueue(
    { reasoning: "the user wants the tools", toolCalls: [{ name: "cmd_history", arguments: {} }] },
    { text: "no commands ran yet: 菠萝 time" },
  );
  assert.equal(await cli.text("which commands ran?", 20_000), "no commands ran yet: 菠萝 time");
  const [entry] = (await transcripts("?channel=cli")).items;
  assert.equal(entry.channel, "cli");
  assert.equal(entry.input, "which commands ran?");
  assert.equal(entry.reply, "no commands ran yet: 菠萝 time");
  assert.equal(entry.status, "done");
  assert.match(entry.reasoning, /the user wants the tools/);
  assert.deepEqual(
    entry.items.map((i) => (i.type === "tool" ? [i.name, i.status] : [i.type])),
    [["cmd_history", "ok"]],
  );
  assert.deepEqual(
    (await transcripts(`?search=${encodeURIComponent("菠萝")}`)).items.map((e) => e.id),
    [entry.id],
  );
  const history = await cli.text("/history 5");
  assert.match(history, /> which commands ran\?\n {2}\(reasoning: \d+ characters\)\n {2}⚙ cmd_history \{\} → ok/);
  assert.match(history, /no commands ran yet: 菠萝 time$/);
  // Dates in the user's zone, as the prompt reads them.
  w.daemon.config.set("core.agent.timezone", "Asia/Shanghai");
  const shanghai = new Intl.DateTimeFormat("sv-SE", {
    timeZone: "Asia/Shanghai",
    dateStyle: "short",
    timeStyle: "medium",
  });
  assert.ok((await cli.text("/history 1")).startsWith(`── ${shanghai.format(entry.ts)}\n`));
  w.llm.enqueue({ text: "plain" });
  await cli.text("paint it \u001b[31mred", 20_000);
  assert.match(await cli.text("/history 1"), /> paint it \\u001b\[31mred/, "an escape sequence is shown, not acted on");
});

test("a message sent on its own is an entry; pages go backwards; bad parameters are refused", async () => {
  await w.daemon.host.io.send("webui", "⏰ stretch", "reminder", false);
  const sent = w.daemon.host.io.transcripts.list({ limit: 1 }).items[0];
  assert.equal(sent.kind, "message");
  assert.equal(sent.reply, "⏰ stretch");
  for (let i = 0; i < 3; i++) {
    w.llm.enqueue({ text: `answer ${i}` });
    await cli.text(`question ${i}`, 20_000);
  }
  const first = await transcripts("?limit=2");
  assert.deepEqual(
    first.items.map((e) => e.input),
    ["question 2", "question 1"],
  );
  assert.equal(first.more, true);
  const next = await transcripts(`?limit=2&before=${first.items[1].id}`);
  assert.deepEqual(
    next.items.map((e) => e.input || e.reply),
    ["question 0", "⏰ stretch"],
  );
  assert.equal((await w.json("GET", "/api/v1/transcripts?limit=0")).status, 400);
  assert.equal((await w.json("GET", `/api/v1/transcripts?search=${"x".repeat(5000)}`)).status, 400);
});

test("a message may start a new topic: the model is told, the transcript marks it; an unknown LLM source is refused", async () => {
  w.llm.enqueue({ text: "sure, something else" });
  const before = w.llm.requests.length;
  const res = await w.json("POST", "/api/v1/chat", { message: "let us talk about gardens", new_topic: true });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const sent = JSON.stringify(w.llm.requests[before].body.messages);
  assert.match(sent, /新话题 \/ New topic/);
  const [entry] = (await transcripts("?channel=webui&limit=1")).items;
  assert.equal(entry.input, "let us talk about gardens");
  assert.equal(entry.newTopic, true);
  w.llm.enqueue({ text: "and on" });
  await w.json("POST", "/api/v1/chat", { message: "and roses?" });
  assert.doesNotMatch(JSON.stringify(w.llm.requests.at(-1)?.body.messages), /New topic/, "only that message");
  const unknown = await w.json("POST", "/api/v1/chat", { message: "hi", llm_source: "nope" });
  assert.equal(unknown.status, 400);
  assert.match(unknown.body.error.message, /no LLM source named "nope"/);
  w.llm.enqueue({ text: "from env" });
  const named = await w.json("POST", "/api/v1/chat", { message: "ask env", llm_source: "env" });
  assert.equal(named.body.response, "from env");
});

test("a reply asked again replaces the turn in memory and stays in the transcript as an earlier version", async () => {
  w.llm.enqueue({ text: "two plus two is five" });
  const first = await w.json("POST", "/api/v1/chat", { message: "what is two plus two?" });
  w.llm.enqueue({ text: "two plus two is four" });
  const again = await w.json("POST", "/api/v1/chat", {
    message: "what is two plus two?",
    replaces: first.body.requestId,
  });
  assert.equal(again.body.response, "two plus two is four");
  assert.doesNotMatch(JSON.stringify(w.llm.requests.at(-1)?.body.messages), /five/);
  const [latest, earlier] = (await transcripts("?channel=webui&limit=2")).items;
  assert.deepEqual(
    [latest.reply, latest.replaces, earlier.reply],
    ["two plus two is four", first.body.requestId, "two plus two is five"],
  );
  w.llm.enqueue({ text: "ok" });
  await w.json("POST", "/api/v1/chat", { message: "thanks" });
  const sent = JSON.stringify(w.llm.requests.at(-1)?.body.messages);
  assert.match(sent, /four/);
  assert.doesNotMatch(sent, /five/, "the next request holds only the chosen version");
  const stale = await w.json("POST", "/api/v1/chat", { message: "again", replaces: first.body.requestId });
  assert.equal(stale.status, 400, "refused before it is queued: nothing recorded");
  assert.match(stale.body.error.message, /only the last turn of channel/);
  assert.notEqual((await transcripts("?limit=1")).items[0].input, "again");
});

test("after a restart the last turn can still be asked again, and its first version chosen back", async () => {
  w.llm.enqueue({ text: "the sky is green" });
  const first = await w.json("POST", "/api/v1/chat", { message: "what colour is the sky?" });
  const dataDir = w.daemon.paths.root;
  cli.close();
  await w.stop();
  w = await startWebDaemon({ dataDir });
  cli = await CliLines.open(join(dataDir, "cli.sock"));
  w.llm.enqueue({ text: "the sky is blue" });
  const again = await w.json("POST", "/api/v1/chat", {
    message: "what colour is the sky?",
    replaces: first.body.requestId,
  });
  assert.equal(again.body.response, "the sky is blue");

  const chosen = await w.json("POST", "/api/v1/transcripts/choose", { request_id: first.body.requestId });
  assert.equal(chosen.status, 200, JSON.stringify(chosen.body));
  const [latest, earlier] = (await transcripts("?channel=webui&limit=2")).items;
  assert.deepEqual(
    [latest.reply, latest.chosenAt, earlier.reply, earlier.chosenAt],
    ["the sky is blue", undefined, "the sky is green", chosen.body.chosenAt],
  );
  w.llm.enqueue({ text: "noted" });
  await w.json("POST", "/api/v1/chat", { message: "thanks" });
  const sent = JSON.stringify(w.llm.requests.at(-1)?.body.messages);
  assert.match(sent, /green/);
  assert.doesNotMatch(sent, /blue/, "the next request holds only the chosen version");

  const stale = await w.json("POST", "/api/v1/transcripts/choose", { request_id: again.body.requestId });
  assert.equal(stale.status, 400);
  assert.match(stale.body.error.message, /is not a version of channel "webui"'s last turn/);
  const unknown = await w.json("POST", "/api/v1/transcripts/choose", { request_id: "req_nothing" });
  assert.equal(unknown.status, 404);
  assert.equal((await w.json("POST", "/api/v1/transcripts/choose", {})).status, 400);
});

test("a replaced version's fact candidate waits aside with it, and is due again when that version is chosen back", async () => {
  const candidates = () => {
    const db = new Database(join(w.daemon.paths.root, "memory.db"), { readonly: true });
    try {
      return db.prepare("SELECT content, parked FROM distill_candidates ORDER BY id").all() as Array<{
        content: string;
        parked: number;
      }>;
    } finally {
      db.close();
    }
  };
  w.llm.enqueue({ text: "Lyon, noted." });
  const first = await w.json("POST", "/api/v1/chat", { message: "I live in Lyon" });
  w.llm.enqueue({ text: "Paris, noted." });
  await w.json("POST", "/api/v1/chat", { message: "I live in Paris", replaces: first.body.requestId });
  const lives = () => candidates().filter((c) => c.content.startsWith("I live in"));
  assert.deepEqual(lives(), [
    { content: "I live in Lyon", parked: 1 },
    { content: "I live in Paris", parked: 0 },
  ]);
  assert.equal((await w.json("POST", "/api/v1/transcripts/choose", { request_id: first.body.requestId })).status, 200);
  assert.deepEqual(lives(), [
    { content: "I live in Lyon", parked: 0 },
    { content: "I live in Paris", parked: 1 },
  ]);
});

test("a replaced turn's raw-log line goes even when the line was cut to fit the log", async () => {
  const textLines = (needle: string) => {
    const dir = join(w.daemon.paths.root, "memory", "text");
    return readdirSync(dir)
      .flatMap((f) => readFileSync(join(dir, f), "utf8").split("\n"))
      .filter((l) => l.includes(needle)).length;
  };
  const long = `LONGMARK-7 ${"x".repeat(60_000)}`;
  w.llm.enqueue({ text: "y".repeat(10_000) });
  const first = await w.json("POST", "/api/v1/chat", { message: long });
  w.llm.enqueue({ text: "short" });
  await w.json("POST", "/api/v1/chat", { message: long, replaces: first.body.requestId });
  w.llm.enqueue({ text: "ok" });
  await w.json("POST", "/api/v1/chat", { message: "AFTERMARK-7" });
  await waitFor(() => textLines("AFTERMARK-7") === 1, "the next turn's line");
  assert.equal(textLines("LONGMARK-7"), 1, "only the version in use");
});
