/** The rehearsal after start (rehearsal.ts): whole turns answered on scratch state that nothing outlives. */
import assert from "node:assert/strict";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import type { AgentSettings } from "../kernel/types.js";
import { rehearseTurns } from "./rehearsal.js";

const settings: AgentSettings = {
  maxToolTurns: () => 10,
  maxToolCallsPerRound: () => 8,
  maxContextSize: () => 30,
  systemPrompt: () => "You are HomeAgent.",
  personalPrompt: () => "",
  maxTokens: () => 1024,
  temperature: () => 0.7,
  thinkingEnabled: () => false,
  stageTimeoutMs: () => 5_000,
  toolTimeoutMs: () => 30_000,
  timezone: () => "Asia/Shanghai",
};

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const running = () => new AbortController().signal;

test("every rehearsed turn is answered over real HTTP, CJK lines too, and no scratch folder is left", async () => {
  const scratchRoot = tempDir();
  const said: string[] = [];
  const log = { debug: (m: string) => said.push(m), info() {}, warn: (m: string) => said.push(m), error() {} };
  assert.equal(await rehearseTurns({ settings, cjk: false, signal: running(), scratchRoot, log }), 15);
  assert.equal(await rehearseTurns({ settings, cjk: true, signal: running(), scratchRoot, log }), 20);
  assert.deepEqual(said, []);
  assert.deepEqual(readdirSync(scratchRoot), []);
});

test("stopping ends the rehearsal after the turn under way and cleans up; stopped before it starts, nothing is made", async () => {
  const scratchRoot = tempDir();
  const stop = new AbortController();
  const done = rehearseTurns({ settings, cjk: false, signal: stop.signal, scratchRoot, log: quiet });
  stop.abort();
  assert.ok((await done) < 15);
  assert.deepEqual(readdirSync(scratchRoot), []);
  assert.equal(await rehearseTurns({ settings, cjk: false, signal: stop.signal, scratchRoot, log: quiet }), 0);
  assert.deepEqual(readdirSync(scratchRoot), []);
});

test("a rehearsal that cannot make its scratch folder answers nothing, holds nothing open and says why", async () => {
  const notAFolder = join(tempDir(), "file");
  writeFileSync(notAFolder, "");
  const said: string[] = [];
  const log = { ...quiet, debug: (m: string) => said.push(m) };
  assert.equal(await rehearseTurns({ settings, cjk: false, signal: running(), scratchRoot: notAFolder, log }), 0);
  assert.match(said.join("\n"), /rehearsing a turn: .*ENOTDIR/);
});
