/**
 * StageHost with patches, driven directly: private copies while handlers run, patches applied in
 * registration order, conflicts (later registration wins, reported), and what a failed, late or remote
 * handler contributes.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Stage } from "@homeagent/sdk";
import type { StagePatch, snapshotStage } from "@homeagent/sdk/protocol";
import { waitFor } from "../../test/fixtures/wait.js";
import { newStageContext, StageHost, type StageHostOptions } from "./stages.js";
import type { MutableStageContext } from "./types.js";

interface Conflict {
  field: string;
  winner: string;
  loser: string;
  stage: Stage;
}

function setup(opts: Partial<StageHostOptions> = {}) {
  const conflicts: Conflict[] = [];
  const late: string[] = [];
  const host = new StageHost({
    timeoutMs: () => 5000,
    onConflict: (field, winner, loser, stage) => void conflicts.push({ field, winner, loser, stage }),
    onLateWrite: (plugin, _stage, field) => void late.push(`${plugin}:${field}`),
    ...opts,
  });
  return { host, conflicts, late };
}

function context(): MutableStageContext {
  const ctx = newStageContext({ requestId: "r1", source: "test", channel: "test", rawMessage: "hi" });
  ctx.toolCalls = [
    { id: "c1", name: "echo", arguments: { x: 1 } },
    { id: "c2", name: "echo", arguments: { x: 2 } },
  ];
  ctx.toolResults = [{ toolCallId: "c1", name: "echo", content: "one", status: "ok" }];
  return ctx;
}

test("the kernel context is untouched while handlers run, and no handler sees another's changes", async () => {
  const { host } = setup();
  const ctx = context();
  let release: () => void = () => {};
  const hold = new Promise<void>((resolve) => {
    release = resolve;
  });
  let seenByB = "";
  let written = false;
  host.register("a", "on_input", async (c) => {
    c.rawMessage = "from a";
    c.contextMsgs.push({ role: "system", content: "a" });
    written = true;
    await hold;
  });
  host.register("b", "on_input", async (c) => {
    await waitFor(() => written, "a wrote");
    seenByB = c.rawMessage;
  });
  const run = host.run("on_input", ctx);
  await waitFor(() => seenByB !== "", "b read");
  assert.equal(seenByB, "hi");
  assert.equal(ctx.rawMessage, "hi", "the kernel's context is unchanged while the stage runs");
  assert.deepEqual(ctx.contextMsgs, []);
  release();
  await run;
  assert.equal(ctx.rawMessage, "from a");
  assert.deepEqual(ctx.contextMsgs, [{ role: "system", content: "a" }]);
});

test("two handlers setting one field to different values: the later registration wins, the conflict is reported", async () => {
  const { host, conflicts } = setup();
  const ctx = context();
  host.register("first", "before_output", (c) => {
    c.finalText = "first";
    c.phase = "same";
  });
  host.register("second", "before_output", async (c) => {
    await Promise.resolve();
    c.finalText = "second";
    c.phase = "same";
  });
  await host.run("before_output", ctx);
  assert.equal(ctx.finalText, "second");
  assert.equal(ctx.phase, "same");
  assert.deepEqual(conflicts, [{ field: "finalText", winner: "second", loser: "first", stage: "before_output" }]);
});

test("appends survive a handler that replaced the whole contextMsgs list, before it or after it", async () => {
  const { host, conflicts } = setup();
  const ctx = context();
  ctx.contextMsgs = [
    { role: "system", content: "old 1" },
    { role: "system", content: "old 2" },
  ];
  host.register("early", "pre_action", (c) => void c.contextMsgs.push({ role: "system", content: "early" }));
  host.register("prune", "pre_action", (c) => {
    c.contextMsgs = c.contextMsgs.filter((m) => m.content !== "old 1");
  });
  host.register("late", "pre_action", (c) => void c.contextMsgs.push({ role: "system", content: "late" }));
  await host.run("pre_action", ctx);
  assert.deepEqual(
    ctx.contextMsgs.map((m) => m.content),
    ["old 2", "early", "late"],
  );
  assert.deepEqual(conflicts, []);
});

test("tool calls: edits by id merge, two edits of one call conflict, a dropped call stays dropped", async () => {
  const { host, conflicts } = setup({ toolOwner: (name) => (name === "new" ? "edit2" : undefined) });
  const ctx = context();
  for (const p of ["edit1", "dropper", "edit2"]) host.allowAnyToolCalls(p, true);
  host.register("edit1", "post_action", (c) => {
    c.toolCalls[0].arguments = { x: 10 };
  });
  host.register("dropper", "post_action", (c) => {
    c.toolCalls = c.toolCalls.filter((t) => t.id !== "c2");
  });
  host.register("edit2", "post_action", (c) => {
    c.toolCalls[0].arguments.x = 11;
    c.toolCalls[1].arguments.x = 22;
    c.toolCalls.push({ id: "c3", name: "new", arguments: {} });
  });
  await host.run("post_action", ctx);
  assert.deepEqual(ctx.toolCalls, [
    { id: "c1", name: "echo", arguments: { x: 11 } },
    { id: "c3", name: "new", arguments: {} },
  ]);
  assert.deepEqual(
    conflicts.map((c) => `${c.field} ${c.winner}>${c.loser}`),
    ["toolCalls[c1] edit2>edit1", "toolCalls[c2] dropper>edit2"],
  );
});

test("extra merges by key (null deletes), tool results are replaced by id", async () => {
  const { host, conflicts } = setup();
  const ctx = context();
  ctx.extra = { old: 1, shared: "x" };
  // Results of a tool that is not theirs: that needs tool_calls_any.
  for (const p of ["a", "b"]) host.allowAnyToolCalls(p, true);
  host.register("a", "after_toolcall", (c) => {
    c.extra.a = { n: 1 };
    c.extra.shared = "from a";
    c.toolResults[0].content = "redacted by a";
  });
  host.register("b", "after_toolcall", (c) => {
    c.extra.b = true;
    c.extra.old = null;
    c.extra.shared = "from b";
    c.toolResults[0].status = "error";
  });
  await host.run("after_toolcall", ctx);
  assert.deepEqual(ctx.extra, { shared: "from b", a: { n: 1 }, b: true });
  assert.deepEqual(ctx.toolResults[0], { toolCallId: "c1", name: "echo", content: "one", status: "error" });
  assert.deepEqual(
    conflicts.map((c) => `${c.field} ${c.winner}>${c.loser}`),
    ["toolResults[c1] b>a", "extra.shared b>a"],
  );
});

test("a critical plugin's refusal stands against later non-critical handlers, also after one that agreed", async () => {
  const { host, conflicts } = setup();
  const set = (value: string | null): StagePatch => [{ op: "set", field: "response", value }];
  host.setCritical("guard", true);
  host.registerRemote("guard", "pre_action", async () => set("no"));
  host.registerRemote("agree", "pre_action", async () => set("no"));
  host.registerRemote("undo", "pre_action", async () => set(null));
  host.registerRemote("other", "pre_action", async () => set("a different refusal"));
  const ctx = context();
  await host.run("pre_action", ctx);
  assert.equal(ctx.response, "no");
  assert.deepEqual(
    conflicts.map((c) => `${c.field} ${c.winner}>${c.loser}`),
    ["response guard>undo", "response guard>other"],
  );
  // Another critical plugin's handler may change it: the later registration wins, as for any field.
  host.setCritical("judge", true);
  host.registerRemote("judge", "pre_action", async () => set(null));
  const again = context();
  await host.run("pre_action", again);
  assert.equal(again.response, null);
});

test("a handler that threw or timed out contributes nothing, also what it wrote before", async () => {
  const { host } = setup({ timeoutMs: () => 30 });
  const ctx = context();
  host.register("thrower", "on_input", (c) => {
    c.extra.thrower = true;
    c.contextMsgs.push({ role: "system", content: "thrower" });
    throw new Error("boom");
  });
  host.register("hung", "on_input", (c) => {
    c.rawMessage = "hijacked";
    return new Promise<void>(() => {});
  });
  host.register("good", "on_input", (c) => {
    c.extra.good = true;
  });
  await host.run("on_input", ctx);
  assert.deepEqual(ctx.extra, { good: true });
  assert.equal(ctx.rawMessage, "hi");
  assert.deepEqual(ctx.contextMsgs, []);
  assert.deepEqual(
    ctx.errors.map((e) => e.plugin),
    ["thrower", "hung"],
  );
});

test("a write after the handler returned is dropped and reported, even while the stage still runs", async () => {
  const { host, late } = setup();
  const ctx = context();
  let settledWrite = false;
  host.register("leaky", "pre_action", (c) => {
    setImmediate(() => {
      c.extra.leaked = true;
      settledWrite = true;
    });
  });
  host.register("slow", "pre_action", async () => {
    await waitFor(() => settledWrite, "the leftover write");
  });
  await host.run("pre_action", ctx);
  assert.deepEqual(ctx.extra, {});
  assert.deepEqual(late, ["leaky:extra"]);
});

test("remote handlers: same order as in-process ones; a rejection or a bad patch contributes nothing", async () => {
  const { host, conflicts } = setup();
  const ctx = context();
  const seen: string[] = [];
  host.registerRemote("remote1", "before_output", async (snap) => {
    seen.push(snap.finalText);
    return [{ op: "set", field: "finalText", value: "remote1" }];
  });
  host.register("local", "before_output", (c) => {
    c.finalText = "local";
  });
  host.registerRemote("broken", "before_output", async () => {
    throw new Error("plugin x exited (code 1)");
  });
  host.registerRemote("bad", "before_output", async () => [
    { op: "mergeExtra", values: { bad: 1 } },
    { op: "set", field: "finalText", value: 42 },
  ]);
  host.registerRemote("notalist", "before_output", async () => ({ op: "set" }) as unknown as StagePatch);
  ctx.finalText = "draft";
  await host.run("before_output", ctx);
  assert.deepEqual(seen, ["draft"]);
  assert.equal(ctx.finalText, "local");
  assert.deepEqual(ctx.extra, {});
  assert.deepEqual(conflicts, [{ field: "finalText", winner: "local", loser: "remote1", stage: "before_output" }]);
  const errors = Object.fromEntries(ctx.errors.map((e) => [e.plugin, e.message]));
  assert.deepEqual(Object.keys(errors), ["broken", "bad", "notalist"]);
  assert.match(errors.broken, /exited/);
  assert.match(errors.bad, /operation 1 is invalid: the value of finalText has the wrong type/);
  assert.match(errors.notalist, /without a patch/);
});

test("a remote handler past its deadline is given up on, its signal aborted, its late patch ignored", async () => {
  const { host } = setup({ timeoutMs: () => 30 });
  const ctx = context();
  let answer: (p: StagePatch) => void = () => {};
  let signal: AbortSignal | undefined;
  host.registerRemote("slow", "on_input", (_snap, s) => {
    signal = s;
    return new Promise<StagePatch>((resolve) => {
      answer = resolve;
    });
  });
  await host.run("on_input", ctx);
  assert.equal(signal?.aborted, true);
  assert.match(ctx.errors[0]?.message ?? "", /timed out after 30 ms/);
  answer([{ op: "set", field: "rawMessage", value: "too late" }]);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(ctx.rawMessage, "hi");
});

test("a remote handler gets a JSON-safe snapshot, not the live context", async () => {
  const { host } = setup();
  const ctx = context();
  ctx.extra.live = new Map([["k", 1]]);
  let snap: ReturnType<typeof snapshotStage> | undefined;
  host.registerRemote("r", "on_input", async (s) => {
    snap = s;
    s.toolCalls[0].arguments.x = 99;
    return [];
  });
  await host.run("on_input", ctx);
  assert.deepEqual(snap?.extra, { live: {} });
  assert.equal(ctx.toolCalls[0].arguments.x, 1);
});

test("a replaced tool result takes the content and status, nothing else a remote patch carries", async () => {
  const { host } = setup();
  host.allowAnyToolCalls("rewriter", true);
  const result = { content: "two", status: "ok", name: "memory_commit", toolCallId: "c9" } as never;
  host.registerRemote("rewriter", "after_toolcall", async () => [
    { op: "replaceToolResult", toolCallId: "c1", result },
  ]);
  const ctx = context();
  await host.run("after_toolcall", ctx);
  assert.deepEqual(ctx.toolResults, [{ toolCallId: "c1", name: "echo", content: "two", status: "ok" }]);
});
