/**
 * Asking a turn again, or editing it (InjectOptions.replaces): the earlier turn leaves the window as the new
 * one comes in, so the next request holds only the chosen version; only the channel's last turn in the window
 * can be replaced (found there, so a restart does not forget it), memory hears which turn went, and an
 * earlier version can be chosen back (turn-versions.ts).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startAgent } from "../../test/fixtures/kernel-harness.js";
import type { ContextEvent, MemoryContext } from "./types.js";

function lastRequestText(requests: Array<{ messages: Array<{ content: unknown }> }>): string {
  return JSON.stringify(requests.at(-1)?.messages ?? []);
}

test("a reply asked again and a message edited replace the turn: the next request sees only the new version", async (t) => {
  const superseded: ContextEvent[] = [];
  const memory: Partial<MemoryContext> = {
    prepare: async (text) => ({ text }) as never,
    build: async () => ({ index: "", related: "" }),
    markRecalled: () => {},
    turnDone: async () => {},
    superseded: async (e) => {
      superseded.push(e);
    },
  };
  const h = startAgent({ memory: memory as MemoryContext });
  t.after(() => h.close());
  h.llm.enqueue({ text: "two plus two is five" });
  const first = await h.agent.injectInputSync("webui", "webui", "what is two plus two?");
  h.llm.enqueue({ text: "two plus two is four" });
  const again = await h.agent.injectInputSync("webui", "webui", "what is two plus two?", { replaces: first.requestId });
  assert.equal(again.content, "two plus two is four");
  assert.doesNotMatch(lastRequestText(h.llm.requests), /five/, "the request asking again holds no old reply");
  assert.deepEqual(
    superseded.map((e) => e.response),
    ["two plus two is five"],
  );
  h.llm.enqueue({ text: "fine" });
  const edited = await h.agent.injectInputSync("webui", "webui", "what is three plus three?", {
    replaces: again.requestId,
  });
  assert.equal(edited.content, "fine");
  const window = await h.context.window();
  assert.deepEqual(
    window.map((e) => [e.input, e.response]),
    [["what is three plus three?", "fine"]],
  );
  h.llm.enqueue({ text: "next" });
  await h.agent.injectInputSync("webui", "webui", "and now?");
  const sent = lastRequestText(h.llm.requests);
  assert.match(sent, /three plus three/);
  assert.doesNotMatch(sent, /two plus two/, "neither earlier version");
});

test("only the channel's last turn can be replaced: refused before it is queued, saying so", async (t) => {
  const h = startAgent();
  t.after(() => h.close());
  h.llm.enqueue({ text: "a" }, { text: "b" });
  const one = await h.agent.injectInputSync("webui", "webui", "one");
  await h.agent.injectInputSync("webui", "webui", "two");
  const raw: unknown[] = [];
  h.agent.bus.subscribe("raw_input", (e) => void raw.push(e.payload));
  assert.throws(
    () => h.agent.injectInput("webui", "webui", "one again", { replaces: one.requestId }),
    (err: { code?: string; message: string }) =>
      err.code === "invalid_argument" && /only the last turn of channel "webui"/.test(err.message),
  );
  await assert.rejects(
    h.agent.injectInputSync("cli", "cli", "x", { replaces: one.requestId }),
    /only the last turn of channel "cli"/,
  );
  assert.equal(raw.length, 0, "a refused input is not a turn: nothing recorded it");
  assert.equal((await h.context.window()).length, 2, "nothing was replaced");
});

test("an earlier version chosen back is the one in the window, exactly as it was: the next request holds only it", async (t) => {
  const superseded: ContextEvent[] = [];
  const restored: ContextEvent[] = [];
  const memory: Partial<MemoryContext> = {
    prepare: async (text) => ({ text }) as never,
    build: async () => ({ index: "", related: "" }),
    markRecalled: () => {},
    turnDone: async () => {},
    superseded: async (e) => void superseded.push(e),
    restored: async (e) => void restored.push(e),
  };
  const h = startAgent({ memory: memory as MemoryContext });
  t.after(() => h.close());
  h.llm.enqueue({ text: "Paris, I think" });
  const first = await h.agent.injectInputSync("webui", "webui", "capital of France?", { noMemory: true });
  const before = (await h.context.window())[0];
  h.llm.enqueue({ text: "Lyon" });
  const again = await h.agent.injectInputSync("webui", "webui", "capital of France?", { replaces: first.requestId });
  await h.agent.chooseVersion("webui", first.requestId);
  const [chosen, ...rest] = await h.context.window();
  assert.deepEqual(rest, []);
  assert.deepEqual({ ...chosen, id: 0 }, { ...before, id: 0 }, "its time, text and NoMemory flag as they were");
  assert.deepEqual(
    superseded.map((e) => e.response),
    ["Paris, I think", "Lyon"],
  );
  assert.deepEqual(
    restored.map((e) => e.requestId),
    [first.requestId],
  );
  // The one in the window already: nothing changes. The later version can be chosen back in turn.
  await h.agent.chooseVersion("webui", first.requestId);
  assert.equal(superseded.length, 2);
  await h.agent.chooseVersion("webui", again.requestId);
  await h.agent.chooseVersion("webui", first.requestId);
  h.llm.enqueue({ text: "ok" });
  await h.agent.injectInputSync("webui", "webui", "thanks");
  const sent = lastRequestText(h.llm.requests);
  assert.match(sent, /Paris, I think/);
  assert.doesNotMatch(sent, /Lyon/);

  // Once another turn came, the versions are history: choosing one is refused, and so is another channel's.
  await assert.rejects(h.agent.chooseVersion("webui", again.requestId), /not a version of the last turn/);
  await assert.rejects(h.agent.chooseVersion("cli", first.requestId), /not a version of the last turn/);
  assert.equal((await h.context.window()).length, 2);
});

test("the turn to replace is found in the window, not in the run: a new agent on the same window replaces it", async (t) => {
  const h = startAgent();
  t.after(() => h.close());
  h.llm.enqueue({ text: "first" });
  const one = await h.agent.injectInputSync("webui", "webui", "one");
  const restarted = startAgent({ context: h.context });
  t.after(() => restarted.close());
  restarted.llm.enqueue({ text: "second" });
  const again = await restarted.agent.injectInputSync("webui", "webui", "one", { replaces: one.requestId });
  assert.equal(again.error, undefined);
  assert.deepEqual(
    (await restarted.context.window()).map((e) => e.response),
    ["second"],
  );
});
