/** RpcPeer and its framing: calls both ways, deadlines, cancellation, closing, and every bounded input. */
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import test from "node:test";
import { SdkError } from "../errors.js";
import { type FrameEvent, FrameReader, frameHead } from "./framing.js";
import { RpcPeer, type RpcPeerOptions } from "./peer.js";
import { RPC_CLOSED, RPC_DEADLINE, RPC_FRAME_TOO_LARGE, RpcError, toWireError } from "./rpc-error.js";

type Handler = RpcPeerOptions["onRequest"];

/** Two peers joined by a pair of pipes; `toB` is what A writes, so a test can inject raw lines into B. */
function pair(onA: Handler, onB: Handler, extra: Partial<RpcPeerOptions> = {}) {
  const toB = new PassThrough();
  const toA = new PassThrough();
  const problems: string[] = [];
  const a = new RpcPeer({ input: toA, output: toB, onRequest: onA, onProtocolError: (m) => problems.push(m) });
  const b = new RpcPeer({
    input: toB,
    output: toA,
    onRequest: onB,
    onProtocolError: (m) => problems.push(m),
    ...extra,
  });
  return { a, b, toA, toB, problems };
}

const never: Handler = () => new Promise(() => {});

test("FrameReader splits chunks into lines and drops a line over the cap without buffering it", () => {
  const events: FrameEvent[] = [];
  const reader = new FrameReader((e) => events.push(e), 10);
  reader.push(Buffer.from('{"a":1}\n{"b"'));
  reader.push(Buffer.from(":2}\n0123456789ABCDEF"));
  reader.push(Buffer.from("GHI\nok\n"));
  reader.push(Buffer.from("tail"));
  reader.end();
  assert.deepEqual(events, [
    { kind: "line", text: '{"a":1}' },
    { kind: "line", text: '{"b":2}' },
    { kind: "oversized", head: "0123456789ABCDEFGHI".slice(0, 16), bytes: 19 },
    { kind: "line", text: "ok" },
    { kind: "line", text: "tail" },
  ]);
});

test("calls go both ways and results and errors come back with their codes", async () => {
  const { a, b } = pair(
    (method, params) => ({ method, params }),
    (method) => {
      if (method === "fail") throw Object.assign(new Error("nope"), { code: "capability_denied" });
      return "pong";
    },
  );
  assert.equal(await a.call("ping"), "pong");
  assert.deepEqual(await b.call("echo", [1, "二"]), { method: "echo", params: [1, "二"] });
  const err = await a.call("fail").catch((e: unknown) => e);
  assert.ok(err instanceof RpcError);
  assert.equal(err.message, "nope");
  assert.equal(err.data?.code, "capability_denied");
  assert.equal(err.code, "capability_denied", "the wire's code is the error's own");
});

test("a call past its deadline fails and the other side is told to stop", async () => {
  let aborted: AbortSignal | undefined;
  const { a } = pair(never, (_m, _p, ctx) => {
    aborted = ctx.signal;
    return new Promise(() => {});
  });
  const err = await a.call("slow", undefined, { timeoutMs: 20 }).catch((e: unknown) => e);
  assert.ok(err instanceof RpcError && err.rpcCode === RPC_DEADLINE, String(err));
  await new Promise<void>((resolve) => {
    if (aborted?.aborted) resolve();
    else aborted?.addEventListener("abort", () => resolve());
  });
  assert.equal(aborted?.aborted, true);
});

test("closing fails waiting calls at once, and later calls too", async () => {
  const { a } = pair(never, never);
  const waiting = a.call("x");
  a.close("plugin p exited (code 1)");
  const err = await waiting.catch((e: unknown) => e);
  assert.ok(err instanceof RpcError && err.rpcCode === RPC_CLOSED);
  assert.match(err.message, /exited/);
  await assert.rejects(a.call("y"), /exited/);
  assert.equal(a.pending, 0);
});

test("EOF from the other side closes the peer", async () => {
  const { a, toA } = pair(never, never);
  const waiting = a.call("x");
  toA.end();
  await assert.rejects(waiting, /closed the connection/);
});

test("an oversized request is answered with an error and the connection keeps working", async () => {
  const { a, b, problems } = pair(never, (_m, params) => (params as string).length);
  const big = "x".repeat(2 << 20);
  const err = await a.call("echo", big).catch((e: unknown) => e);
  assert.ok(err instanceof RpcError && err.rpcCode === RPC_FRAME_TOO_LARGE, "the sender refuses it locally");
  // A hostile sender that writes it anyway gets an answer naming the limit.
  const got = new Promise<string>((resolve) => {
    const seen = new FrameReader((e) => e.kind === "line" && resolve(e.text));
    (b as unknown as { opts: { output: PassThrough } }).opts.output.on("data", (c: Buffer) => seen.push(c));
  });
  (a as unknown as { opts: { output: PassThrough } }).opts.output.write(
    `{"jsonrpc":"2.0","id":77,"method":"echo","params":"${big}"}\n`,
  );
  const answer = JSON.parse(await got) as { id: number; error: { code: number; message: string } };
  assert.equal(answer.id, 77);
  assert.equal(answer.error.code, RPC_FRAME_TOO_LARGE);
  assert.match(problems.join("\n"), /byte line .* was dropped \(id 77\)/, "the receiver logs it too");
  assert.equal(await a.call("echo", "ok"), 2);
});

test("an oversized answer fails the call it answers, not the connection", async () => {
  const { a } = pair(never, (method) => (method === "big" ? "y".repeat(2 << 20) : "small"));
  const err = await a.call("big").catch((e: unknown) => e);
  assert.ok(err instanceof RpcError && err.rpcCode === RPC_FRAME_TOO_LARGE, String(err));
  assert.equal(await a.call("small"), "small");
});

test("malformed lines and stray answers are reported and skipped", async () => {
  const { a, b, toB, problems } = pair(never, () => "fine");
  toB.write("not json\n[1,2]\n{}\n");
  toB.write('{"jsonrpc":"2.0","id":999,"result":1}\n');
  assert.equal(await a.call("x"), "fine");
  assert.equal(problems.length, 4, problems.join("\n"));
  assert.equal(b.closed, false);
});

test("requests served at once are bounded", async () => {
  const { a } = pair(never, never, { maxConcurrent: 2 });
  void a.call("hold").catch(() => {});
  void a.call("hold").catch(() => {});
  await assert.rejects(a.call("third"), /too many requests at once/);
  a.close("done");
});

test("an abort signal cancels a call", async () => {
  const { a } = pair(never, never);
  const controller = new AbortController();
  const waiting = a.call("x", undefined, { signal: controller.signal });
  controller.abort(new Error("the user interrupted"));
  await assert.rejects(waiting, /the user interrupted/);
  assert.equal(a.pending, 0);
});

test("frameHead reads only top-level keys of a cut line", () => {
  assert.deepEqual(frameHead('{"jsonrpc":"2.0","id":7,"method":"echo","params":"xxxx'), { id: 7, method: true });
  assert.deepEqual(frameHead('{"jsonrpc":"2.0","result":{"method":"x","id":99},"id":3}'), { id: 3, method: false });
  assert.deepEqual(frameHead('{"params":{"id":5},"method":"m","id":"a\\"b"'), { id: 'a"b', method: true });
  assert.deepEqual(frameHead('{"jsonrpc":"2.0","id":12'), { method: false }, "a number cut by the end is no id");
  assert.deepEqual(frameHead('{"id":"\\x bad escape","method":"m"}'), { method: false });
});

test("a message whose method is not a string never completes a waiting call", async () => {
  const { a, toA, problems } = pair(never, never);
  const waiting = a.call("x");
  toA.write('{"jsonrpc":"2.0","id":1,"method":42}\n');
  assert.equal(a.pending, 1, "call 1 still waits");
  assert.match(problems.join("\n"), /method is not a string/);
  a.close("done");
  await assert.rejects(waiting, /done/);
});

test("a late answer to a call given up on is dropped quietly", async () => {
  let answered: () => void = () => {};
  const late = new Promise<void>((resolve) => {
    answered = resolve;
  });
  let gaveUp: () => void = () => {};
  const callerGaveUp = new Promise<void>((resolve) => {
    gaveUp = resolve;
  });
  // The handler answers only once the caller has stopped waiting: the answer is late by construction.
  const { a, problems } = pair(never, async () => {
    await callerGaveUp;
    setImmediate(answered);
    return "too late";
  });
  await assert.rejects(a.call("slow", undefined, { timeoutMs: 5 }), /no answer within 5 ms/);
  gaveUp();
  await late;
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(problems, []);
});

test("a call whose params cannot be encoded fails and leaves nothing waiting", async () => {
  const { a } = pair(never, never);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  await assert.rejects(a.call("x", cyclic), /cannot be sent as JSON/);
  await assert.rejects(a.call("x", { n: 1n }), /cannot be sent as JSON/);
  assert.equal(a.pending, 0);
  a.close("done");
});

test("only the SDK's error codes cross the wire: a Node error's code stays behind", () => {
  const enoent = Object.assign(new Error("no such file"), { code: "ENOENT" });
  assert.equal(toWireError(enoent).data, undefined);
  assert.deepEqual(toWireError(new SdkError({ code: "not_found", message: "gone" })).data, { code: "not_found" });
});
