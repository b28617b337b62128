/** `/context` (the last LLM request's tokens per prompt section, one line each) and `/llm` with no source. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createMockSDK } from "@homeagent/sdk/test";
import { runCommand } from "./commands.js";

test("/context prints one line per section, and says so before the first request", () => {
  assert.deepEqual(runCommand(createMockSDK(), "/context"), {
    type: "response",
    content: "no LLM request yet: send a message first",
  });
  const sdk = createMockSDK({
    context: {
      requestId: "req_1",
      at: Date.now(),
      contextWindow: 8192,
      budget: 6553,
      sections: [
        { name: "persona", tokens: 103, budget: 104 },
        { name: "tools", tokens: 1147, budget: 1782 },
        { name: "related_memory", tokens: 1781, budget: 1782 },
        { name: "input", tokens: 12, budget: 12 },
      ],
      toolsOffered: 10,
      toolsTotal: 61,
    },
  });
  const frame = runCommand(sdk, "/context");
  assert.equal(frame.type, "response");
  const lines = (frame.type === "response" ? frame.content : "").split("\n");
  assert.match(lines[0], /^last request req_1 at .*: 3043 of 6553 tokens \(window 8192\)$/);
  assert.deepEqual(lines.slice(1, 5), [
    "  persona            103 / 104",
    "  tools             1147 / 1782",
    "  related_memory    1781 / 1782",
    "  input               12 / 12",
  ]);
  assert.equal(lines[5], "tools offered: 10 of 61 (the rest via tool_search)");
});

test("/llm without a source names the keys a source is made of, and the environment variable", () => {
  const frame = runCommand(createMockSDK(), "/llm");
  assert.equal(frame.type, "response");
  const text = frame.type === "response" ? frame.content : "";
  assert.match(text, /core\.llm\.sources\.<name>\.base_url/);
  assert.match(text, /HOMEAGENT_LLM_BASE_URL/);
});
