/** Which MCP calls ask first, per `plugin.mcp.approve`; a tool annotated destructive asks in every mode. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { needsApproval } from "./approval.js";

test("read-only tools run, others ask by default; destructive always asks", () => {
  const cases: Array<[Parameters<typeof needsApproval>[1], boolean, boolean, boolean]> = [
    // hints, unless_read_only, destructive, always
    [{ readOnlyHint: true }, false, false, true],
    [undefined, true, true, true],
    [{ readOnlyHint: false, destructiveHint: false }, true, false, true],
    [{ destructiveHint: true }, true, true, true],
    [{ readOnlyHint: true, destructiveHint: true }, true, true, true],
  ];
  for (const [hints, unlessReadOnly, destructive, always] of cases) {
    assert.equal(needsApproval("unless_read_only", hints), unlessReadOnly, JSON.stringify(hints));
    assert.equal(needsApproval("destructive", hints), destructive, JSON.stringify(hints));
    assert.equal(needsApproval("always", hints), always, JSON.stringify(hints));
  }
});
