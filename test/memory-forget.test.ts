/**
 * Acceptance (issue 8): forgetting forgets. A name is planted in every layer of a real MemorySystem driven
 * through a real Agent — the context window (input, reply, tool results), archived turns, a doc_commit
 * document, the graph (entity, relation, source sentence, trait), a distill candidate, the raw text log
 * and the search index (keyword and vector items) — and then forgotten three ways: `/memory forget` (a
 * preview that changes nothing, then `--yes`), and the model's memory_delete_entity and memory_purge
 * (whose `forget` hook clears the other layers). Afterwards the name is in no text of any table, no index
 * item, no log line, not in the bytes of memory.db and its WAL, and not in the next related prompt.
 */

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ForgetReport, PluginSDK } from "@homeagent/sdk";
import { memoryCommand } from "../src/builtins/cli/memory-commands.js";
import type { CompletionRequest } from "../src/kernel/llm-spec.js";
import { memoryApis } from "../src/memory/memory-api.js";
import { type MemoryHarness, startMemoryAgent } from "./fixtures/memory-system.js";
import { waitFor } from "./fixtures/wait.js";

const CONTEXT = 8;
const FILLER = [
  "What is 17 times 23?",
  "帮我把这句话翻译成英文：今天下雨了。",
  "Suggest a name for a sourdough starter.",
  "解释一下什么是光合作用。",
  "How long should I steep green tea?",
  "推荐一本关于历史的书。",
];

interface Planted {
  /** What the store held before forgetting, as forget should count it. */
  expected: { context: number; documents: number; textLog: number; sentences: number; indexItems: number };
}

/** Puts `name` (a person living in `place`) into every layer; leaves one mention in the window. */
async function plant(h: MemoryHarness, name: string, place: string): Promise<Planted> {
  h.settings.contextSize = CONTEXT;
  h.llm.enqueue({ text: `Nice, ${name} sounds like a great climbing partner.` });
  await h.say(`I met ${name} at the climbing gym yesterday.`);
  h.llm.enqueue(
    {
      toolCalls: [
        {
          name: "doc_commit",
          arguments: {
            content: `${name} recommended the ${place} climbing wall: routes from 6a to 7b, closed on Mondays.`,
            summary: `${name}'s climbing wall tip`,
            tags: ["climbing", name.toLowerCase()],
          },
        },
      ],
    },
    { text: "Saved the tip." },
  );
  await h.say("Please keep a note of that climbing wall tip.");
  h.llm.enqueue(
    {
      toolCalls: [
        {
          name: "memory_commit",
          arguments: {
            triples: [{ subject: name, relation: "lives in", object: place }],
            sentence_text: `${name} lives in ${place}.`,
          },
        },
      ],
    },
    { text: "Noted." },
  );
  await h.say(`Remember where my climbing friend lives: ${place}.`);
  // Unrelated turns push all of the above out of the small window into the documents.
  for (let i = 0; i < CONTEXT + 2; i++) await h.say(FILLER[i % FILLER.length]);
  await h.say(`I am going bouldering with ${name} next month.`);
  h.llm.enqueue(
    { toolCalls: [{ name: "person_set_trait", arguments: { name, trait: "job", value: "climbing coach" } }] },
    { text: "Got it." },
  );
  await h.say("By the way, my climbing friend works as a climbing coach.");
  await h.memory.index.flush();

  const window = await h.memory.context.window();
  assert.ok(
    window.some((e) => e.input.includes(name)),
    "one mention is in the window",
  );
  assert.ok(!window.some((e) => e.input.includes("climbing gym yesterday")), "the first mention was archived");
  const count = (sql: string, ...args: unknown[]) =>
    h.db
      .prepare(sql)
      .pluck()
      .get(...args) as number;
  const like = `%${name}%`;
  assert.equal(count("SELECT COUNT(*) FROM documents WHERE source = 'manual' AND content LIKE ?", like), 1);
  assert.ok(count("SELECT COUNT(*) FROM doc_turns WHERE input || response LIKE ?", like) >= 1, "archived turns");
  assert.equal(count("SELECT COUNT(*) FROM entities WHERE name = ?", name), 1);
  assert.ok(count("SELECT COUNT(*) FROM distill_candidates WHERE content LIKE ?", like) >= 1, "distill candidates");
  assert.ok((await h.memory.index.search(name, { k: 50, weights: { bm25: 1, vector: 0 } })).length > 0);
  return {
    expected: {
      context: count(
        "SELECT COUNT(*) FROM context_window WHERE input LIKE ? OR response LIKE ? OR tool_results LIKE ?",
        like,
        like,
        like,
      ),
      documents:
        // An archived turn names her in what was said, or only in the tool results its search item keeps.
        count(
          `SELECT COUNT(DISTINCT t.doc_id) FROM doc_turns t LEFT JOIN search_items s ON s.id = 'turn:' || t.id
             WHERE t.input || ' ' || t.response LIKE ? OR s.text LIKE ?`,
          like,
          like,
        ) +
        count(
          "SELECT COUNT(*) FROM documents d WHERE NOT EXISTS (SELECT 1 FROM doc_turns t WHERE t.doc_id = d.id) AND content || ' ' || summary LIKE ?",
          like,
        ),
      textLog: logLines(h).filter((l) => l.toLowerCase().includes(name.toLowerCase())).length,
      sentences: count("SELECT COUNT(*) FROM sentences WHERE text LIKE ?", like),
      indexItems: count("SELECT COUNT(*) FROM search_items WHERE text LIKE ?", like),
    },
  };
}

function logLines(h: MemoryHarness): string[] {
  const dir = join(h.dataDir, "memory", "text");
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((f) =>
    readFileSync(join(dir, f), "utf8")
      .split("\n")
      .filter((l) => l.trim() !== ""),
  );
}

/** Every table and column of memory.db whose text contains `name` (case-insensitive), with row counts. */
function tablesMentioning(h: MemoryHarness, name: string): string[] {
  const tables = h.db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'")
    .pluck()
    .all() as string[];
  const found: string[] = [];
  for (const table of tables) {
    const columns = h.db.prepare(`SELECT name FROM pragma_table_info(?)`).pluck().all(table) as string[];
    for (const column of columns) {
      const n = h.db
        .prepare(`SELECT COUNT(*) FROM "${table}" WHERE CAST("${column}" AS TEXT) LIKE ?`)
        .pluck()
        .get(`%${name}%`) as number;
      if (n > 0) found.push(`${table}.${column} (${n})`);
    }
  }
  return found;
}

/** Whether the raw bytes of memory.db or its WAL contain `name`. */
function inDbFiles(h: MemoryHarness, name: string): string[] {
  const needle = Buffer.from(name, "utf8");
  return [h.dbPath, `${h.dbPath}-wal`].filter((p) => existsSync(p) && readFileSync(p).includes(needle));
}

/** What the model read in the last request: every message but the newest user message. */
function promptOf(req: CompletionRequest | undefined): string {
  assert.ok(req, "the LLM was asked");
  const messages = req.messages as Array<{ role: string; content?: unknown }>;
  const last = messages.findLastIndex((m) => m.role === "user");
  return messages
    .filter((_, i) => i !== last)
    .map((m) => (typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "")))
    .join("\n");
}

/** Asks a related question that does not name the person; returns the prompt the model got. */
async function relatedPrompt(h: MemoryHarness, place: string): Promise<string> {
  await h.say(`Who lives in ${place}, and which climbing wall there was recommended to me?`);
  return promptOf(h.llm.requests.at(-1));
}

/** Asserts `name` has left every layer, index, log line, database byte and the next related prompt. */
async function assertGone(h: MemoryHarness, name: string, place: string): Promise<void> {
  await h.memory.index.flush();
  assert.deepEqual(tablesMentioning(h, name), [], "no table holds the name");
  assert.deepEqual(inDbFiles(h, name), [], "no byte of memory.db or its WAL holds the name");
  assert.deepEqual(
    logLines(h).filter((l) => l.toLowerCase().includes(name.toLowerCase())),
    [],
    "no raw log line holds the name",
  );
  assert.deepEqual(await h.memory.index.search(name, { k: 50, weights: { bm25: 1, vector: 0 } }), []);
  const nearest = await h.memory.index.search(name, { k: 50, weights: { bm25: 0, vector: 1 } });
  assert.ok(nearest.length > 0, "vector search still answers");
  assert.deepEqual(
    nearest.filter((hit) => hit.text.toLowerCase().includes(name.toLowerCase())).map((hit) => hit.id),
    [],
    "no vector item holds the name",
  );
  assert.equal(h.memory.graph.entity(name), null);
  const prompt = await relatedPrompt(h, place);
  assert.ok(!prompt.toLowerCase().includes(name.toLowerCase()), `the next prompt still names ${name}:\n${prompt}`);
}

/** `context 2, documents 3, …` as numbers by layer. */
/** The counts of a "/memory forget" line; a layer it does not name (it holds nothing) counts 0. */
function countsIn(line: string): Record<string, number> {
  const named = Object.fromEntries([...line.matchAll(/(\w+) (\d+)/g)].map((m) => [m[1], Number(m[2])]));
  return new Proxy(named, { get: (o, k: string) => o[k] ?? 0 });
}

function sdkOf(h: MemoryHarness): PluginSDK {
  const apis = memoryApis(h.memory);
  return { memory: apis.memory, docMemory: apis.docMemory, social: apis.social } as unknown as PluginSDK;
}

test("/memory forget shows what matches and removes nothing; --yes removes it from every layer, index, log and prompt", async () => {
  const h = startMemoryAgent({ contextSize: CONTEXT });
  try {
    const name = "Florentyna";
    const place = "Gdansk";
    const { expected } = await plant(h, name, place);
    // Control: before forgetting, a related question's prompt and the database files carry the name.
    assert.ok((await relatedPrompt(h, place)).includes(name), "the related prompt names her before forgetting");
    assert.ok(
      (await h.memory.index.search(name, { k: 50, weights: { bm25: 0, vector: 1 } })).some((hit) =>
        hit.text.includes(name),
      ),
      "a vector item holds the name before forgetting",
    );
    assert.ok(inDbFiles(h, name).length > 0, "memory.db or its WAL holds the name before forgetting");
    const before = tablesMentioning(h, name);
    for (const t of [
      "context_window.input",
      "context_window.tool_results",
      "doc_turns.input",
      "documents.content",
      "entities.name",
      "sentences.text",
      "distill_candidates.content",
      "search_items.text",
    ]) {
      assert.ok(
        before.some((b) => b.startsWith(`${t} `)),
        `${t} holds the name before forgetting: ${before.join(", ")}`,
      );
    }
    assert.ok(expected.textLog >= 2, "the raw log holds the turns that name her");

    const sdk = sdkOf(h);
    const preview = await memoryCommand(sdk, `forget ${name.toLowerCase()}`);
    assert.equal(preview.type, "response");
    const text = (preview as { content: string }).content;
    const matched = countsIn(text.split("\n")[0]);
    assert.match(text, new RegExp(`^matches for "${name.toLowerCase()}": `));
    assert.equal(matched.context, expected.context, "window events that name her");
    assert.equal(matched.documents, expected.documents, "documents that name her, in a turn or its tool results");
    assert.equal(matched.entities, 1);
    assert.equal(matched.textLog, expected.textLog);
    assert.match(text, /climbing gym yesterday/, "samples show the matching text");
    assert.match(text, /\/memory forget --yes florentyna/);
    assert.deepEqual(tablesMentioning(h, name), before, "a preview removes nothing");
    assert.equal(logLines(h).filter((l) => l.includes(name)).length, expected.textLog);

    const report: ForgetReport = await memoryApis(h.memory).memory.forget(name, { confirm: false });
    assert.equal(report.confirmed, false);
    assert.ok(Object.values(report.removed).every((n) => n === 0));

    const done = await memoryCommand(sdk, `forget --yes ${name}`);
    assert.equal(done.type, "response");
    const counts = countsIn((done as { content: string }).content.split("\n")[0]);
    assert.equal(counts.context, expected.context);
    assert.equal(counts.documents, expected.documents, "documents that named her, in a turn or its tool results");
    assert.ok(counts.entities >= 1, "her entity (and any it leaves without facts)");
    assert.ok(counts.relations >= 1, "the fact about her");
    assert.equal(counts.sentences, expected.sentences);
    assert.equal(counts.textLog, expected.textLog);
    // Every index item that held the name, plus those of the entities the deletion left without any fact.
    assert.equal(counts.indexItems, expected.indexItems + counts.entities - 1, "index items removed");

    // Only the name left: the unrelated turns and the place are still remembered.
    assert.ok(h.memory.docs.count() > 0);
    assert.ok(tablesMentioning(h, "sourdough starter").length > 0);
    await assertGone(h, name, place);
  } finally {
    await h.close();
  }
});

test("memory_delete_entity through the tool registry also forgets the name in the window, documents, candidates and log", async () => {
  const h = startMemoryAgent({ contextSize: CONTEXT });
  try {
    const name = "Kowalczyk";
    const place = "Wroclaw";
    const { expected } = await plant(h, name, place);
    const r = (await h.tool("memory_delete_entity", { name })) as {
      entities: number;
      elsewhere: Record<string, number>;
      summary: string;
    };
    assert.ok(r.entities >= 1);
    assert.equal(r.elsewhere.context, expected.context);
    assert.equal(r.elsewhere.documents, expected.documents, "documents that named it, in a turn or its tool results");
    assert.equal(r.elsewhere.textLog, expected.textLog);
    assert.match(r.summary, new RegExp(`elsewhere: ${expected.context} context, ${expected.documents} documents`));
    await assertGone(h, name, place);
  } finally {
    await h.close();
  }
});

test("memory_purge (hard) of a subject through the tool registry also forgets it in every other layer", async () => {
  const h = startMemoryAgent({ contextSize: CONTEXT });
  try {
    const name = "Bartholomew";
    const place = "Lucerne";
    const { expected } = await plant(h, name, place);
    const r = (await h.tool("memory_purge", { subject_contains: name })) as {
      relations: number;
      elsewhere: Record<string, number>;
    };
    assert.ok(r.relations >= 1);
    assert.equal(r.elsewhere.context, expected.context);
    assert.equal(r.elsewhere.documents, expected.documents, "documents that named it, in a turn or its tool results");
    assert.equal(r.elsewhere.textLog, expected.textLog);
    await assertGone(h, name, place);
  } finally {
    await h.close();
  }
});

test("the model forgets a name the user's own message names: the turn is answered and the name is gone afterwards", async () => {
  const h = startMemoryAgent({ contextSize: CONTEXT });
  try {
    const name = "Evangelina";
    const place = "Trieste";
    await plant(h, name, place);
    h.llm.enqueue(
      { toolCalls: [{ name: "memory_delete_entity", arguments: { name } }] },
      { text: "Done, she is forgotten." },
    );
    assert.equal(await h.say(`Please forget everything about ${name}.`), "Done, she is forgotten.");
    // The turn that asked is forgotten too, by a job that runs once the turn has ended.
    await waitFor(() => h.agent.status().jobs === 0, "the forget job to run after the turn");
    await assertGone(h, name, place);
  } finally {
    await h.close();
  }
});
