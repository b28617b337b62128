import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { storedEvent } from "../../../test/fixtures/memory-layers.js";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { estimateTokens } from "../../kernel/budget.js";
import type { ContextEvent } from "../../kernel/types.js";
import { SearchIndex } from "../../retrieval/search.js";
import { formatInZone } from "../../util/time-zone.js";
import { openMemoryStore } from "../store.js";
import { DocStore } from "./documents.js";
import { RELATED_HEADER, type RelatedOptions, relatedMemory } from "./related.js";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ZONE = "Asia/Shanghai";
// Wednesday 18 June 2025, 10:00 in Shanghai.
const NOW = Date.UTC(2025, 5, 18, 2);
const T0 = Date.UTC(2023, 4, 8, 5, 56);

let nextId = 1;
function event(ts: number, input: string, response = "ok."): ContextEvent {
  return storedEvent(nextId++, ts, input, { response });
}

function layers() {
  const db = openMemoryStore(join(tempDir("ha-related-"), "memory.db"));
  const index = new SearchIndex(db, { embedder: null });
  const docs = new DocStore(db, index);
  return { db, index, docs, deps: { index, docs } };
}

const opts = (extra: Partial<RelatedOptions> = {}): RelatedOptions => ({
  exclude: new Set(),
  zone: ZONE,
  now: NOW,
  ...extra,
});

const date = (ts: number) => formatInZone(ts, ZONE).slice(0, 16);

/** 30 turns an hour apart, archived in three documents of 10, the evidence around turn 15. */
function conversation() {
  const l = layers();
  const turns = Array.from({ length: 30 }, (_, i) => event(T0 + i * HOUR, `small talk number ${i} about the weather`));
  turns[14] = event(T0 + 14 * HOUR, "Hey Mel! How have you been lately?", "Good, and you?");
  turns[15] = event(T0 + 15 * HOUR, "I went to the LGBTQ support group yesterday", "That sounds meaningful.");
  turns[16] = event(T0 + 16 * HOUR, "It was so powerful, the transgender stories were inspiring");
  turns[9] = event(T0 + 9 * HOUR, "My grandmother gave me a pendant from Sweden");
  turns[10] = event(T0 + 10 * HOUR, "It reminds me of her every day");
  for (let d = 0; d < 3; d++) l.docs.archive(turns.slice(d * 10, d * 10 + 10));
  return { ...l, turns };
}

test("a hit comes back verbatim with its date, the turns before and after it, oldest first", async () => {
  const { deps, turns } = conversation();
  const out = await relatedMemory(deps, "LGBTQ support group", 400, opts());
  const expected = [
    `[${date(turns[14].ts)}] cli: Hey Mel! How have you been lately?`,
    "  → Good, and you?",
    `[${date(turns[15].ts)}] cli: I went to the LGBTQ support group yesterday`,
    "  → That sounds meaningful.",
    `[${date(turns[16].ts)}] cli: It was so powerful, the transgender stories were inspiring`,
    "  → ok.",
  ].join("\n");
  assert.ok(out.startsWith(`${RELATED_HEADER}\n${expected}`), out);
  assert.equal(date(turns[15].ts), "2023-05-09 04:56", "dates are in the user's zone, not UTC");
  assert.ok(estimateTokens(out) <= 400);
});

test("neighbours are found across documents: the next turn may sit in the next archive batch", async () => {
  const { deps, turns } = conversation();
  const out = await relatedMemory(deps, "pendant Sweden grandmother", 400, opts());
  const pendant = out.indexOf("pendant from Sweden");
  const reminds = out.indexOf("It reminds me of her every day");
  assert.ok(pendant > 0 && reminds > pendant, out);
  assert.ok(out.includes(`[${date(turns[10].ts)}] cli: It reminds me`));
});

test("excluded ids (already in the prompt) are not repeated", async () => {
  const { deps, index } = conversation();
  const [hit] = await index.search("LGBTQ support group", { k: 1, filter: { kind: "turn" } });
  const out = await relatedMemory(deps, "LGBTQ support group", 400, opts({ exclude: new Set([hit.id]) }));
  assert.ok(!out.includes("I went to the LGBTQ support group"), out);
});

test("the budget is never exceeded, and a small budget keeps the best hit first", async () => {
  const { deps } = conversation();
  for (const budget of [0, 10, 20, 30, 45, 60, 90, 150, 400, 2000]) {
    const out = await relatedMemory(deps, "LGBTQ support group weather", budget, opts());
    assert.ok(estimateTokens(out) <= budget, `budget ${budget}: ${estimateTokens(out)}`);
    if (out) assert.ok(out.startsWith(RELATED_HEADER));
  }
  const small = await relatedMemory(deps, "LGBTQ support group", 60, opts());
  assert.match(small, /LGBTQ support group yesterday/);
});

test("an over-long turn is cut to fit rather than leaving the section empty", async () => {
  const { deps, docs } = layers();
  const long = `My travel diary: ${"we walked along the fjord and watched the northern lights again ".repeat(120)}`;
  docs.archive([event(T0, long)]);
  const out = await relatedMemory(deps, "fjord northern lights diary", 120, opts());
  assert.ok(out.includes("My travel diary: we walked along the fjord"), out);
  assert.ok(out.includes("…"));
  assert.ok(estimateTokens(out) <= 120);
});

test("the same words archived twice are shown once", async () => {
  const { deps, docs } = layers();
  docs.archive([event(T0, "Remember: the spare key is under the blue flowerpot")]);
  docs.archive([event(T0 + DAY, "Remember: the spare key is under the blue flowerpot")]);
  const out = await relatedMemory(deps, "spare key flowerpot", 400, opts());
  assert.equal(out.split("spare key is under").length - 1, 1, out);
});

test("manual documents come back verbatim with their date", async () => {
  const { deps, docs } = layers();
  const ts = Date.UTC(2025, 2, 3, 12);
  await docs.commit({ content: "The cabin Wi-Fi password is written in the blue notebook.", ts });
  const out = await relatedMemory(deps, "cabin wifi password notebook", 400, opts());
  assert.ok(out.includes(`[${date(ts)}] document: The cabin Wi-Fi password is written in the blue notebook.`), out);
});

test("time words boost what falls in their range; outside it nothing is dropped", async () => {
  const { deps, docs } = layers();
  const january = Date.UTC(2025, 0, 15, 3);
  const lastWeek = Date.UTC(2025, 5, 11, 3); // Wednesday of the week before NOW's
  docs.archive([event(january, "Dentist appointment: the dentist said my dentist checkup was fine")]);
  docs.archive([event(january + HOUR, "Lunch with Anna downtown")]);
  // Unrelated turns in between, so the two dentist turns are not each other's neighbours.
  for (let i = 0; i < 4; i++) docs.archive([event(january + (i + 2) * DAY, `gardening note ${i}`)]);
  docs.archive([event(lastWeek, "Had a dentist appointment, one filling")]);
  docs.archive([event(lastWeek + HOUR, "Bought a new bicycle helmet")]);
  const first = (out: string) => (out.indexOf("one filling") < out.indexOf("checkup was fine") ? "june" : "january");

  const plain = await relatedMemory(deps, "dentist appointment", 400, opts());
  assert.equal(first(plain), "january", plain);
  const boosted = await relatedMemory(deps, "dentist appointment last week", 400, opts());
  assert.equal(first(boosted), "june", boosted);
  const zh = await relatedMemory(deps, "上周的 dentist appointment", 400, opts());
  assert.equal(first(zh), "june", zh);

  const nothingInRange = await relatedMemory(deps, "dentist appointment in 2019", 400, opts());
  assert.match(nothingInRange, /checkup was fine/);
  assert.match(nothingInRange, /one filling/);
});

test("no match, or no room for even one excerpt: an empty section without a header", async () => {
  const { deps } = conversation();
  assert.equal(await relatedMemory(deps, "quantum chromodynamics", 400, opts()), "");
  assert.equal(await relatedMemory(deps, "LGBTQ support group", 5, opts()), "");
});

test("one search of 40 hits; their rows are read a few hits at a time, and no more once the section is full", async () => {
  const { index, docs } = layers();
  // 36 matching turns, a day apart with unrelated turns between them, so each is a hit of its own.
  for (let i = 0; i < 36; i++) {
    docs.archive([event(T0 + i * DAY, `harbour walk number ${i}`)]);
    docs.archive([event(T0 + i * DAY + HOUR, `unrelated chore ${i}`)]);
  }
  const asked: number[] = [];
  const counting = {
    db: index.db,
    prepare: index.prepare.bind(index),
    tsSpan: index.tsSpan.bind(index),
    search: (q: Parameters<SearchIndex["search"]>[0], o?: Parameters<SearchIndex["search"]>[1]) => {
      asked.push(o?.k ?? 10);
      return index.search(q, o);
    },
  };
  const read: number[] = [];
  const reading = {
    turnsAroundMany: (ids: readonly number[], before: number, after: number) => {
      read.push(ids.length);
      return docs.turnsAroundMany(ids, before, after);
    },
  };
  const small = await relatedMemory({ index: counting, docs: reading }, "harbour walk", 150, opts());
  assert.match(small, /harbour walk number/);
  assert.deepEqual(asked, [40]);
  assert.deepEqual(read, [8], "the first 8 hits filled it: the other 32 were never read");
  asked.length = 0;
  read.length = 0;
  const large = await relatedMemory({ index: counting, docs: reading }, "harbour walk", 8_000, opts());
  assert.deepEqual(asked, [40]);
  assert.deepEqual(read, [8, 8, 8, 8, 4]);
  for (let i = 0; i < 36; i++) assert.ok(large.includes(`harbour walk number ${i}\n`), `walk ${i} in ${large}`);
});

test("a time range that holds every turn is not searched twice: it would boost every hit alike", async () => {
  const { index, docs } = layers();
  const asked: Array<number | undefined> = [];
  const counting = {
    db: index.db,
    prepare: index.prepare.bind(index),
    tsSpan: index.tsSpan.bind(index),
    search: (q: Parameters<SearchIndex["search"]>[0], o?: Parameters<SearchIndex["search"]>[1]) => {
      asked.push(o?.filter?.since);
      return index.search(q, o);
    },
  };
  const thisWeek = NOW - 2 * DAY;
  docs.archive([event(thisWeek, "The harbour walk was windy")]);
  docs.archive([event(thisWeek + HOUR, "The harbour cafe was closed")]);
  const all = await relatedMemory({ index: counting, docs }, "harbour this week", 400, opts());
  assert.deepEqual(asked, [undefined], "one search: both turns are in this week");
  assert.match(all, /windy/);
  assert.match(all, /closed/);
  asked.length = 0;
  docs.archive([event(NOW - 60 * DAY, "An old harbour walk in the rain")]);
  const some = await relatedMemory({ index: counting, docs }, "harbour this week", 400, opts());
  assert.equal(asked.length, 2, "an older turn exists: the range is searched too");
  assert.match(some, /windy/);
  assert.match(some, /rain/);
});
