/**
 * InjectOptions.transient: a client that keeps its own history (the OpenAI endpoint) talks to the agent
 * without leaving anything behind — no prune, no event in the window, nothing in the text log or the
 * distiller — while its prompt still has the memory sections.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { startAgent } from "../../test/fixtures/kernel-harness.js";
import { StubMemory } from "../../test/fixtures/memory-stub.js";
import { startMemoryAgent } from "../../test/fixtures/memory-system.js";

test("a transient turn changes nothing in the window or memory, and still gets the memory sections", async () => {
  const memory = new StubMemory();
  const h = startAgent({ memory });
  try {
    await h.agent.injectInputSync("cli", "cli", "remembered turn");
    const window = await h.context.window();
    const prunes = h.context.prunes.length;
    h.llm.enqueue({ text: "transient reply" }, { error: new Error("HTTP 500") });

    const reply = await h.agent.injectInputSync("openai", "webui", "just between us", {
      transient: true,
      history: [{ role: "user", content: "earlier, client side" }],
    });
    assert.equal(reply.content, "transient reply");
    const failed = await h.agent.injectInputSync("openai", "webui", "this one fails", { transient: true });
    assert.match(failed.error ?? "", /HTTP 500/);

    assert.deepEqual(await h.context.window(), window, "no event appended, answered or marked unanswered");
    assert.equal(h.context.prunes.length, prunes, "no prune");
    assert.deepEqual(
      memory.done.map((d) => d.event?.input ?? null),
      ["remembered turn", null, null],
      "a transient turn hands memory no event, only the end of its per-request state",
    );
    assert.equal(memory.builds.length, 3, "the memory sections are built for every turn");
    const sent = h.llm.requests[1].messages;
    assert.ok(sent.some((m) => m.content.startsWith("【记忆索引】")));
    assert.ok(sent.some((m) => m.content.startsWith("【相关记忆】")));
    assert.deepEqual(
      sent.filter((m) => m.role !== "system").map((m) => m.content),
      ["earlier, client side", "just between us"],
    );
  } finally {
    await h.close();
  }
});

test("with the real memory system, a transient turn leaves the window, the text log and the distiller as they were", async () => {
  const h = startMemoryAgent({ contextSize: 3 });
  try {
    h.llm.fallback = () => ({ text: "noted" });
    for (const said of ["I work at Vestas.", "My sister Mia lives in Lisbon.", "filler one", "filler two"]) {
      await h.say(said);
    }
    const window = await h.context.window();
    const log = h.memory.textlog.stats();
    const pending = h.memory.pipeline.pending();
    const docs = h.db.prepare("SELECT COUNT(*) AS n FROM documents").get();

    h.llm.enqueue({ text: "She lives in Lisbon." });
    const reply = await h.agent.injectInputSync(
      "openai",
      "webui",
      "where does my sister Mia live? (asked by zebracorn)",
      {
        transient: true,
      },
    );
    assert.equal(reply.content, "She lives in Lisbon.");

    assert.deepEqual(await h.context.window(), window);
    assert.equal(h.context.size(), window.length);
    assert.deepEqual(h.memory.textlog.stats(), log);
    assert.equal((await h.memory.textlog.search("zebracorn")).total, 0);
    assert.equal(h.memory.pipeline.pending(), pending);
    assert.deepEqual(h.db.prepare("SELECT COUNT(*) AS n FROM documents").get(), docs);
    const related = h.llm.requests.at(-1)?.messages.find((m) => m.content.includes("Lisbon"));
    assert.ok(related, "the archived turn about Mia reaches the prompt through related memory");
  } finally {
    await h.close();
  }
});
