import assert from "node:assert/strict";
import { test } from "node:test";
import { EventBus } from "./bus.js";

test("wildcard and typed subscribers both receive, wildcard first", () => {
  const bus = new EventBus();
  const seen: string[] = [];
  bus.subscribe("tool_call", (e) => void seen.push(`typed:${e.type}`));
  bus.subscribe("*", (e) => void seen.push(`any:${e.type}`));
  bus.publish("tool_call", "kernel", { tool: "x" });
  bus.publish("system", "kernel", {});
  assert.deepEqual(seen, ["any:tool_call", "typed:tool_call", "any:system"]);
});

test("a throwing subscriber affects neither the others nor the publisher", () => {
  const errors: unknown[] = [];
  const bus = new EventBus((err) => errors.push(err));
  const seen: number[] = [];
  bus.subscribe("system", () => {
    throw new Error("bad subscriber");
  });
  bus.subscribe("system", () => void seen.push(1));
  assert.doesNotThrow(() => bus.publish("system", "kernel", {}));
  assert.deepEqual(seen, [1]);
  assert.equal((errors[0] as Error).message, "bad subscriber");
});

test("unsubscribe stops delivery", () => {
  const bus = new EventBus();
  let n = 0;
  const off = bus.subscribe("*", () => void n++);
  bus.publish("system", "k", {});
  off();
  bus.publish("system", "k", {});
  assert.equal(n, 1);
});

test("every event gets the next seq, whoever publishes it", () => {
  const bus = new EventBus();
  const seqs: number[] = [];
  bus.subscribe("*", (e) => void seqs.push(e.seq));
  bus.publish("system", "kernel", {});
  bus.publish("tool_call", "a-plugin", {});
  bus.publish("stage", "kernel", {});
  assert.deepEqual(seqs, [1, 2, 3]);
});

test("stats: published is the last seq, subscribers the handlers subscribed now", () => {
  const bus = new EventBus();
  assert.deepEqual(bus.stats(), { published: 0, subscribers: 0 });
  const offAll = bus.subscribe("*", () => {});
  const offTool = bus.subscribe("tool_call", () => {});
  bus.subscribe("system", () => {});
  assert.deepEqual(bus.stats(), { published: 0, subscribers: 3 });
  bus.publish("system", "kernel", {});
  bus.publish("tool_call", "a-plugin", {});
  offAll();
  offTool();
  offTool();
  assert.deepEqual(bus.stats(), { published: 2, subscribers: 1 });
  bus.publish("stage", "kernel", {});
  assert.equal(bus.stats().published, 3);
});
