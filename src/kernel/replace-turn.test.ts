/**
 * Asking a turn again, or editing it (InjectOptions.replaces): the earlier turn leaves the window as the new
 * one comes in, so the next request holds only the chosen version; only the channel's last turn of this run
 * can be replaced, and memory hears which turn went.
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

test("only the channel's last turn can be replaced, saying so", async (t) => {
  const h = startAgent();
  t.after(() => h.close());
  h.llm.enqueue({ text: "a" }, { text: "b" });
  const one = await h.agent.injectInputSync("webui", "webui", "one");
  await h.agent.injectInputSync("webui", "webui", "two");
  const refused = await h.agent.injectInputSync("webui", "webui", "one again", { replaces: one.requestId });
  assert.match(refused.error ?? "", /only the last turn of channel "webui"/);
  const elsewhere = await h.agent.injectInputSync("cli", "cli", "x", { replaces: one.requestId });
  assert.match(elsewhere.error ?? "", /only the last turn of channel "cli"/);
  assert.equal((await h.context.window()).length, 2, "nothing was replaced");
});
