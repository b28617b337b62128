/**
 * `/memory …` through the real cli socket of a real daemon (in this process, fake LLM on loopback): each
 * subcommand against layers that hold something — a window of 3, two archived turns, graph facts after a
 * distill run — and the usage line of each malformed form.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { cliSocketPath } from "@homeagent/cli-protocol";
import { type FakeLLM, startFakeLLM } from "../../../test/fixtures/fake-llm.js";
import { CliLines } from "../../../test/fixtures/homed-process.js";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { type Daemon, startDaemon } from "../../daemon/bootstrap.js";
import { MEMORY_HELP } from "./memory-commands.js";

const MESSAGES = [
  "My name is Alice Martin",
  "I live in Lyon",
  "I like green tea",
  "The weather is mild today",
  "Planning a trip to Kyoto in May",
];

describe("/memory over the cli socket of a real daemon", () => {
  let fake: FakeLLM;
  let daemon: Daemon;
  let cli: CliLines;
  const logs: string[] = [];

  before(async () => {
    fake = await startFakeLLM();
    const dir = tempDir("ha-memory-cli-");
    daemon = await startDaemon({
      dataDir: dir,
      env: {
        HOMEAGENT_LLM_BASE_URL: fake.url,
        HOMEAGENT_LLM_MODEL: "fake-model",
        HOMEAGENT_LLM_API_KEY: "sk-test-0000",
        HOMEAGENT_WEBUI_ADDR: "127.0.0.1:0",
      },
      ollamaUrl: "",
      logWrite: (line) => logs.push(line),
    });
    cli = await CliLines.open(cliSocketPath(dir));
    await cli.text("/settings set core.agent.max_context_size 3");
    // Each message prunes the window to 2 before it joins: the first two end up archived.
    for (const m of MESSAGES) assert.equal(await cli.text(m), "ok");
  });
  after(async () => {
    cli?.close();
    await daemon?.stop();
    await fake?.close();
  });

  test("a missing or unknown subcommand or argument answers with its usage line", async () => {
    const help = { type: "error", error: `usage: ${MEMORY_HELP.join("\n")}` };
    assert.deepEqual(await cli.ask("/memory"), help);
    assert.deepEqual(await cli.ask("/memory bogus"), help);
    const usage = (line: string) => cli.ask(line).then((f) => (f.type === "error" ? f.error : f));
    assert.equal(await usage("/memory query"), "usage: /memory query <keywords>");
    assert.equal(await usage("/memory docs   "), "usage: /memory docs <query>");
    assert.equal(await usage("/memory run"), "usage: /memory run distill|archive|merge|review");
    assert.equal(await usage("/memory run pipeline"), "usage: /memory run distill|archive|merge|review");
    assert.equal(
      await usage("/memory forget"),
      "usage: /memory forget <query>, then /memory forget --yes [--knowledge] <query>",
    );
    assert.equal(
      await usage("/memory forget --yes"),
      "usage: /memory forget <query>, then /memory forget --yes [--knowledge] <query>",
      "--yes alone is not a query",
    );
    assert.match(String(await usage("/memory forget x")), /at least 2 characters/);
  });

  test("timeline lists the window oldest first with each reply; stats counts every layer", async () => {
    const lines = (await cli.text("/memory timeline")).split("\n");
    assert.equal(lines.length, 3);
    for (const [i, line] of lines.entries()) {
      assert.match(
        line,
        new RegExp(`^#\\d+ \\[\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\] user cli: ${MESSAGES[i + 2]} → ok$`),
      );
    }
    const stats = JSON.parse(await cli.text("/memory stats"));
    assert.deepEqual(stats.context, { events: 3, maxEvents: 3 });
    assert.equal(stats.documents, 2);
    assert.deepEqual(stats.indexed, { context: 3, turn: 2, doc: 0, entity: 0 });
  });

  test("docs finds an archived turn verbatim with its date, and reading does not consume it", async () => {
    const found = await cli.text("/memory docs Lyon");
    assert.match(found, /^doc_\S+ \(context_archived, \d{4}-\d\d-\d\d, score \d\.\d\d\): /);
    assert.match(found, /\n\[\d{4}-\d\d-\d\dT[\d:.]+Z\] cli: I live in Lyon → ok$/);
    assert.equal(await cli.text("/memory docs quantum chromodynamics"), 'no documents match "quantum chromodynamics"');
    assert.equal(JSON.parse(await cli.text("/memory stats")).documents, 2);
    assert.equal((await cli.text("/memory docs Lyon")).split("\n\n").length, 1);
  });

  test("run distill turns the user's lines into graph facts for query; each loop answers with its summary", async () => {
    assert.equal(await cli.text("/memory query Lyon"), 'no graph facts about "Lyon"');
    const distill = await cli.text("/memory run distill");
    assert.match(distill, /^distill: pipeline 3 lines → 3 triples \(0 failed.*window 3 events \(limit 3\), pruned 0$/);
    const facts = (await cli.text("/memory query Lyon")).split("\n");
    assert.match(facts[0], /^entities \(\d+\): .*Lyon \(Place\)/);
    assert.ok(
      facts.some((f) => /^- \S+ —\S+→ Lyon$/.test(f)),
      facts.join("\n"),
    );
    assert.ok(
      facts.some((f) => /→ Alice Martin$/.test(f)),
      "a depth-2 recall reaches the name fact too",
    );
    assert.match(await cli.text("/memory run archive"), /^archive: 0 cold documents → /);
    assert.match(await cli.text("/memory run merge"), /^merge: scanned \d+ entities, 0 consolidation tasks/);
    assert.match(await cli.text("/memory run review"), /^review: 3 facts reviewed/);
  });

  test("forget reads a word that only starts like a flag as the query, and flags in any order", async () => {
    assert.equal(
      await cli.text("/memory forget --yesterday's notes"),
      `nothing in memory matches "--yesterday's notes"`,
    );
    assert.equal(
      await cli.text("/memory forget --knowledgeable friend"),
      'nothing in memory matches "--knowledgeable friend"',
    );
    assert.equal(await cli.text("/memory forget 我的菠萝"), 'nothing in memory matches "我的菠萝"');
    for (const flags of ["--knowledge --yes", "--yes --knowledge"]) {
      const done = (await cli.text(`/memory forget ${flags} Kyoto`)).split("\n");
      assert.match(done[0], /^forgot "Kyoto": removed /, flags);
    }
    assert.equal(await cli.text("/memory forget Kyoto"), 'nothing in memory matches "Kyoto"');
  });

  test("forget shows what matches, and --yes removes it from every layer", async () => {
    const preview = (await cli.text("/memory forget Lyon")).split("\n");
    assert.match(preview[0], /^matches for "Lyon": documents 1, entities 1, relations 1, .*textLog 1/);
    const samples = preview.slice(1, -1);
    assert.deepEqual(
      samples,
      ["- I live in Lyon ok", "- Lyon"],
      "each matching text once (the raw log repeats the turn)",
    );
    assert.equal(preview.at(-1), "to remove all of it from every layer, send: /memory forget --yes Lyon");
    assert.match(await cli.text("/memory docs Lyon"), /I live in Lyon/, "a preview removes nothing");

    const done = (await cli.text("/memory forget --yes Lyon")).split("\n");
    assert.match(
      done[0],
      /^forgot "Lyon": removed documents 1, entities 1, relations 1, (sentences \d+, )?textLog 1, indexItems 2, transcripts 1$/,
    );
    assert.match(done.at(-1) ?? "", /scrubbed in the background/);
    assert.equal(await cli.text("/memory forget Lyon"), 'nothing in memory matches "Lyon"');
    assert.equal(await cli.text("/memory docs Lyon"), 'no documents match "Lyon"');
    assert.equal(await cli.text("/memory query Lyon"), 'no graph facts about "Lyon"');
    assert.match(await cli.text("/memory query Alice"), /Alice Martin/, "other facts stay");
    const stats = JSON.parse(await cli.text("/memory stats"));
    assert.equal(stats.documents, 1);
    assert.equal(stats.indexed.turn, 1);
  });
});
