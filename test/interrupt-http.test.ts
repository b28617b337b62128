/**
 * An interrupt cancels a slow LLM call over real HTTP: the fake server sees the request aborted, and the
 * interrupt text reaches the next request as a system message — or, when a self-task was running, the
 * self-task ends and the interrupt is answered on its own channel.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";

import { LuaAdaptedProvider } from "../src/llm/lua-provider.js";
import { ProviderManager } from "../src/llm/manager.js";
import { type FakeLLM, startFakeLLM } from "./fixtures/fake-llm.js";
import { type Harness, startAgent } from "./fixtures/kernel-harness.js";
import { waitFor } from "./fixtures/wait.js";

let fake: FakeLLM;
let h: Harness;
before(async () => {
  fake = await startFakeLLM();
  const llm = new ProviderManager({ retryDelayMs: 20 });
  const provider = new LuaAdaptedProvider({
    sourceName: "fake",
    adapterName: "openai",
    adapterSource: readFileSync(new URL("../src/llm/adapters/openai.lua", import.meta.url), "utf8"),
    baseUrl: fake.url,
    apiKey: "",
    model: "fake-model",
  });
  llm.setSources([{ name: "fake", provider, priority: 0 }]);
  h = startAgent({ llm });
});
after(async () => {
  await h.close();
  await fake.close();
});

test("an interrupt aborts the HTTP request in flight and is inserted before the next LLM call", async () => {
  fake.enqueue({ text: "a very long essay", delayMs: 10_000 }, { text: "ok, the kettle first" });
  const said: Array<Record<string, unknown>> = [];
  const off = h.agent.bus.subscribe("system", (e) => void (e.payload.kind === "interrupt" && said.push(e.payload)));
  const started = Date.now();
  const pending = h.agent.injectInputSync("cli", "cli", "write an essay");
  await fake.waitForRequests(1, 5000);
  h.agent.injectInterrupt("timer", "timer", "the kettle is boiling");
  const reply = await pending;
  off();
  // The news names the turn it was said in, and what was said: the transcript keeps it there.
  assert.deepEqual(said, [
    { kind: "interrupt", source: "timer", channel: "timer", requestId: reply.requestId, text: "the kettle is boiling" },
  ]);
  assert.equal(reply.content, "ok, the kettle first");
  assert.ok(Date.now() - started < 5000, "did not wait for the slow response");
  await fake.waitForRequests(2, 1000);
  assert.equal(fake.requests[0].aborted, true, "the first HTTP request was cancelled");
  const messages = (fake.requests[1].body as { messages: Array<{ role: string; content: string }> }).messages;
  assert.deepEqual(messages.at(-1), { role: "system", content: "[打断消息][来源:timer] the kettle is boiling" });
  assert.ok(messages.some((m) => m.role === "user" && m.content === "write an essay"));
});

test("an interrupt during a self-task aborts its HTTP request and is answered on the interrupter's channel", async () => {
  const timer: string[] = [];
  h.agent.outputs.register("timer", "timer", ["text"], "timer", (m) => void timer.push(m.payload));
  const before = fake.requests.length;
  fake.enqueue({ text: "consolidated", delayMs: 10_000 }, { text: "turning the kettle off" });
  const self = h.agent.injectSelf("merge these memories");
  await fake.waitForRequests(before + 1, 5000);
  h.agent.injectInterrupt("timer", "timer", "the kettle is boiling");
  assert.match((await self).error ?? "", /interrupted by user input/);
  await waitFor(() => timer.length === 1, "the reply on the timer channel");
  assert.deepEqual(timer, ["turning the kettle off"]);
  await waitFor(() => fake.requests[before].aborted, "the self-task's HTTP request to be cancelled");
  assert.equal(fake.requests.length, before + 2, "the self-task was not asked again");
  const messages = (fake.requests[before + 1].body as { messages: Array<{ role: string; content: string }> }).messages;
  assert.deepEqual(messages.at(-1), { role: "user", content: "the kettle is boiling" });
});
