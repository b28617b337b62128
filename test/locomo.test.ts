/** The LoCoMo harness itself: the loader and the recall measure, on a tiny file in LoCoMo's format. */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { bm25Retriever, measure, ourRetriever } from "../bench/locomo.js";
import { loadLocomo } from "../bench/locomo-data.js";
import { WordEmbedder } from "./fixtures/embedding/word-embedder.js";
import { tempDir } from "./fixtures/temp-dir.js";

const dir = tempDir("locomo-test-");

/** A tiny file in LoCoMo's format, with the flaws real files have. */
const SAMPLE = [
  {
    sample_id: "conv-x",
    conversation: {
      speaker_a: "Ann",
      speaker_b: "Bo",
      session_1_date_time: "1:56 pm on 8 May, 2023",
      session_1: [
        { speaker: "Ann", dia_id: "D1:1", text: "I adopted a puppy named Biscuit last week!" },
        { speaker: "Bo", dia_id: "D1:2", text: "Congrats! I started pottery classes.", blip_caption: "a clay bowl" },
      ],
      session_2_date_time: "9:00 am on 1 June, 2023",
      session_2: [{ speaker: "Ann", dia_id: "D2:1", text: "Biscuit chewed my running shoes." }],
      session_3_date_time: "a date without a session",
    },
    qa: [
      { question: "What is the name of Ann's puppy?", answer: "Biscuit", evidence: ["D1:1"], category: 4 },
      { question: "What did Biscuit do after adoption?", answer: "chewed", evidence: ["D1:1; D2:1"], category: 1 },
      { question: "What did Bo make?", answer: "a bowl", evidence: ["D1:2", "D", "D9:9"], category: 3 },
      { question: "Who is Bo's cat?", evidence: [], category: 5, adversarial_answer: "none" },
    ],
  },
];

test("the LoCoMo loader reads turns with dates and captions, and drops evidence that names no turn", () => {
  const file = join(dir, "tiny.json");
  writeFileSync(file, JSON.stringify(SAMPLE));
  const data = loadLocomo(file);
  assert.deepEqual(
    data.turns.map((t) => [t.conversation, t.diaId, t.date]),
    [
      ["conv-x", "D1:1", "1:56 pm on 8 May, 2023"],
      ["conv-x", "D1:2", "1:56 pm on 8 May, 2023"],
      ["conv-x", "D2:1", "9:00 am on 1 June, 2023"],
    ],
  );
  assert.match(data.turns[1].text, /pottery classes\. \[shares a photo: a clay bowl\]$/);
  assert.deepEqual(
    data.questions.map((q) => [q.category, q.evidence]),
    [
      [4, ["D1:1"]],
      [1, ["D1:1", "D2:1"]],
      [3, ["D1:2"]],
      [5, []],
    ],
  );
  assert.equal(data.dropped.length, 2);
  assert.throws(() => loadLocomo(join(dir, "missing.json")), /ENOENT/);
});

test("recall@k is the share of evidence turns retrieved, per category and overall", async () => {
  const file = join(dir, "tiny.json");
  writeFileSync(file, JSON.stringify(SAMPLE));
  const data = loadLocomo(file);
  const questions = data.questions.filter((q) => q.category !== 5);
  const ours = await measure("locomo", await ourRetriever(data.turns, new WordEmbedder()), questions, 1);
  assert.equal(ours.questions, 3);
  assert.equal(ours.by_category["4"], 1);
  assert.equal(ours.by_category["1"], 0.5, "one of two evidence turns fits in k = 1");
  assert.equal(ours.by_category["2"], 0, "no question of that category");
  const plain = await measure("locomo-bm25", bm25Retriever(data.turns), questions, 3);
  assert.equal(plain.by_category["1"], 1);
  assert.ok(plain.p95_ms >= plain.p50_ms);
});
