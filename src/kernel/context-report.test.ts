/**
 * `agent.lastContext()`: what the last composed request held, section by section, so `/context` and the
 * web UI can show where the tokens went. A section over its share is cut and says so once.
 */
import assert from "node:assert/strict";
import { afterEach, beforeEach, test } from "node:test";
import { type Harness, startAgent } from "../../test/fixtures/kernel-harness.js";
import { StubMemory } from "../../test/fixtures/memory-stub.js";
import { DEFAULT_CONTEXT_WINDOW, estimateTokens, requestBudget, totalTokens } from "./budget.js";
import { SECTION_NAMES } from "./sections.js";

let h: Harness;
const warnings: string[] = [];
beforeEach(() => {
  warnings.length = 0;
  h = startAgent({
    memory: new StubMemory(),
    log: { debug() {}, info() {}, warn: (m) => void warnings.push(m), error() {} },
  });
});
afterEach(() => h.close());

test("lastContext reports every section of the last request, within the budget and matching what was sent", async () => {
  assert.equal(h.agent.lastContext(), null);
  h.agent.tools.register("t", { name: "lookup", description: "look up", parameters: { type: "object" } }, () => "x");
  await h.agent.injectInputSync("cli", "cli", "first");
  h.llm.window = 8192;
  const reply = await h.agent.injectInputSync("cli", "cli", "second");
  const r = h.agent.lastContext();
  assert.ok(r);
  assert.equal(r.requestId, reply.requestId);
  assert.equal(r.contextWindow, 8192);
  assert.equal(r.budget, requestBudget(8192));
  assert.deepEqual(
    r.sections.map((s) => s.name),
    [...SECTION_NAMES, "input"],
  );
  for (const s of r.sections) assert.ok(s.tokens <= s.budget, `${s.name}: ${s.tokens} > ${s.budget}`);
  const used = r.sections.reduce((sum, s) => sum + s.tokens, 0);
  assert.ok(used <= r.budget, `${used} > ${r.budget}`);
  const req = h.llm.requests.at(-1);
  assert.ok(req);
  const sent = totalTokens(req.messages) + estimateTokens(JSON.stringify(req.tools));
  assert.ok(sent <= used, `sent ${sent} tokens, the report counts ${used}`);
  assert.ok(used - sent <= 12, `the report overestimates by ${used - sent}`);
  assert.equal(r.toolsOffered, req.tools?.length);
  assert.ok((r.sections.find((s) => s.name === "timeline")?.tokens ?? 0) > 0);
  assert.ok((r.sections.find((s) => s.name === "related_memory")?.tokens ?? 0) > 0);
});

test("an unknown window is reported as the default the budget assumed", async () => {
  await h.agent.injectInputSync("cli", "cli", "hi");
  assert.equal(h.agent.lastContext()?.contextWindow, DEFAULT_CONTEXT_WINDOW);
});

test("a persona over its share is cut to fit, and the cut is reported once", async () => {
  h.llm.window = 4096;
  h.settings.personalPrompt = () => "规矩".repeat(2000);
  await h.agent.injectInputSync("cli", "cli", "one");
  await h.agent.injectInputSync("cli", "cli", "two");
  const r = h.agent.lastContext();
  const persona = r?.sections.find((s) => s.name === "persona");
  assert.ok(persona && persona.tokens <= persona.budget && persona.budget < 4000);
  assert.match(h.llm.requests[1].messages[0].content, / …\[cut\]/);
  assert.equal(warnings.filter((w) => /the persona section needs \d+ tokens/.test(w)).length, 1);
});
