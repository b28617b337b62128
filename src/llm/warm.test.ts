/**
 * Warming a source before the first reply after start (issue 20): the provider loads its adapter and one
 * stream instance ahead of time, so the first stream loads nothing; the manager warms only the source the
 * next request goes to, and leaves a failure to that request.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import type { Logger } from "@homeagent/sdk";
import { type FakeLLM, startFakeLLM } from "../../test/fixtures/fake-llm.js";
import { warmOnlyProvider } from "../../test/fixtures/warm-provider.js";
import type { CompletionRequest, StreamChunk } from "../kernel/llm-spec.js";
import { LuaAdaptedProvider } from "./lua-provider.js";
import { ProviderManager } from "./manager.js";

const OPENAI = readFileSync(new URL("./adapters/openai.lua", import.meta.url), "utf8");
/** The bundled adapter, saying each time its chunk runs: once per instance loaded into the Lua state. */
const COUNTED = `log("info", "chunk ran")\n${OPENAI}`;
const req: CompletionRequest = { model: "", messages: [{ role: "user", content: "hi" }] };

let fake: FakeLLM;
before(async () => {
  fake = await startFakeLLM();
});
after(() => fake.close());

function counted(lines: string[]): LuaAdaptedProvider {
  const push = (msg: string) => void lines.push(msg);
  const log: Logger = { debug: push, info: push, warn: push, error: push };
  return new LuaAdaptedProvider({
    sourceName: "a",
    adapterName: "openai",
    adapterSource: COUNTED,
    baseUrl: fake.url,
    model: "m",
    log,
  });
}

async function drain(stream: AsyncIterable<StreamChunk>): Promise<string> {
  let text = "";
  for await (const chunk of stream) text += chunk.content;
  return text;
}

const loads = (lines: string[]) => lines.filter((l) => l.endsWith("chunk ran")).length;

/** The bundled adapter with its transform_request saying each time it runs; `passThrough` as declared. */
function builds(lines: string[], passThrough: boolean): LuaAdaptedProvider {
  const said = (msg: string) => void lines.push(msg);
  const source = OPENAI.replace("pass_through_text = true,", passThrough ? "pass_through_text = true," : "").replace(
    "function adapter.transform_request(body)",
    'function adapter.transform_request(body)\n  log("info", "request built")',
  );
  return new LuaAdaptedProvider({
    sourceName: "a",
    adapterName: "openai",
    adapterSource: source,
    baseUrl: fake.url,
    model: "m",
    log: { debug: said, info: said, warn: said, error: said },
  });
}

test("warming builds one request (not sent) only with an adapter whose transform_request just moves texts", async () => {
  for (const passThrough of [true, false]) {
    const lines: string[] = [];
    const provider = builds(lines, passThrough);
    try {
      const before = fake.requests.length;
      await provider.warm();
      assert.equal(lines.filter((l) => l.endsWith("request built")).length, passThrough ? 1 : 0, String(passThrough));
      assert.equal(fake.requests.length, before, "nothing sent");
    } finally {
      await provider.close();
    }
  }
});

test("a warmed provider has its adapter and a stream instance loaded: the first stream loads nothing", async () => {
  const lines: string[] = [];
  const provider = counted(lines);
  try {
    await provider.warm();
    assert.equal(loads(lines), 2, "the adapter, and the instance a stream runs on");
    fake.enqueue({ text: "hello" });
    assert.equal(await drain(provider.chatStream(req)), "hello");
    assert.equal(loads(lines), 2);
  } finally {
    await provider.close();
  }
});

test("without warming, the first stream loads its instance itself (what warm() takes out of it)", async () => {
  const lines: string[] = [];
  const provider = counted(lines);
  try {
    fake.enqueue({ text: "hello" });
    assert.equal(await drain(provider.chatStream(req)), "hello");
    assert.equal(loads(lines), 2);
  } finally {
    await provider.close();
  }
});

test("the manager warms the source the next request goes to, only that one, and swallows its failure", async () => {
  const warmed: string[] = [];
  const source = (name: string, priority: number, fails = false) => {
    const provider = warmOnlyProvider(name, async () => {
      warmed.push(name);
      if (fails) throw new Error("adapter broken");
    });
    return { name, provider, priority };
  };
  const m = new ProviderManager();
  await m.warm();
  assert.deepEqual(warmed, [], "no source, nothing to warm");
  m.setSources([source("second", 2), source("first", 1, true)]);
  await m.warm();
  assert.deepEqual(warmed, ["first"]);
  m.setPreferred("second");
  await m.warm();
  assert.deepEqual(warmed, ["first", "second"]);
});
