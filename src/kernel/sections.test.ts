/**
 * Sharing one request's budget among the prompt's sections: floors first, then shares by water-filling,
 * and what a section does not need flows to the others.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { allocate, floorOf, OPEN_ENDED, SECTION_NAMES, SECTIONS, type SectionTokens } from "./sections.js";

const needs = (over: Partial<SectionTokens>): SectionTokens => ({
  ...(Object.fromEntries(SECTION_NAMES.map((n) => [n, 0])) as SectionTokens),
  ...over,
});
const sum = (a: SectionTokens) => Object.values(a).reduce((x, y) => x + y, 0);

test("the table's shares add up to 1 and its floors always fit", () => {
  assert.equal(Math.round(SECTIONS.reduce((s, x) => s + x.share, 0) * 1000), 1000);
  assert.ok(SECTIONS.reduce((s, x) => s + x.floor, 0) < 1);
});

test("everything that fits is given in full", () => {
  const a = allocate(10_000, needs({ persona: 200, output_rules: 50, tools: 3000, timeline: 1200 }));
  assert.deepEqual(a, needs({ persona: 200, output_rules: 50, tools: 3000, timeline: 1200 }));
});

test("over budget, every section keeps at least its floor and the total stays within the budget", () => {
  const budget = 6000;
  const a = allocate(
    budget,
    needs({
      persona: 300,
      output_rules: 80,
      tools: 9000,
      memory_index: OPEN_ENDED,
      related_memory: OPEN_ENDED,
      timeline: 5000,
      plugin_context: 2000,
    }),
  );
  assert.ok(sum(a) <= budget, `allocated ${sum(a)}`);
  assert.ok(sum(a) >= budget - SECTIONS.length, "nothing is wasted beyond rounding");
  for (const name of ["tools", "memory_index", "related_memory", "timeline", "plugin_context"] as const) {
    assert.ok(a[name] >= floorOf(name, budget), `${name} got ${a[name]} < floor ${floorOf(name, budget)}`);
  }
  assert.equal(a.persona, 300);
  assert.equal(a.output_rules, 80);
  // Beyond the floors the shares decide: tools and related memory (0.20 each) alike, the timeline (0.25) more.
  assert.ok(Math.abs(a.tools - a.related_memory) <= SECTIONS.length, `tools ${a.tools}, related ${a.related_memory}`);
  assert.ok(a.timeline > a.tools, `timeline ${a.timeline}, tools ${a.tools}`);
});

test("what a section does not need flows to the others", () => {
  const budget = 8000;
  const tight = allocate(budget, needs({ tools: 9000, related_memory: OPEN_ENDED, timeline: 9000 }));
  const idle = allocate(budget, needs({ tools: 9000, related_memory: OPEN_ENDED, timeline: 100 }));
  assert.equal(idle.timeline, 100);
  assert.ok(idle.tools > tight.tools && idle.related_memory > tight.related_memory);
  assert.ok(sum(idle) <= budget && sum(idle) >= budget - SECTIONS.length);
});

test("floors go in priority order when they cannot all be met", () => {
  const specs = [
    { name: "timeline" as const, priority: 2, share: 1, floor: 0.6 },
    { name: "tools" as const, priority: 1, share: 1, floor: 0.6 },
  ];
  const a = allocate(1000, needs({ tools: OPEN_ENDED, timeline: OPEN_ENDED }), specs);
  assert.equal(a.tools, 600);
  assert.equal(a.timeline, 400);
});

test("a zero or negative budget gives nothing", () => {
  assert.equal(sum(allocate(0, needs({ persona: 100, timeline: OPEN_ENDED }))), 0);
  assert.equal(sum(allocate(-50, needs({ persona: 100 }))), 0);
});
