/**
 * Forgetting and memory writes at their edges, each found by a hostile review: a purge narrowed to one
 * relation must not forget the names everywhere; non-ASCII capitals, soft-purged entities and the
 * pre-upgrade backup must not keep what was forgotten; forgetting or running a loop while a turn runs must
 * not break or stall that turn; a turn of huge tool output still delivers its reply.
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { test } from "node:test";
import { MEMORY_TOOL_CHARS } from "../src/kernel/turn-events.js";
import { memoryApis } from "../src/memory/memory-api.js";
import { type MemoryHarness, startMemoryAgent } from "./fixtures/memory-system.js";
import { waitFor } from "./fixtures/wait.js";

async function withMemory(fn: (h: MemoryHarness) => Promise<void>, contextSize = 30): Promise<void> {
  const h = startMemoryAgent({ contextSize });
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

const rows = (h: MemoryHarness, sql: string, ...params: unknown[]) => h.db.prepare(sql).all(...params);

test("memory_purge narrowed to a relation removes those facts only, not every mention of the name", () =>
  withMemory(async (h) => {
    await h.say("Alice visited me today and brought pizza");
    await h.tool("memory_commit", {
      triples: [
        { subject: "Alice", relation: "likes", object: "pizza" },
        { subject: "Alice", relation: "lives_in", object: "Lyon" },
      ],
    });
    await h.tool("memory_purge", { subject_contains: "Alice", relation_type: "likes" });
    const window = await h.memory.context.window();
    assert.ok(
      window.some((e) => e.input.includes("Alice visited")),
      "the conversation about Alice stays",
    );
    const facts = h.memory.graph.relationsOf("Alice").map((r) => r.relation);
    assert.deepEqual(facts, ["lives_in"]);
  }));

test("forget matches names with non-ASCII capitals in archived turns, documents and the index", () =>
  withMemory(async (h) => {
    await h.say("Émile Zoltan moved to Graz last spring");
    for (let i = 0; i < 14; i++) await h.say(`filler message number ${i} about the weather`);
    await h.memory.index.flush();
    assert.equal(rows(h, "SELECT id FROM doc_turns WHERE input LIKE '%mile Zoltan%'").length, 1, "archived");
    const report = await memoryApis(h.memory).memory.forget("émile", { confirm: true });
    assert.ok(report.removed.documents >= 1, JSON.stringify(report.removed));
    await h.memory.index.flush();
    assert.deepEqual(rows(h, "SELECT id FROM doc_turns WHERE input LIKE '%mile Zoltan%'"), []);
    assert.deepEqual(rows(h, "SELECT id FROM search_items WHERE text LIKE '%mile zoltan%'"), []);
    assert.deepEqual(rows(h, "SELECT id FROM documents WHERE content LIKE '%mile Zoltan%'"), []);
  }, 12));

test("forget removes soft-purged entities too", () =>
  withMemory(async (h) => {
    await h.tool("memory_commit", { triples: [{ subject: "Bobbington", relation: "works_at", object: "Acme" }] });
    await h.tool("memory_purge", { subject_contains: "Bobbington", mode: "soft" });
    const report = await memoryApis(h.memory).memory.forget("bobbington", { confirm: true });
    assert.equal(report.removed.entities >= 1, true, JSON.stringify(report.removed));
    assert.deepEqual(rows(h, "SELECT name FROM entities WHERE name LIKE '%bobbington%'"), []);
  }));

test("forget deletes the pre-upgrade copy of memory.db, which holds the old text", () =>
  withMemory(async (h) => {
    const backup = `${h.dbPath}.bak-2`;
    writeFileSync(backup, "old memory mentioning Quillfeather", { mode: 0o600 });
    await h.say("Quillfeather is my pen name");
    const report = await memoryApis(h.memory).memory.forget("quillfeather", { confirm: true });
    assert.equal(report.removed.backups, 1);
    assert.equal(existsSync(backup), false);
  }));

test("/memory forget while a turn runs: the turn is answered, and its text is forgotten once it ends", () =>
  withMemory(async (h) => {
    h.llm.enqueue({ text: "noted", delayMs: 300 });
    const reply = h.agent.injectInputSync("cli", "cli", "my old handle was zorblax");
    await waitFor(() => h.memory.context.events().some((e) => e.input.includes("zorblax")), "the turn to start");
    await memoryApis(h.memory).memory.forget("zorblax", { confirm: true });
    const r = await reply;
    assert.equal(r.error, undefined);
    assert.equal(r.content, "noted");
    await waitFor(() => h.agent.status().jobs === 0, "the forget job after the turn");
    assert.deepEqual(
      h.memory.context.events().filter((e) => `${e.input} ${e.response}`.includes("zorblax")),
      [],
    );
  }));

test("running a loop while the agent is busy returns at once instead of waiting behind the turn", () =>
  withMemory(async (h) => {
    h.llm.enqueue({ text: "done", delayMs: 400 });
    const reply = h.agent.injectInputSync("cli", "cli", "a slow question");
    await waitFor(() => h.agent.status().busy, "the turn to run");
    const began = performance.now();
    const r = await memoryApis(h.memory).memory.runLoop("distill");
    assert.match(r.summary, /started; the agent is busy/);
    assert.ok(performance.now() - began < 300, "did not wait for the turn");
    await reply;
  }));

test("a turn of huge tool output still delivers its reply; memory keeps a bounded part of the output", () =>
  withMemory(async (h) => {
    h.agent.tools.register(
      "kernel",
      { name: "dump_logs", description: "returns a large log", parameters: { type: "object", properties: {} } },
      () => "x".repeat(90_000),
    );
    const calls = Array.from({ length: 4 }, () => ({
      toolCalls: Array.from({ length: 6 }, () => ({ name: "dump_logs" })),
    }));
    h.llm.enqueue(...calls, { text: "Here is the summary." });
    assert.equal(await h.say("summarise the logs"), "Here is the summary.");
    const e = h.memory.context.events().find((x) => x.input === "summarise the logs");
    assert.ok(e);
    assert.equal(e.response, "Here is the summary.");
    const kept = e.toolResults.reduce((n, r) => n + r.content.length, 0);
    assert.ok(kept <= MEMORY_TOOL_CHARS + 100 * e.toolResults.length, `kept ${kept} characters`);
  }));

test("an index item no layer owns that still holds the text is swept out by forget", () =>
  withMemory(async (h) => {
    await h.memory.index.add([{ id: "stray:1", kind: "turn", text: "a stray item naming Quillon Varga" }]);
    const report = await memoryApis(h.memory).memory.forget("quillon varga", { confirm: true });
    assert.equal(report.removed.indexItems, 1);
    assert.equal(h.memory.index.get("stray:1"), null);
  }));

test("a secret with quotes and a backslash is forgotten where it is stored as JSON: tags, tool results, the index", () =>
  withMemory(async (h) => {
    const secret = 'pw"9931\\quux';
    h.llm.enqueue(
      {
        toolCalls: [
          { name: "doc_commit", arguments: { content: "my router notes", summary: "router", tags: [secret] } },
        ],
      },
      { text: "Saved." },
    );
    await h.say("keep a note of the router password");
    await h.memory.index.flush();
    const holding = () =>
      rows(
        h,
        `SELECT 'documents' AS t FROM documents WHERE instr(tags, ?) > 0
         UNION ALL SELECT 'window' FROM context_window WHERE instr(tool_results, ?) > 0
         UNION ALL SELECT 'index' FROM search_items WHERE instr(text, ?) > 0`,
        ...Array(3).fill(JSON.stringify(secret).slice(1, -1)),
      );
    assert.ok(holding().length >= 2, JSON.stringify(holding()));
    const report = await memoryApis(h.memory).memory.forget(secret, { confirm: true });
    assert.ok(report.removed.documents >= 1, JSON.stringify(report.removed));
    assert.deepEqual(holding(), []);
  }));

test("full-width letters and extra spaces in what is forgotten match the names the graph normalised", () =>
  withMemory(async (h) => {
    await h.tool("memory_commit", {
      triples: [
        { subject: "ZORG77", relation: "works at", object: "Acme" },
        { subject: "Alice Smith", relation: "knows", object: "Bob" },
      ],
    });
    await memoryApis(h.memory).memory.forget("ＺＯＲＧ７７", { confirm: true });
    await memoryApis(h.memory).memory.forget("alice   smith", { confirm: true });
    assert.equal(h.memory.graph.entity("ZORG77"), null);
    assert.equal(h.memory.graph.entity("Alice Smith"), null);
    assert.ok(h.memory.graph.entity("Acme") === null, "left with nothing, it goes too");
  }));
