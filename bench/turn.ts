/**
 * Kernel overhead per turn: an in-process zero-latency LLM, 7 stages × 3 handlers each, two tool rounds
 * per turn (three LLM calls), an in-memory context window (memory's own cost per turn is bench/memory.ts).
 * Prints one JSON line.
 */

import { STAGES } from "@homeagent/sdk";
import { startAgent } from "../test/fixtures/kernel-harness.js";
import { percentile } from "./stats.js";

const WARMUP = 300;
const TURNS = Number(process.env.BENCH_TURNS ?? 3000);

const h = startAgent();
h.llm.record = false;
h.llm.fallback = (req) => {
  const rounds = req.messages.filter((m) => m.role === "tool").length;
  return rounds < 2 ? { toolCalls: [{ name: "lookup", arguments: { q: "weather", n: rounds } }] } : { text: "done" };
};
h.agent.tools.register(
  "bench",
  {
    name: "lookup",
    description: "look something up",
    parameters: { type: "object", properties: { q: { type: "string" }, n: { type: "integer" } }, required: ["q"] },
  },
  (args) => ({ answer: `sunny ${args.n}` }),
);
for (const stage of STAGES) {
  for (let i = 0; i < 3; i++) {
    h.agent.stages.register(`p${i}`, stage, async (ctx) => {
      ctx.extra[`${stage}_${i}`] = true;
    });
  }
}

const samples: number[] = [];
for (let i = 0; i < WARMUP + TURNS; i++) {
  const t0 = process.hrtime.bigint();
  const reply = await h.agent.injectInputSync("bench", "bench", `question ${i}`);
  const us = Number(process.hrtime.bigint() - t0) / 1000;
  if (reply.content !== "done") throw new Error(`unexpected reply: ${reply.content}`);
  if (i >= WARMUP) samples.push(us);
}
await h.close();

samples.sort((a, b) => a - b);
const pct = (p: number) => percentile(samples, p / 100);
const total = samples.reduce((a, b) => a + b, 0);
console.log(
  JSON.stringify({
    bench: "turn",
    turns: TURNS,
    p50_us: Math.round(pct(50)),
    p99_us: Math.round(pct(99)),
    turns_per_s: Math.round((TURNS / total) * 1e6),
  }),
);
