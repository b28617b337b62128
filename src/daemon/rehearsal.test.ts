/** The rehearsal after start (rehearsal.ts): whole turns answered on scratch state that nothing outlives. */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../test/fixtures/temp-dir.js";
import { HttpEmbedder } from "../embedding/http.js";
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

test("every rehearsed turn is answered over real HTTP, CJK lines too, and the scratch folder is not left", async () => {
  const dir = join(tempDir(), "rehearsal");
  // What a rehearsal killed with the process left behind.
  mkdirSync(dir);
  writeFileSync(join(dir, "memory.db"), "left over");
  const said: string[] = [];
  const log = { debug: (m: string) => said.push(m), info() {}, warn: (m: string) => said.push(m), error() {} };
  assert.equal(await rehearseTurns({ settings, embedder: null, cjk: false, dir, signal: running(), log }), 15);
  assert.equal(existsSync(dir), false);
  assert.equal(await rehearseTurns({ settings, embedder: null, cjk: true, dir, signal: running(), log }), 20);
  assert.deepEqual(said, []);
  assert.equal(existsSync(dir), false);
});

test("stopping ends the rehearsal within its turn and cleans up; stopped before it starts, nothing is made", async () => {
  const dir = join(tempDir(), "rehearsal");
  const stop = new AbortController();
  const done = rehearseTurns({ settings, embedder: null, cjk: false, dir, signal: stop.signal, log: quiet });
  stop.abort();
  assert.ok((await done) < 15);
  assert.equal(existsSync(dir), false);
  assert.equal(await rehearseTurns({ settings, embedder: null, cjk: false, dir, signal: stop.signal, log: quiet }), 0);
  assert.equal(existsSync(dir), false);
});

test("a remote embedding service is never asked: the rehearsal embeds lexically instead", async () => {
  let asked = 0;
  const server = createServer((req, res) => {
    asked++;
    req.resume();
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ data: [{ embedding: [0.6, 0.8] }] }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = server.address() as AddressInfo;
    const embedder = await HttpEmbedder.connect({ api: "openai", baseUrl: `http://127.0.0.1:${port}/v1`, model: "m" });
    assert.equal(asked, 1, "the probe");
    const dir = join(tempDir(), "rehearsal");
    assert.equal(await rehearseTurns({ settings, embedder, cjk: false, dir, signal: running(), log: quiet }), 15);
    assert.equal(asked, 1);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
