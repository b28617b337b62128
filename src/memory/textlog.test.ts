import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { forgetMatcher } from "@homeagent/sdk";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { mentioning, TextLog, type TextLogEvent } from "./textlog.js";

const turn = (i: number, input = `hello ${i}`, response = `reply ${i}`): TextLogEvent => ({
  ts: 1_700_000_000_000 + i,
  source: "cli",
  input,
  response,
  toolsUsed: i % 2 ? ["memory_recall"] : [],
});

function lines(dir: string): TextLogEvent[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()
    .flatMap((f) =>
      readFileSync(join(dir, f), "utf8")
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as TextLogEvent),
    );
}

test("append writes one JSON line per turn into owner-only files", () => {
  const dir = join(tempDir(), "memory", "text");
  const log = new TextLog(dir);
  log.append(turn(1));
  log.append(turn(2, "我住在北京"));
  const got = lines(dir);
  assert.deepEqual(got, [turn(1), turn(2, "我住在北京")]);
  for (const f of readdirSync(dir)) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
});

test("files rotate by size and only keepFiles of them are kept, newest lines last", () => {
  const dir = tempDir();
  const log = new TextLog(dir, { maxBytes: 1000, keepFiles: 3 });
  for (let i = 0; i < 60; i++) log.append(turn(i));
  const files = readdirSync(dir);
  assert.equal(files.length, 3);
  for (const f of files) assert.ok(statSync(join(dir, f)).size <= 1000, `${f} over the size limit`);
  const got = lines(dir);
  assert.equal(got.at(-1)?.input, "hello 59");
  assert.ok(!got.some((e) => e.input === "hello 0"), "the oldest file was deleted");
  assert.deepEqual(
    got.map((e) => e.ts),
    [...got.map((e) => e.ts)].sort((a, b) => a - b),
  );
});

test("a new TextLog continues the newest file instead of starting another", () => {
  const dir = tempDir();
  new TextLog(dir).append(turn(1));
  const again = new TextLog(dir);
  again.append(turn(2));
  assert.equal(readdirSync(dir).length, 1);
  assert.equal(lines(dir).length, 2);
});

test("purge removes matching lines from every file atomically and returns the count", async () => {
  const dir = tempDir();
  const log = new TextLog(dir, { maxBytes: 600, keepFiles: 20 });
  for (let i = 0; i < 30; i++) log.append(turn(i, i % 3 === 0 ? `my secret is Rosebud ${i}` : `hello ${i}`));
  assert.ok(readdirSync(dir).length > 2, "the lines spread over several files");
  const removed = await log.purge(mentioning("rosebud"));
  assert.equal(removed, 10);
  const got = lines(dir);
  assert.equal(got.length, 20);
  assert.ok(!got.some((e) => e.input.includes("Rosebud")));
  assert.ok(!readdirSync(dir).some((f) => f.endsWith(".tmp")), "no temp file left behind");
  for (const f of readdirSync(dir)) assert.equal(statSync(join(dir, f)).mode & 0o777, 0o600, f);
  log.append(turn(99));
  assert.equal(lines(dir).at(-1)?.input, "hello 99", "appends continue after a rewrite of the current file");
});

test("lines appended while a purge runs are kept, unless they match it too", async () => {
  const dir = tempDir();
  const log = new TextLog(dir);
  log.append(turn(1, "forget Rosebud"));
  log.append(turn(2));
  let appended = false;
  const removed = await log.purge((e) => {
    if (!appended) {
      appended = true; // the rewrite is running: these two wait for it
      log.append(turn(3, "said during the purge"));
      log.append(turn(4, "Rosebud again"));
    }
    return mentioning("rosebud")(e);
  });
  assert.equal(removed, 2);
  assert.deepEqual(
    lines(dir).map((e) => e.input),
    ["hello 2", "said during the purge"],
  );
});

test("a line that does not parse survives a purge and is not counted", async () => {
  const dir = tempDir();
  const log = new TextLog(dir);
  log.append(turn(1, "Rosebud"));
  await log.close();
  const file = join(dir, readdirSync(dir)[0]);
  writeFileSync(file, `${readFileSync(file, "utf8")}{not json\n`);
  const again = new TextLog(dir);
  assert.equal(await again.purge(mentioning("rosebud")), 1);
  assert.equal(readFileSync(file, "utf8"), "{not json\n");
});

test("a line cut by a crash that holds the text goes too, in either spelling; others that do not parse stay", async () => {
  const dir = tempDir();
  const log = new TextLog(dir);
  log.append(turn(1, 'My PIN is "7391-zebra-quartz"'));
  await log.close();
  const file = join(dir, readdirSync(dir)[0]);
  const cut = '{"ts":1,"source":"cli","input":"Pin \\"7391-ZEBRA-quartz\\" and 青鸟七三九一 and mo';
  writeFileSync(file, `${readFileSync(file, "utf8")}${cut}\n{not json\n`);
  const again = new TextLog(dir);
  assert.equal((await again.search('"7391-zebra-quartz"')).total, 2, "the preview counts the cut line");
  assert.equal(await again.purge(mentioning('"7391-zebra-quartz"'), forgetMatcher(['"7391-zebra-quartz"'])), 2);
  assert.equal(readFileSync(file, "utf8"), "{not json\n");
});

test("a line whose tools name the text is forgotten too", async () => {
  const dir = tempDir();
  const log = new TextLog(dir);
  log.append({ ...turn(2), toolsUsed: ["vault_7391_zebra"] });
  log.append(turn(4));
  assert.equal(await log.purge(mentioning("7391_zebra")), 1);
  assert.deepEqual(
    lines(dir).map((e) => e.input),
    ["hello 4"],
  );
});

test("replace edits matching lines in place", async () => {
  const dir = tempDir();
  const log = new TextLog(dir);
  log.append(turn(1, "I live in Paris"));
  log.append(turn(2));
  const n = await log.replace(mentioning("paris"), (e) => ({ ...e, input: e.input.replace("Paris", "Lyon") }));
  assert.equal(n, 1);
  assert.deepEqual(
    lines(dir).map((e) => e.input),
    ["I live in Lyon", "hello 2"],
  );
});

test("a long turn is cut to the line limit and marked truncated", () => {
  const dir = tempDir();
  const log = new TextLog(dir, { maxLineBytes: 2048 });
  log.append(turn(1, "x".repeat(100_000), "长".repeat(50_000)));
  const raw = readFileSync(join(dir, readdirSync(dir)[0]), "utf8");
  assert.ok(Buffer.byteLength(raw) <= 2048, `line is ${Buffer.byteLength(raw)} bytes`);
  const [e] = lines(dir);
  assert.equal(e.truncated, true);
  assert.ok(e.input.startsWith("xxx") && e.response.startsWith("长长"));
});

test("search previews matches case-insensitively, newest first, with the total", async () => {
  const dir = tempDir();
  const log = new TextLog(dir, { maxBytes: 500 });
  for (let i = 0; i < 12; i++) log.append(turn(i, i % 2 ? `about ROSEBUD "${i}"` : `hello ${i}`));
  const { total, events } = await log.search('rosebud "', 3);
  assert.equal(total, 6);
  assert.deepEqual(
    events.map((e) => e.ts % 100),
    [11, 9, 7],
  );
  assert.equal((await log.search("")).total, 0, "an empty query matches nothing");
});
