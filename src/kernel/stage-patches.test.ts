/**
 * The headline property of stage patches: many plugins writing concurrently lose nothing. Under the old
 * shared-object model, 8 handlers that read contextMsgs, awaited, and wrote it back kept 1 write of 8; here
 * 8 plugins (in-process and remote, mixed) × 1,000 rounds must keep every write. Remote handlers are
 * simulated the way a subprocess sees the stage: a JSON snapshot in, a diff of it as JSON out.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { StageContext } from "@homeagent/sdk";
import { diffStage, type StagePatch, type StageSnapshot } from "@homeagent/sdk/protocol";
import { quietLog, startAgent } from "../../test/fixtures/kernel-harness.js";
import { newStageContext, StageHost } from "./stages.js";

const PLUGINS = 8;
const ROUNDS = 1000;

/** mulberry32: a seeded generator, so a failing round can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Yields a random-ish while: a few microtasks, or a turn of the event loop. */
async function jitter(rand: () => number): Promise<void> {
  if (rand() < 0.3) {
    await new Promise((resolve) => setImmediate(resolve));
    return;
  }
  const ticks = Math.floor(rand() * 5);
  for (let i = 0; i < ticks; i++) await Promise.resolve();
}

const json = <T>(value: T): T => JSON.parse(JSON.stringify(value));

/** What plugin `i` writes in a round, in the style an in-process handler would write it. */
async function write(ctx: StageContext, i: number, round: number, rand: () => number): Promise<void> {
  const name = `p${i}`;
  await jitter(rand);
  if (i % 4 < 2) {
    ctx.contextMsgs.push({ role: "system", content: `${name}#${round}` });
  } else {
    // The write-back pattern that lost 7 of 8 writes on a shared object.
    const msgs = [...ctx.contextMsgs];
    await jitter(rand);
    ctx.contextMsgs = [...msgs, { role: "system", content: `${name}#${round}` }];
  }
  await jitter(rand);
  ctx.extra[name] = round;
  const call = ctx.toolCalls.find((c) => c.id === `call_${i}`);
  if (call) call.arguments = { ...call.arguments, by: name, round };
  const result = ctx.toolResults.find((r) => r.toolCallId === `call_${i}`);
  if (result) result.content = `${name}:${round}`;
}

test("8 plugins × concurrent handlers (in-process and remote) × 1,000 rounds lose no write", {
  timeout: 60_000,
}, async () => {
  const conflicts: string[] = [];
  const host = new StageHost({
    timeoutMs: () => 5000,
    onConflict: (field, winner, loser) => void conflicts.push(`${field}: ${winner} over ${loser}`),
  });
  const rand = random(9);
  let round = 0;
  for (let i = 0; i < PLUGINS; i++) {
    // Each edits the call of a tool that is not its own.
    host.allowAnyToolCalls(`p${i}`, true);
    if (i % 2 === 0) {
      host.register(`p${i}`, "post_action", (ctx) => write(ctx, i, round, rand));
    } else {
      host.registerRemote(`p${i}`, "post_action", async (snapshot): Promise<StagePatch> => {
        const before = json(snapshot);
        const mine = json(snapshot) as StageSnapshot & { signal: AbortSignal };
        await write(mine, i, round, rand);
        return json(diffStage(before, mine));
      });
    }
  }
  let lost = 0;
  const errors: string[] = [];
  for (round = 0; round < ROUNDS; round++) {
    const ctx = newStageContext({ requestId: `r${round}`, source: "t", channel: "t", rawMessage: "go" });
    ctx.contextMsgs = [{ role: "system", content: "base" }];
    ctx.toolCalls = Array.from({ length: PLUGINS }, (_, i) => ({ id: `call_${i}`, name: "echo", arguments: { i } }));
    ctx.toolResults = ctx.toolCalls.map((c) => ({ toolCallId: c.id, name: c.name, content: "raw", status: "ok" }));
    await host.run("post_action", ctx);
    errors.push(...ctx.errors.map((e) => `${round} ${e.plugin}: ${e.message}`));
    const messages = new Set(ctx.contextMsgs.map((m) => m.content));
    for (let i = 0; i < PLUGINS; i++) {
      const name = `p${i}`;
      const writes = [
        messages.has(`${name}#${round}`),
        ctx.extra[name] === round,
        ctx.toolCalls[i]?.arguments.by === name && ctx.toolCalls[i]?.arguments.round === round,
        ctx.toolCalls[i]?.arguments.i === i,
        ctx.toolResults[i]?.content === `${name}:${round}`,
      ];
      lost += writes.filter((kept) => !kept).length;
    }
    assert.equal(ctx.contextMsgs[0]?.content, "base");
    assert.equal(ctx.contextMsgs.length, PLUGINS + 1, `round ${round}: no message twice`);
  }
  assert.deepEqual(errors, []);
  assert.equal(lost, 0, `lost ${lost} of ${ROUNDS * PLUGINS * 5} writes`);
  assert.deepEqual(conflicts, []);
});

test("two handlers setting the same scalar: the later registration wins and the agent logs both plugins", async () => {
  const warnings: string[] = [];
  const h = startAgent({ log: { ...quietLog, warn: (m) => void warnings.push(m) } });
  try {
    h.agent.stages.register("early", "before_output", async (ctx) => {
      await new Promise((resolve) => setImmediate(resolve));
      ctx.finalText = "from early";
    });
    h.agent.stages.registerRemote("later", "before_output", async (snap) => [
      { op: "set", field: "finalText", value: `${snap.finalText} (checked by later)` },
    ]);
    h.llm.enqueue({ text: "model text" });
    const reply = await h.agent.injectInputSync("cli", "cli", "hi");
    assert.equal(reply.content, "model text (checked by later)");
    const conflict = warnings.filter((w) => w.includes("both changed ctx.finalText"));
    assert.equal(conflict.length, 1, warnings.join("\n"));
    assert.match(conflict[0], /"early" and "later" .* in before_output.* "later"'s change was kept/);
  } finally {
    await h.close();
  }
});

test("8 pre_action plugins writing contextMsgs back after an await all reach the LLM, turn after turn", async () => {
  const h = startAgent();
  try {
    for (let i = 0; i < PLUGINS; i++) {
      h.agent.stages.register(`p${i}`, "pre_action", async (ctx) => {
        const msgs = [...ctx.contextMsgs];
        await new Promise((resolve) => setImmediate(resolve));
        ctx.contextMsgs = [...msgs, { role: "system", content: `note from p${i}` }];
      });
    }
    for (let turn = 0; turn < 20; turn++) {
      h.llm.enqueue({ text: "ok" });
      await h.agent.injectInputSync("cli", "cli", `turn ${turn}`);
      const notes = h.llm.requests[turn].messages.filter((m) => m.content.startsWith("note from"));
      assert.equal(notes.length, PLUGINS, `turn ${turn}: ${notes.map((m) => m.content)}`);
    }
  } finally {
    await h.close();
  }
});
