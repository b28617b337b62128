/**
 * What running adapters in a worker thread costs per call: the bundled OpenAI adapter's transform_request
 * and transform_response on a typical request (a system prompt, ten turns, two tools) and reply, each a
 * round trip to the Lua worker. Prints one JSON line with the median and p99 of one transform_request +
 * transform_response pair, in ms.
 */

import { readFileSync } from "node:fs";
import type { CompletionRequest } from "../src/kernel/llm-spec.js";
import { bundledAdapterLibraries } from "../src/llm/adapters.js";
import { LuaVM } from "../src/lua/vm.js";
import { percentile } from "./stats.js";

const WARMUP = 200;
const PAIRS = Number(process.env.BENCH_PAIRS ?? 2000);

const source = readFileSync(new URL("../src/llm/adapters/openai.lua", import.meta.url), "utf8");
const vm = await LuaVM.create({ kind: "adapter", libraries: bundledAdapterLibraries() });
await vm.loadScript("openai", source, { globals: { source: { name: "bench", base_url: "http://x", model: "m" } } });

const request: CompletionRequest = {
  model: "m",
  messages: [
    { role: "system", content: "You are a helpful assistant. ".repeat(20) },
    ...Array.from({ length: 10 }, (_, i) => ({
      role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
      content: `message ${i}: ${"some words of conversation ".repeat(8)}`,
    })),
  ],
  tools: ["lookup", "remember"].map((name) => ({
    type: "function" as const,
    function: {
      name,
      description: `the ${name} tool`,
      parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
    },
  })),
};
const reply = JSON.stringify({
  choices: [
    { message: { role: "assistant", content: "A reply of a few sentences. ".repeat(6) }, finish_reason: "stop" },
  ],
  usage: { prompt_tokens: 900, completion_tokens: 60, total_tokens: 960 },
});
const wire = JSON.stringify(request);

const times: number[] = [];
for (let i = 0; i < WARMUP + PAIRS; i++) {
  const started = performance.now();
  await vm.call("openai", "transform_request", [wire]);
  await vm.call("openai", "transform_response", [reply]);
  if (i >= WARMUP) times.push(performance.now() - started);
}
await vm.close();

// A bare call that does nothing, to tell the thread hop apart from the adapter's own work.
const bare = await LuaVM.create();
await bare.loadScript("noop", "return { noop = function(s) return s end }");
const hops: number[] = [];
for (let i = 0; i < WARMUP + PAIRS; i++) {
  const started = performance.now();
  await bare.call("noop", "noop", ["x"]);
  if (i >= WARMUP) hops.push(performance.now() - started);
}
await bare.close();

const quantile = (xs: number[], q: number) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    q,
  );
const round = (ms: number) => Math.round(ms * 1000) / 1000;
console.log(
  JSON.stringify({
    bench: "lua-call",
    pairs: PAIRS,
    transform_pair_p50_ms: round(quantile(times, 0.5)),
    transform_pair_p99_ms: round(quantile(times, 0.99)),
    bare_call_p50_ms: round(quantile(hops, 0.5)),
    bare_call_p99_ms: round(quantile(hops, 0.99)),
  }),
);
