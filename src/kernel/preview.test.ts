/**
 * agent.previewContext(query): what a user message on the web UI would send the model now, section by
 * section with its text — the same as the next real turn composes, and without a trace of its own.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentEvent } from "@homeagent/sdk";
import { startAgent } from "../../test/fixtures/kernel-harness.js";
import { StubMemory } from "../../test/fixtures/memory-stub.js";
import { startMemoryAgent } from "../../test/fixtures/memory-system.js";
import { HomeAgentError } from "../util/errors.js";
import { SECTION_NAMES } from "./sections.js";

test("the preview has the sections, budgets and tokens the next real turn on webui sends, with their text", async () => {
  const memory = new StubMemory();
  const h = startAgent({ memory });
  try {
    h.llm.window = 8192;
    h.agent.tools.register("t", { name: "lookup", description: "look up", parameters: { type: "object" } }, () => "x");
    h.settings.personalPrompt = () => "The user likes short answers.";
    await h.agent.injectInputSync("cli", "cli", "an earlier question");

    const preview = await h.agent.previewContext("what did I ask before?");
    await h.agent.injectInputSync("webui", "webui", "what did I ask before?");
    const real = h.agent.lastContext();
    assert.ok(real);

    assert.equal(preview.query, "what did I ask before?");
    assert.equal(preview.contextWindow, real.contextWindow);
    assert.equal(preview.budget, real.budget);
    assert.deepEqual(
      preview.sections.map(({ name, tokens, budget }) => ({ name, tokens, budget })),
      real.sections,
    );
    assert.deepEqual(
      preview.sections.map((s) => s.name),
      [...SECTION_NAMES, "input"],
    );

    const sent = h.llm.requests.at(-1);
    assert.ok(sent);
    const text = (name: string) => preview.sections.find((s) => s.name === name)?.text ?? "";
    const system = sent.messages[0].content;
    assert.ok(system.startsWith(text("persona")) && text("persona").includes("short answers"));
    assert.match(text("output_rules"), /^Current time: .*\n.*through the input's channel "webui"/);
    assert.equal(text("tools"), JSON.stringify(sent.tools));
    for (const name of ["memory_index", "related_memory", "timeline"]) {
      assert.ok(text(name), `${name} has text`);
      assert.ok(
        sent.messages.some((m) => m.content === text(name)),
        `${name}: the preview's text is a message of the real request`,
      );
    }
    assert.match(text("timeline"), /cli: an earlier question → you: ok$/m);
    assert.equal(text("plugin_context"), "");
    assert.equal(text("input"), "what did I ask before?");
    assert.equal(sent.messages.at(-1)?.content, "what did I ask before?");
    const [, previewBuild, realBuild] = memory.builds;
    assert.deepEqual(previewBuild.budgets, realBuild.budgets, "memory was asked with the budgets of the real turn");
    assert.equal(previewBuild.q.text, realBuild.q.text);
  } finally {
    await h.close();
  }
});

test("a preview changes nothing: no LLM call, no events, no stage, same window, lastContext and memory", async () => {
  const memory = new StubMemory();
  const h = startAgent({ memory });
  try {
    const stages: string[] = [];
    for (const stage of ["on_input", "pre_action", "before_output", "after_output"] as const) {
      h.agent.stages.register("watcher", stage, () => void stages.push(stage));
    }
    await h.agent.injectInputSync("cli", "cli", "hello");
    const events: AgentEvent[] = [];
    h.agent.bus.subscribe("*", (e) => void events.push(e));
    const before = {
      window: await h.context.window(),
      prunes: h.context.prunes.length,
      last: h.agent.lastContext(),
      requests: h.llm.requests.length,
      stages: stages.length,
      done: memory.done.length,
      recalled: memory.recalled.length,
      status: h.agent.status(),
    };

    const preview = await h.agent.previewContext("hello again");
    assert.ok(preview.sections.length > 0);

    assert.deepEqual(events, []);
    assert.deepEqual(await h.context.window(), before.window);
    assert.equal(h.context.prunes.length, before.prunes);
    assert.equal(h.agent.lastContext(), before.last);
    assert.equal(h.llm.requests.length, before.requests);
    assert.equal(stages.length, before.stages);
    assert.equal(memory.done.length, before.done);
    assert.equal(memory.recalled.length, before.recalled);
    assert.deepEqual(h.agent.status(), before.status);
    assert.equal(memory.builds.at(-1)?.q.text, "hello again", "memory was asked for the preview's query");
  } finally {
    await h.close();
  }
});

test("a preview leaves the real memory store as it was", async () => {
  const h = startMemoryAgent({ contextSize: 3 });
  try {
    h.llm.fallback = () => ({ text: "noted" });
    for (const said of ["My sister Mia lives in Lisbon.", "filler one", "filler two", "filler three"]) {
      await h.say(said);
    }
    const snapshot = () => ({
      window: h.context.size(),
      log: h.memory.textlog.stats(),
      pending: h.memory.pipeline.pending(),
      docs: h.db.prepare("SELECT id, access_count, last_access, updated_at FROM documents ORDER BY id").all(),
      items: h.db.prepare("SELECT COUNT(*) AS n FROM search_items").get(),
    });
    const before = snapshot();
    const preview = await h.agent.previewContext("where does my sister Mia live?");
    assert.match(preview.sections.find((s) => s.name === "related_memory")?.text ?? "", /Lisbon/);
    assert.deepEqual(snapshot(), before);
  } finally {
    await h.close();
  }
});

test("a query over 64 KiB, or without text, is refused with invalid_argument", async () => {
  const h = startAgent();
  try {
    const invalid = (pattern: RegExp) => (err: unknown) =>
      err instanceof HomeAgentError && err.code === "invalid_argument" && pattern.test(err.message);
    await assert.rejects(h.agent.previewContext("é".repeat(32 * 1024 + 1)), invalid(/65538 bytes, .* at most 65536/));
    await assert.rejects(h.agent.previewContext("   "), invalid(/needs the text of a message/));
    const fits = await h.agent.previewContext("a".repeat(64 * 1024));
    assert.equal(fits.sections.at(-1)?.name, "input");
  } finally {
    await h.close();
  }
});
