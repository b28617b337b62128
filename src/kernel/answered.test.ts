/** A turn is counted once, for the LLM source of its last reply, and only when it was answered. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startAgent } from "../../test/fixtures/kernel-harness.js";
import { ScriptedLLM } from "../../test/fixtures/scripted-llm.js";
import type { LLMClient } from "./types.js";

/** The scripted LLM, with each reply marked as coming from the next name in `sources` (as ProviderManager does). */
function namedSources(llm: ScriptedLLM, sources: string[]): LLMClient {
  return {
    hasSources: () => true,
    contextWindow: () => 0,
    stream: async (req, opts) => {
      const reply = await llm.stream(req, opts);
      const source = sources.shift();
      return source === undefined ? reply : { ...reply, source };
    },
  };
}

test("a turn with tool calls counts once, for the source of its final reply", async (t) => {
  const answered: string[] = [];
  const llm = new ScriptedLLM();
  const h = startAgent({ llm: namedSources(llm, ["a", "b"]), onAnswered: (s) => answered.push(s) });
  t.after(() => h.close());
  h.agent.tools.register("demo", { name: "look", description: "", parameters: { type: "object" } }, () => "x");
  llm.enqueue({ toolCalls: [{ name: "look" }] }, { text: "done" });
  const reply = await h.agent.injectInputSync("test", "test", "look it up");
  assert.equal(reply.content, "done");
  assert.deepEqual(answered, ["b"]);
});

test("a failed turn, or a reply that names no source, is not counted", async (t) => {
  const answered: string[] = [];
  const llm = new ScriptedLLM();
  const h = startAgent({ llm: namedSources(llm, []), onAnswered: (s) => answered.push(s) });
  t.after(() => h.close());
  llm.enqueue({ error: new Error("provider down") }, { text: "nameless" });
  assert.match((await h.agent.injectInputSync("test", "test", "one")).error ?? "", /provider down/);
  assert.equal((await h.agent.injectInputSync("test", "test", "two")).content, "nameless");
  assert.deepEqual(answered, []);
});
