/**
 * The order of handlers, which decides conflicts (the later one wins), is stable with a rank: by the
 * plugins' ranks, then by registration within a plugin, so neither which process registered first at boot
 * nor a restart (which registers again) changes who wins.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { PluginRank } from "./stage-order.js";
import { newStageContext, StageHost } from "./stages.js";

const RANKS: Record<string, number> = { a: 1, b: 2, c: 3 };
const byTable: PluginRank = (plugin) => RANKS[plugin] ?? 100;

/** Registers `plugin`'s handler: it appends its name and claims finalText. */
function add(host: StageHost, plugin: string, label = plugin): void {
  host.register(plugin, "before_output", (ctx) => {
    ctx.contextMsgs.push({ role: "system", content: label });
    ctx.finalText = label;
  });
}

async function order(host: StageHost): Promise<{ applied: string[]; winner: string }> {
  const ctx = newStageContext({ requestId: "r", source: "t", channel: "t", rawMessage: "x" });
  await host.run("before_output", ctx);
  return { applied: ctx.contextMsgs.map((m) => m.content), winner: ctx.finalText };
}

test("with a rank, a plugin registering again after unregisterPlugin keeps its place among the others", async () => {
  const host = new StageHost({ timeoutMs: () => 1000, rank: byTable });
  for (const p of ["b", "c", "a"]) add(host, p);
  assert.deepEqual(await order(host), { applied: ["a", "b", "c"], winner: "c" }, "boot order does not matter");
  host.unregisterPlugin("c");
  add(host, "c");
  host.unregisterPlugin("a");
  add(host, "a");
  assert.deepEqual(await order(host), { applied: ["a", "b", "c"], winner: "c" });
  host.unregisterPlugin("b");
  add(host, "b");
  assert.deepEqual(await order(host), { applied: ["a", "b", "c"], winner: "c" });
});

test("without a rank, the order is registration order (a plugin registering again goes last)", async () => {
  const host = new StageHost({ timeoutMs: () => 1000 });
  for (const p of ["a", "b"]) add(host, p);
  host.unregisterPlugin("a");
  add(host, "a");
  assert.deepEqual(await order(host), { applied: ["b", "a"], winner: "a" });
});

test("within a plugin its own registration order; equal ranks by plugin name; setRank re-sorts", async () => {
  const host = new StageHost({ timeoutMs: () => 1000 });
  add(host, "z", "z1");
  add(host, "y");
  add(host, "z", "z2");
  add(host, "x");
  assert.deepEqual((await order(host)).applied, ["z1", "y", "z2", "x"]);
  host.setRank(() => 0);
  assert.deepEqual((await order(host)).applied, ["x", "y", "z1", "z2"]);
  host.setRank((p) => (p === "z" ? -1 : 0));
  assert.deepEqual((await order(host)).applied, ["z1", "z2", "x", "y"]);
});

test("with a rank, a closed plugin's stand-in keeps its place, and so does its handler when it comes back", async () => {
  const host = new StageHost({ timeoutMs: () => 1000, rank: byTable });
  for (const p of ["c", "b", "a"]) add(host, p);
  host.closeFor("b", "crashed");
  host.unregisterPlugin("a");
  add(host, "a");
  const closed = newStageContext({ requestId: "r", source: "t", channel: "t", rawMessage: "x" });
  await host.run("before_output", closed);
  assert.deepEqual(
    closed.contextMsgs.map((m) => m.content),
    ["a", "c"],
  );
  assert.match(closed.response ?? "", /plugin "b" \(critical\) is not running/);
  add(host, "b");
  host.reopen("b");
  assert.deepEqual(await order(host), { applied: ["a", "b", "c"], winner: "c" });
});
