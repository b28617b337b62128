/** ProviderManager names the source that answered and reports each successful call's usage, nothing else. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { type FakeLLM, startFakeLLM } from "../../test/fixtures/fake-llm.js";
import type { UnifiedUsage } from "../kernel/llm-spec.js";
import { LuaAdaptedProvider } from "./lua-provider.js";
import { ProviderManager } from "./manager.js";
import type { SourceEntry } from "./source-state.js";

const OPENAI = readFileSync(new URL("./adapters/openai.lua", import.meta.url), "utf8");
let a: FakeLLM;
let b: FakeLLM;

before(async () => {
  a = await startFakeLLM();
  b = await startFakeLLM();
});
after(() => Promise.all([a.close(), b.close()]));

function source(name: string, fake: FakeLLM, priority: number): SourceEntry {
  const provider = new LuaAdaptedProvider({
    sourceName: name,
    adapterName: "openai",
    adapterSource: OPENAI,
    baseUrl: fake.url,
    apiKey: `key-${name}`,
    model: `model-${name}`,
  });
  return { name, provider, priority };
}

test("the answering source is named and its usage reported; a failed call reports nothing", async () => {
  const calls: Array<[string, Pick<UnifiedUsage, "prompt" | "completion"> | null]> = [];
  const m = new ProviderManager({
    onCall: (name, usage) => calls.push([name, usage && { prompt: usage.prompt, completion: usage.completion }]),
  });
  m.setSources([source("a", a, 0), source("b", b, 1)]);
  a.enqueue({ status: 401 });
  b.enqueue({ text: "from b", usage: { prompt_tokens: 9, completion_tokens: 4 } });
  const streamed = await m.stream({ model: "", messages: [{ role: "user", content: "hi" }], stream: true });
  assert.equal(streamed.content, "from b");
  assert.equal(streamed.source, "b");
  assert.deepEqual(calls, [["b", { prompt: 9, completion: 4 }]]);

  b.enqueue({ text: "tested", usage: { prompt_tokens: 3, completion_tokens: 1 } });
  const tested = await m.callSource("b", undefined, (p) =>
    p.chat({ model: "", messages: [{ role: "user", content: "Reply with OK." }] }),
  );
  assert.equal(tested.source, "b");
  assert.deepEqual(calls.at(-1), ["b", { prompt: 3, completion: 1 }]);
  m.close();
});
