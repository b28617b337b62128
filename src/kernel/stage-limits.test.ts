/**
 * The bounds on what stage patches may put into the context (stage-limits.ts): an operation too deep, too
 * big or with a key that reaches a prototype is refused with its whole patch, and `extra` / `contextMsgs`
 * cannot grow past their totals, so no plugin can make the context unsendable or break later handlers.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { StagePatch } from "@homeagent/sdk/protocol";
import { applyPatches } from "./stage-apply.js";
import { MAX_CONTEXT_MSGS } from "./stage-limits.js";
import { newStageContext, StageHost } from "./stages.js";
import type { MutableStageContext } from "./types.js";

function context(): MutableStageContext {
  return newStageContext({ requestId: "r1", source: "test", channel: "test", rawMessage: "hi" });
}

function host(): StageHost {
  return new StageHost({ timeoutMs: () => 5000 });
}

/** Nested arrays `depth` deep, built without recursion. */
function nested(depth: number): unknown[] {
  let value: unknown[] = [];
  for (let i = 1; i < depth; i++) value = [value];
  return value;
}

const note = (content: string) => ({ role: "system" as const, content });

test("a remote patch nesting too deep is refused whole, and later handlers still work", async () => {
  const h = host();
  const ctx = context();
  h.registerRemote("deep", "on_input", async () => [
    { op: "appendContext", message: note("from deep") },
    { op: "mergeExtra", values: { k: nested(100_000) } },
  ]);
  await h.run("on_input", ctx);
  assert.deepEqual(ctx.extra, {});
  assert.deepEqual(ctx.contextMsgs, [], "nothing of the patch was applied");
  assert.match(
    ctx.errors[0]?.message ?? "",
    /operation 1 \(mergeExtra\) is refused: its values nest deeper than 32 levels/,
  );
  const h2 = host();
  h2.register("innocent", "pre_action", (c) => {
    c.extra.seen = Object.keys(c.extra).length;
    c.contextMsgs.push(note("hint"));
  });
  await h2.run("pre_action", ctx);
  assert.equal(ctx.errors.length, 1, "the next stage's handler did not fail");
  assert.deepEqual(ctx.contextMsgs, [note("hint")]);
  // Within the bound a nested value goes through.
  h2.registerRemote("ok", "after_output", async () => [{ op: "mergeExtra", values: { k: nested(30) } }]);
  await h2.run("after_output", ctx);
  assert.ok(Array.isArray(ctx.extra.k));
});

test("one operation over 256 KiB is refused, in-process or remote", async () => {
  const h = host();
  const ctx = context();
  h.registerRemote("big", "before_output", async () => [
    { op: "set", field: "finalText", value: "x".repeat(300 * 1024) },
  ]);
  h.register("local", "before_output", (c) => {
    c.contextMsgs.push(note("y".repeat(300 * 1024)));
  });
  await h.run("before_output", ctx);
  assert.equal(ctx.finalText, "");
  assert.deepEqual(ctx.contextMsgs, []);
  assert.deepEqual(
    ctx.errors.map((e) => e.message.replace(/ \(.*/, "")),
    ["stage patch operation 0", "stage patch operation 0"],
  );
  assert.match(ctx.errors[0].message, /over 256 KiB as JSON \(the limit for one operation\)/);
});

test("ctx.extra stays within 256 KiB: the patch that would go over is refused whole, deleting is fine", async () => {
  const h = host();
  const ctx = context();
  const pad = "x".repeat(200 * 1024);
  h.registerRemote("a", "on_input", async () => [{ op: "mergeExtra", values: { a: pad } }]);
  h.registerRemote("b", "on_input", async () => [
    { op: "appendContext", message: note("from b") },
    { op: "mergeExtra", values: { b: pad } },
  ]);
  await h.run("on_input", ctx);
  assert.deepEqual(Object.keys(ctx.extra), ["a"]);
  assert.deepEqual(ctx.contextMsgs, [], "b's append went with its patch");
  assert.equal(ctx.errors.length, 1);
  assert.match(
    ctx.errors[0].message,
    /^stage patch refused: it would make ctx\.extra \d+ bytes as JSON, over its limit of 256 KiB/,
  );
  const h2 = host();
  h2.register("swap", "pre_action", (c) => {
    c.extra.a = null;
    c.extra.b = pad;
  });
  await h2.run("pre_action", ctx);
  assert.deepEqual(Object.keys(ctx.extra), ["b"], "replacing one big key by another stays within the bound");
});

test("ctx.contextMsgs stays within 256 messages across stage runs", async () => {
  const ctx = context();
  const h = host();
  h.register("chatty", "pre_action", (c) => {
    for (let i = 0; i < 200; i++) c.contextMsgs.push(note(`m${i}`));
  });
  await h.run("pre_action", ctx);
  assert.equal(ctx.contextMsgs.length, 200);
  await h.run("pre_action", ctx);
  assert.equal(ctx.contextMsgs.length, 200, "a second batch would pass the limit");
  assert.match(ctx.errors[0].message, new RegExp(`400 messages, over its limit of ${MAX_CONTEXT_MSGS}`));
  const prune = host();
  prune.register("prune", "pre_action", (c) => {
    c.contextMsgs = c.contextMsgs.slice(150);
  });
  await prune.run("pre_action", ctx);
  assert.equal(ctx.contextMsgs.length, 50);
});

test("ctx.contextMsgs stays within 256 KiB", async () => {
  const ctx = context();
  const h = host();
  const chunk = "z".repeat(100 * 1024);
  h.registerRemote("r", "pre_action", async () => [
    { op: "appendContext", message: note(chunk) },
    { op: "appendContext", message: note(chunk) },
  ]);
  await h.run("pre_action", ctx);
  await h.run("pre_action", ctx);
  assert.equal(ctx.contextMsgs.length, 2);
  assert.match(ctx.errors[0].message, /ctx\.contextMsgs \d+ bytes as JSON, over its limit of 256 KiB/);
});

test('"__proto__", "constructor" and "prototype" keys are refused anywhere in a remote patch', async () => {
  const ctx = context();
  ctx.toolCalls = [{ id: "c1", name: "echo", arguments: { x: 1 } }];
  const patches: StagePatch[] = [
    [{ op: "mergeExtra", values: JSON.parse('{"__proto__": {"isAdmin": true}}') }],
    [{ op: "editToolCall", id: "c1", arguments: { x: { constructor: { prototype: 1 } } } }],
    [{ op: "set", field: "memory", value: [JSON.parse('{"role":"user","content":"m","__proto__":{"a":1}}')] }],
  ];
  const h = host();
  patches.forEach((patch, i) => void h.registerRemote(`p${i}`, "on_input", async () => patch));
  await h.run("on_input", ctx);
  assert.equal(Object.getPrototypeOf(ctx.extra), Object.prototype);
  assert.equal((ctx.extra as { isAdmin?: boolean }).isAdmin, undefined);
  assert.deepEqual(ctx.toolCalls[0].arguments, { x: 1 });
  assert.deepEqual(ctx.memory, []);
  assert.deepEqual(
    ctx.errors.map((e) => /uses the key "(\w+)"/.exec(e.message)?.[1]),
    ["__proto__", "constructor", "__proto__"],
  );
});

test("an in-process handler cannot reach the kernel's prototypes either, and stays isolated", async () => {
  const ctx = context();
  const h = host();
  h.register("setter", "pre_action", (c) => {
    // The write a hostile handler would do: an assignment to the key "__proto__".
    const key = "__proto__";
    c.extra[key] = { isAdmin: true };
  });
  h.register("parsed", "pre_action", (c) => {
    c.extra.cfg = JSON.parse('{"__proto__": {"isAdmin": true}}');
  });
  h.register("fine", "pre_action", (c) => {
    c.extra.ok = true;
  });
  await h.run("pre_action", ctx);
  assert.deepEqual(ctx.extra, { ok: true } as Record<string, unknown>);
  assert.equal(Object.getPrototypeOf(ctx.extra), Object.prototype);
  assert.deepEqual(
    ctx.errors.map((e) => e.plugin),
    ["setter", "parsed"],
  );
  // extra is still plain data: the next handler gets a copy, so its write waits for the patch.
  let live = false;
  const next = host();
  next.register("h", "before_output", (c) => {
    c.extra.a = 1;
    live = Object.hasOwn(ctx.extra, "a");
  });
  await next.run("before_output", ctx);
  assert.equal(live, false);
  assert.equal(ctx.extra.a, 1);
});

test('applied directly (no check before), a "__proto__" key in mergeExtra stays a key of extra', () => {
  const ctx = context();
  const values = JSON.parse('{"__proto__": {"isAdmin": true}}') as Record<string, unknown>;
  applyPatches(ctx, [{ plugin: "p", patch: [{ op: "mergeExtra", values }] }], "on_input", undefined);
  assert.equal(Object.getPrototypeOf(ctx.extra), Object.prototype);
  assert.ok(Object.hasOwn(ctx.extra, "__proto__"));
  assert.equal((ctx.extra as { isAdmin?: boolean }).isAdmin, undefined);
});
