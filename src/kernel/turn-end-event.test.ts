/**
 * Every turn's end is published, even one that throws before it could answer (its event could not be
 * written, say): whoever shows or records turns (the dashboard, the transcript) would otherwise wait for it
 * forever. And every turn's start is published before on_input.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { AgentEvent } from "@homeagent/sdk";
import { startAgent } from "../../test/fixtures/kernel-harness.js";
import { MemoryWindow } from "../../test/fixtures/memory-window.js";

class FailingWindow extends MemoryWindow {
  override async append(): Promise<number> {
    throw new Error("disk full");
  }
}

test("a turn that throws still publishes its agent_output, with the error", async (t) => {
  const h = startAgent({ context: new FailingWindow() });
  t.after(() => h.close());
  const seen: AgentEvent[] = [];
  h.agent.bus.subscribe("*", (e) => {
    if (e.type === "raw_input" || e.type === "agent_output") seen.push(e);
  });
  const reply = await h.agent.injectInputSync("test", "test", "hello");
  assert.match(reply.error ?? "", /disk full/);
  assert.deepEqual(
    seen.map((e) => [e.type, e.payload.requestId === reply.requestId]),
    [
      ["raw_input", true],
      ["agent_output", true],
    ],
  );
  assert.match(String(seen[1].payload.error), /disk full/);
});
