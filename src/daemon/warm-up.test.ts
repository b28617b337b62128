/** What the daemon readies after "ready" (warm-up.ts): when CJK text is expected, and only with a source. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { warmOnlyProvider } from "../../test/fixtures/warm-provider.js";
import { hasCjk } from "../embedding/text.js";
import type { ContextEvent } from "../kernel/types.js";
import { ProviderManager } from "../llm/manager.js";
import { expectsCjk, warmUp } from "./warm-up.js";

const said = (input: string, response = ""): ContextEvent => ({
  id: 1,
  ts: 0,
  kind: "user",
  source: "cli",
  channel: "cli",
  input,
  response,
  toolsUsed: [],
  toolResults: [],
  noMemory: false,
});

test("CJK is expected from a Chinese, Japanese or Korean locale, or from the conversation so far", () => {
  assert.equal(expectsCjk({ LANG: "zh_CN.UTF-8" }, []), true);
  assert.equal(expectsCjk({ LANG: "ja_JP.UTF-8" }, []), true);
  assert.equal(expectsCjk({ LC_ALL: "ko_KR.UTF-8", LANG: "en_US.UTF-8" }, []), true);
  assert.equal(expectsCjk({ LC_ALL: "en_US.UTF-8", LANG: "zh_CN.UTF-8" }, []), false, "LC_ALL wins");
  assert.equal(expectsCjk({ LC_MESSAGES: "zh_TW", LANG: "C.UTF-8" }, []), true);
  assert.equal(expectsCjk({ LANG: "C.UTF-8" }, []), false);
  assert.equal(expectsCjk({}, [said("what's the weather?", "Sunny.")]), false);
  assert.equal(expectsCjk({ LANG: "C.UTF-8" }, [said("hi", "你好！")]), true);
  assert.equal(expectsCjk({}, [said("明天天气怎么样")]), true);
});

test("without an LLM source nothing is warmed; with sources, the first one is, turns are rehearsed after it, and warmUp waits for both", async () => {
  const warmed: string[] = [];
  const provider = warmOnlyProvider("a", async () => {
    await new Promise((resolve) => setImmediate(resolve));
    warmed.push("a");
  });
  const llm = new ProviderManager();
  const warned: string[] = [];
  const log = { debug() {}, info() {}, warn: (m: string) => warned.push(m), error() {} };
  const previews: string[] = [];
  const preview = async (q: string) => {
    previews.push(q);
    if (previews.length > 1) throw new Error("the window is gone");
  };
  const rehearsals: Array<{ cjk: boolean; afterWarm: boolean }> = [];
  const rehearse = async (cjk: boolean) => {
    rehearsals.push({ cjk, afterWarm: warmed.includes("a") });
    if (rehearsals.length > 1) throw new Error("no room for scratch files");
  };
  const opts = {
    llm,
    recent: [],
    preview,
    rehearse,
    rehearseAfterMs: 0,
    signal: new AbortController().signal,
    log,
  };
  await warmUp({ ...opts, env: {} });
  assert.deepEqual(warmed, []);
  assert.deepEqual(previews, [], "no source: no reply can come, nothing is composed");
  assert.deepEqual(rehearsals, [], "nor rehearsed");
  llm.setSources([{ name: "a", provider, priority: 0 }]);
  await warmUp({ ...opts, env: {} });
  assert.deepEqual(warmed, ["a"]);
  assert.equal(previews.length, 1, "one request composed, in English");
  assert.ok(!hasCjk(previews[0]));
  assert.deepEqual(rehearsals, [{ cjk: false, afterWarm: true }]);
  await warmUp({ ...opts, env: { LANG: "zh_CN.UTF-8" } });
  assert.deepEqual(rehearsals[1], { cjk: true, afterWarm: true });
  assert.match(warned.join("\n"), /composing a first request: the window is gone/, "a failure is only logged");
  assert.match(warned.join("\n"), /rehearsing a turn: no room for scratch files/);
  const stopping = new AbortController();
  stopping.abort();
  await warmUp({ ...opts, env: {}, rehearseAfterMs: 60_000, signal: stopping.signal });
  assert.equal(rehearsals.length, 2, "stopping: no rehearsal, and no wait for it");
});
