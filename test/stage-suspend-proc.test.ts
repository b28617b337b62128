/**
 * The hostile review's repro in a real homed: a core-only subprocess plugin registers a handler for each of
 * the seven stages and then stops reading its stdin. Every stage used to wait its full deadline for it on
 * every turn, forever, while `/plugins` said "health ok". Once one of its handlers has missed its deadline
 * in 3 of its last 5 runs, the plugin is suspended: turns take as long as without it, and `/plugins` says it
 * is degraded, which handler and why.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type FakeLLM, startFakeLLM } from "./fixtures/fake-llm.js";
import { CliLines, type HomedProcess, startHomedOn } from "./fixtures/homed-process.js";
import { installFixturePlugin } from "./fixtures/plugins.js";
import { tempDir } from "./fixtures/temp-dir.js";

/** core.plugin.stage_timeout here: small, so the warm-up is short; a suspended plugin costs no part of it. */
const STAGE_TIMEOUT_MS = 250;

let fake: FakeLLM;
let homed: HomedProcess;
let cli: CliLines;

before(async () => {
  const dir = tempDir("ha-stage-suspend-");
  installFixturePlugin(dir, "deaf-stages");
  fake = await startFakeLLM();
  homed = await startHomedOn(dir, { HOMEAGENT_LLM_BASE_URL: fake.url, HOMEAGENT_LLM_MODEL: "fake-model" });
  cli = await CliLines.open(homed.socket);
  const set = await cli.text(`/settings set core.plugin.stage_timeout ${STAGE_TIMEOUT_MS}ms`);
  assert.equal(set, "core.plugin.stage_timeout updated");
});

after(async () => {
  cli?.close();
  // The deaf plugin never answers plugin.stop: homed kills it after its stop grace.
  await homed?.stop();
  await fake?.close();
});

/** The deaf-stages entry of `/plugins`: its first line and the ones under it. */
async function deafPlugin(): Promise<string> {
  const text = await cli.text("/plugins");
  const lines = text.split("\n");
  const at = lines.findIndex((l) => l.startsWith("deaf-stages "));
  assert.ok(at >= 0, text);
  const end = lines.findIndex((l, i) => i > at && !l.startsWith("  "));
  return lines.slice(at, end < 0 ? undefined : end).join("\n");
}

/** One message through the cli; resolves with the reply and how long the turn took. */
async function timedTurn(text: string): Promise<{ reply: string; ms: number }> {
  const started = performance.now();
  const reply = await cli.text(text, 60_000);
  return { reply, ms: performance.now() - started };
}

const threeCalls = () => ({
  toolCalls: Array.from({ length: 3 }, () => ({ name: "output_list_channels", arguments: {} })),
});

test("a plugin whose seven stage handlers stop answering is suspended after 3 misses, and turns are fast again", {
  timeout: 60_000,
}, async () => {
  assert.match(await deafPlugin(), /^deaf-stages \[bin 0\.1\.0\]: running, health ok/);
  // The warm-up: one turn whose model round makes three tool calls runs before_toolcall three times, so the
  // deaf plugin's handler misses its third deadline in this turn (and on_input, pre_action, post_action,
  // after_toolcall one or two each).
  fake.enqueue(threeCalls(), { text: "listed" });
  const warm = await timedTurn("list the channels three times");
  assert.equal(warm.reply, "listed");
  assert.ok(warm.ms >= 3 * STAGE_TIMEOUT_MS, `the warm-up waited for the deaf handlers (${warm.ms} ms)`);

  const entry = await deafPlugin();
  assert.match(entry, /^deaf-stages \[bin 0\.1\.0\]: running, health degraded/);
  assert.match(
    entry,
    /\n {2}degraded: its before_toolcall handler failed 3 of its last 3 runs \(last: .*(got no answer within|timed out after) 250 ms.*\); all its stage handlers are skipped until it restarts or is reloaded \(\/plugins reload deaf-stages/,
  );
  assert.match(
    homed.stderr(),
    /plugin "deaf-stages" is degraded: its before_toolcall handler failed 3 of its last 3 runs/,
  );

  // Without the plugin a turn takes milliseconds; with it not suspended, a plain turn took 5 stage deadlines
  // and a tool turn 7. Now each must take under one (a loaded 2-core machine took 131 ms for the tool turn).
  fake.enqueue({ text: "plain reply" });
  const plain = await timedTurn("hello again");
  assert.equal(plain.reply, "plain reply");
  assert.ok(plain.ms < STAGE_TIMEOUT_MS, `a plain turn took ${Math.round(plain.ms)} ms`);
  fake.enqueue(threeCalls(), { text: "listed again" });
  const tools = await timedTurn("and list them again");
  assert.equal(tools.reply, "listed again");
  assert.ok(tools.ms < STAGE_TIMEOUT_MS, `a tool turn took ${Math.round(tools.ms)} ms`);
  assert.match(await deafPlugin(), /health degraded/);
});
