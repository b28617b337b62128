/** snapshotStage / diffStage: the patch format both sides of the plugin protocol rely on. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { copyPlain, diffStage, jsonEqual, type StageSnapshot, snapshotStage } from "./stage-patch.js";

function sample(): StageSnapshot {
  return {
    stage: "before_toolcall",
    requestId: "req_1",
    source: "cli",
    channel: "cli",
    rawMessage: "hello",
    userId: "u1",
    groupId: "",
    contextMsgs: [{ role: "system", content: "a" }],
    llmText: "",
    reasoningContent: "",
    tokenUsage: null,
    toolCalls: [
      { id: "c1", name: "echo", arguments: { x: 1 } },
      { id: "c2", name: "read", arguments: { path: "/a" } },
    ],
    toolResults: [{ toolCallId: "c1", name: "echo", content: "one", status: "ok" }],
    finalText: "",
    response: null,
    phase: "",
    memory: [{ role: "user", content: "m", score: 0.5 }],
    noMemory: false,
    extra: { keep: { deep: [1, 2] }, gone: 1 },
    errors: [],
  };
}

test("an unchanged copy gives an empty patch", () => {
  const before = sample();
  assert.deepEqual(diffStage(before, copyPlain(before)), []);
});

test("set fields compare as JSON: an equal value set again is no change", () => {
  const before = sample();
  const after = copyPlain(before);
  after.rawMessage = "rewritten";
  after.response = "no";
  after.noMemory = true;
  after.memory = [{ role: "user", content: "m", score: 0.5 }];
  after.tokenUsage = null;
  assert.deepEqual(diffStage(before, after), [
    { op: "set", field: "rawMessage", value: "rewritten" },
    { op: "set", field: "response", value: "no" },
    { op: "set", field: "noMemory", value: true },
  ]);
});

test("contextMsgs that only grew become appends; any other change replaces the list", () => {
  const before = sample();
  const grown = copyPlain(before);
  grown.contextMsgs.push({ role: "system", content: "b" }, { role: "user", content: "c" });
  assert.deepEqual(diffStage(before, grown), [
    { op: "appendContext", message: { role: "system", content: "b" } },
    { op: "appendContext", message: { role: "user", content: "c" } },
  ]);
  // The write-back pattern (copy, await, assign) is still an append.
  const writtenBack = copyPlain(before);
  writtenBack.contextMsgs = [...before.contextMsgs, { role: "system", content: "b" }];
  assert.deepEqual(diffStage(before, writtenBack), [
    { op: "appendContext", message: { role: "system", content: "b" } },
  ]);
  const edited = copyPlain(before);
  edited.contextMsgs[0].content = "A";
  edited.contextMsgs.push({ role: "system", content: "b" });
  assert.deepEqual(diffStage(before, edited), [
    {
      op: "set",
      field: "contextMsgs",
      value: [
        { role: "system", content: "A" },
        { role: "system", content: "b" },
      ],
    },
  ]);
});

test("tool calls are matched by id: edit, drop, add; a renamed call is dropped and added; order alone is no change", () => {
  const before = sample();
  const after = copyPlain(before);
  after.toolCalls[0].arguments.x = 2;
  after.toolCalls.splice(1, 1);
  after.toolCalls.push({ id: "c3", name: "new", arguments: {} });
  assert.deepEqual(diffStage(before, after), [
    { op: "dropToolCall", id: "c2" },
    { op: "editToolCall", id: "c1", arguments: { x: 2 } },
    { op: "addToolCall", call: { id: "c3", name: "new", arguments: {} } },
  ]);
  const renamed = copyPlain(before);
  renamed.toolCalls[1].name = "write";
  assert.deepEqual(diffStage(before, renamed), [
    { op: "dropToolCall", id: "c2" },
    { op: "addToolCall", call: { id: "c2", name: "write", arguments: { path: "/a" } } },
  ]);
  const reordered = copyPlain(before);
  reordered.toolCalls.reverse();
  assert.deepEqual(diffStage(before, reordered), []);
});

test("a tool result is replaced by toolCallId, with its status only when that changed", () => {
  const before = sample();
  const content = copyPlain(before);
  content.toolResults[0].content = "[redacted]";
  assert.deepEqual(diffStage(before, content), [
    { op: "replaceToolResult", toolCallId: "c1", result: { content: "[redacted]" } },
  ]);
  const status = copyPlain(before);
  status.toolResults[0].status = "error";
  assert.deepEqual(diffStage(before, status), [
    { op: "replaceToolResult", toolCallId: "c1", result: { content: "one", status: "error" } },
  ]);
});

test("extra merges key by key: changed and new keys, deleted keys as null, equal plain values unchanged", () => {
  const before = sample();
  const after = copyPlain(before);
  after.extra.added = { a: 1 };
  after.extra.keep = { deep: [1, 2] };
  delete after.extra.gone;
  after.extra.ignored = undefined;
  assert.deepEqual(diffStage(before, after), [{ op: "mergeExtra", values: { added: { a: 1 }, gone: null } }]);
});

test("non-plain values in extra compare by identity: mutated in place is no change, replaced is", () => {
  const shared = new Map([["k", 1]]);
  const before = { ...sample(), extra: { live: shared } };
  const after = { ...copyPlain(before) };
  assert.equal(after.extra.live, shared, "copyPlain keeps a Map by reference");
  shared.set("k", 2);
  assert.deepEqual(diffStage(before, after), []);
  const replacement = new Map();
  after.extra = { live: replacement };
  const [op] = diffStage(before, after);
  assert.equal(op.op === "mergeExtra" && op.values.live, replacement);
});

test("read-only fields are not part of a patch", () => {
  const before = sample();
  const after = copyPlain(before);
  after.errors.push({ plugin: "x", stage: "on_input", message: "forged" });
  (after as { requestId: string }).requestId = "other";
  (after as { stage: string }).stage = "on_input";
  assert.deepEqual(diffStage(before, after), []);
});

test("a patch holds copies: changing the handler's copy afterwards does not change the patch", () => {
  const before = sample();
  const after = copyPlain(before);
  after.extra.obj = { n: 1 };
  after.toolCalls[0].arguments = { x: 5 };
  const patch = diffStage(before, after);
  (after.extra.obj as { n: number }).n = 99;
  after.toolCalls[0].arguments.x = 99;
  assert.deepEqual(patch, [
    { op: "editToolCall", id: "c1", arguments: { x: 5 } },
    { op: "mergeExtra", values: { obj: { n: 1 } } },
  ]);
});

test("snapshotStage is JSON-safe: no signal, JSON's rules for odd values, no throw on BigInt or cycles", () => {
  const cyclic: Record<string, unknown> = { name: "loop" };
  cyclic.self = cyclic;
  const ctx = {
    ...sample(),
    extra: {
      fn: () => 1,
      map: new Map([["a", 1]]),
      when: new Date(0),
      big: 10n,
      nan: Number.NaN,
      list: [undefined, () => 1, 1],
      cyclic,
    },
    signal: new AbortController().signal,
  };
  const snap = snapshotStage(ctx);
  assert.equal("signal" in snap, false);
  assert.deepEqual(snap.extra, {
    map: {},
    when: "1970-01-01T00:00:00.000Z",
    nan: null,
    list: [null, null, 1],
    cyclic: { name: "loop" },
  });
  assert.deepEqual(JSON.parse(JSON.stringify(snap)), snap);
  snap.toolCalls[0].arguments.x = 42;
  assert.equal(ctx.toolCalls[0].arguments.x, 1, "a deep copy");
});

test("the remote path: snapshot, JSON both ways, changes, diff against the snapshot", () => {
  const snap = JSON.parse(JSON.stringify(snapshotStage(sample()))) as StageSnapshot;
  const mine = JSON.parse(JSON.stringify(snap)) as StageSnapshot;
  mine.contextMsgs.push({ role: "system", content: "from far away" });
  mine.extra.remote = true;
  const patch = JSON.parse(JSON.stringify(diffStage(snap, mine)));
  assert.deepEqual(patch, [
    { op: "appendContext", message: { role: "system", content: "from far away" } },
    { op: "mergeExtra", values: { remote: true } },
  ]);
});

test("jsonEqual and copyPlain handle cycles and shared parts", () => {
  const a: Record<string, unknown> = { v: 1 };
  a.self = a;
  const b: Record<string, unknown> = { v: 1 };
  b.self = b;
  assert.equal(jsonEqual(a, b), true);
  b.v = 2;
  assert.equal(jsonEqual(a, b), false);
  // A 1-cycle against a 2-cycle: both unfold to the same endless data.
  const one: Record<string, unknown> = { v: 1 };
  one.n = one;
  const two: Record<string, unknown> = { v: 1 };
  const three: Record<string, unknown> = { v: 1, n: two };
  two.n = three;
  assert.equal(jsonEqual(one, two), true);
  three.v = 2;
  assert.equal(jsonEqual(one, two), false);
  const part = { p: 1 };
  const copy = copyPlain({ a, x: part, y: part });
  assert.equal(copy.a.self, copy.a);
  assert.notEqual(copy.a, a);
  assert.equal(copy.x, copy.y);
  assert.equal(jsonEqual({ k: undefined }, {}), true);
  assert.equal(jsonEqual(new Date(0), new Date(0)), false, "non-plain: by identity");
});

test('a "__proto__" key stays a key: copies, snapshots and diffs never change a prototype', () => {
  const value = JSON.parse('{"__proto__": {"isAdmin": true}, "n": 1}') as Record<string, unknown>;
  const plain = (o: unknown) => Object.getPrototypeOf(o) === Object.prototype;
  const copy = copyPlain(value);
  assert.ok(plain(copy));
  assert.ok(Object.hasOwn(copy, "__proto__"));
  assert.equal((copy as { isAdmin?: boolean }).isAdmin, undefined);
  const before = sample();
  const snap = snapshotStage({ ...before, extra: { v: value } });
  const v = snap.extra.v as Record<string, unknown>;
  assert.ok(plain(v) && Object.hasOwn(v, "__proto__"));
  const after = copyPlain(before);
  Object.defineProperty(after.extra, "__proto__", { value: { isAdmin: true }, enumerable: true });
  const [op] = diffStage(before, after);
  assert.equal(op.op, "mergeExtra");
  const values = (op as { values: Record<string, unknown> }).values;
  assert.ok(plain(values));
  assert.deepEqual(Object.keys(values), ["__proto__"]);
});
