/**
 * A forget asked for while the turn that said it is still running must not be lost (a hostile review found
 * it was, when the daemon stopped or died before the turn ended): the turn's input is left alone then, and
 * the removal is repeated once it ends. Here the repeat never gets its turn on the job lane; a daemon that
 * stops runs it before memory closes, and one killed outright forgets that turn whole at its next start —
 * from ids written down, never from the forgotten text.
 */
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { waitFor } from "../../test/fixtures/wait.js";
import { LexicalEmbedder } from "../embedding/lexical.js";
import type { Job } from "../kernel/jobs.js";
import { ForgetHooks } from "../plugins/forget-hooks.js";
import { openMemoryStore } from "./store.js";
import { MemorySystem } from "./system.js";

const SECRET = "7391-zebra-quartz";
const quiet = { debug() {}, info() {}, warn() {}, error() {} };

/** A memory on `dataDir` whose job lane runs jobs at once, one after another (`serial`), or never. */
function open(dataDir: string, lane: "at once" | "serial" | "never") {
  const db = openMemoryStore(join(dataDir, "memory.db"));
  const memory = new MemorySystem({
    db,
    dataDir,
    settings: { maxContextSize: () => 30, zone: () => "UTC", duration: () => 0 },
    log: quiet,
  });
  memory.setEmbedder(new LexicalEmbedder());
  const signal = new AbortController().signal;
  const steps = async (job: Job) => {
    while (await job.step(signal)) {
      // next step
    }
  };
  let tail: Promise<void> = Promise.resolve();
  const run = (job: Job): Promise<void> => {
    if (lane === "never") return new Promise<void>(() => {});
    if (lane === "at once") return steps(job);
    tail = tail.then(() => steps(job));
    return tail;
  };
  memory.attach({ enqueueJob: run, status: () => ({ busy: false }), injectSelf: async () => undefined });
  return { db, memory, runJob: run };
}

/** An answered turn naming the secret, and a turn still running that names it too. */
async function plant(memory: MemorySystem): Promise<number> {
  const answered = await memory.context.append({
    ts: 1,
    kind: "user",
    source: "cli",
    channel: "cli",
    input: `pin ${SECRET}`,
  });
  await memory.context.respond(answered, { response: "noted", toolsUsed: [], toolResults: [] });
  memory.textlog.append({ ts: 1, source: "cli", input: `pin ${SECRET}`, response: "noted", toolsUsed: [] });
  return memory.context.append({ ts: 2, kind: "user", source: "cli", channel: "cli", input: `again: ${SECRET}` });
}

const heldFile = (dataDir: string) => join(dataDir, "memory", "forget-held.json");
const windowText = (memory: MemorySystem) => JSON.stringify(memory.context.events());
const logText = (dataDir: string) =>
  readdirSync(join(dataDir, "memory", "text"))
    .map((f) => readFileSync(join(dataDir, "memory", "text", f), "utf8"))
    .join("");

test("a daemon killed before the repeat forgets the running turn whole at its next start", async () => {
  const dataDir = tempDir("forget-held-");
  const first = open(dataDir, "never");
  const running = await plant(first.memory);
  const report = await first.memory.forgetting.forget(SECRET);
  assert.equal(report.removed.context, 1, "the answered turn goes at once; the running one is left alone");
  assert.ok(windowText(first.memory).includes(SECRET));
  assert.deepEqual(JSON.parse(readFileSync(heldFile(dataDir), "utf8")), [running], "its id, not its text");
  // The running turn ends and is logged; then the daemon dies before the repeat runs (no close()).
  await first.memory.context.respond(running, { response: `ok, ${SECRET}`, toolsUsed: [], toolResults: [] });
  first.memory.textlog.append({
    ts: 2,
    source: "cli",
    input: `again: ${SECRET}`,
    response: `ok, ${SECRET}`,
    toolsUsed: [],
  });
  await first.memory.index.close();
  await first.memory.textlog.close();
  first.db.close();

  const second = open(dataDir, "at once");
  await waitFor(() => !existsSync(heldFile(dataDir)), "the interrupted forget to finish");
  assert.ok(!windowText(second.memory).includes(SECRET), windowText(second.memory));
  assert.ok(!logText(dataDir).includes(SECRET), logText(dataDir));
  await second.memory.close();
  second.db.close();
});

test("a daemon that stops runs the repeat before memory closes", async () => {
  const dataDir = tempDir("forget-held-");
  const first = open(dataDir, "never");
  const running = await plant(first.memory);
  await first.memory.forgetting.forget(SECRET);
  await first.memory.context.respond(running, { response: `ok, ${SECRET}`, toolsUsed: [], toolResults: [] });
  await first.memory.close();
  first.db.close();
  assert.equal(existsSync(heldFile(dataDir)), false);

  const second = open(dataDir, "at once");
  assert.ok(!windowText(second.memory).includes(SECRET));
  await second.memory.close();
  second.db.close();
});

test("a plugin that never answers costs a forget one deadline, and the job lane nothing", async () => {
  const dataDir = tempDir("forget-hung-");
  const { db, memory, runJob } = open(dataDir, "serial");
  const hooks = new ForgetHooks(50);
  let asked = 0;
  hooks.set("mute", () => {
    asked++;
    return new Promise(() => {});
  });
  memory.forgetting.setReach({
    plugins: (request) => hooks.run(request),
    knowledge: async () => ({ matched: 0, paths: [], removed: 0 }),
    history: () => 0,
    kept: () => ({ inbox: 0, approvals: 0, transcripts: 0 }),
    databases: [],
  });
  await plant(memory);
  const started = performance.now();
  const report = await memory.forgetting.forget(SECRET);
  assert.ok(performance.now() - started < 1000, "one deadline, not one per ask");
  assert.match(report.plugins[0].error ?? "", /no answer within 50 ms/);
  // The repeat after the turn asks the plugin again; a job queued behind it does not wait for that answer.
  let ran = false;
  await runJob({
    name: "turn",
    step: async () => {
      ran = true;
      return false;
    },
  });
  assert.ok(ran);
  assert.equal(asked, 2, "asked by the forget and by its repeat");
  await memory.close();
  db.close();
});
