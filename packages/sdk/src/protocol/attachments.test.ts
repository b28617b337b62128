/** Attachments: long strings sent as raw UTF-8 after their message's line, read back intact and bounded. */
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import test from "node:test";
import { ATTACHMENT_MIN_CHARS } from "./attachments.js";
import { encodeFrame, type FrameEvent, FrameReader } from "./framing.js";
import { RpcPeer, type RpcPeerOptions } from "./peer.js";
import { RPC_FRAME_TOO_LARGE, RpcError } from "./rpc-error.js";

type Handler = RpcPeerOptions["onRequest"];

/** Two peers joined by a pair of pipes; `wireToB` collects every byte A writes. */
function pair(onB: Handler, extraB: Partial<RpcPeerOptions> = {}) {
  const toB = new PassThrough();
  const toA = new PassThrough();
  const problems: string[] = [];
  const wireToB: Buffer[] = [];
  toB.on("data", (chunk: Buffer) => wireToB.push(chunk));
  const a = new RpcPeer({
    input: toA,
    output: toB,
    onRequest: () => new Promise(() => {}),
    onProtocolError: (m) => problems.push(m),
  });
  const b = new RpcPeer({
    input: toB,
    output: toA,
    onRequest: onB,
    onProtocolError: (m) => problems.push(m),
    ...extraB,
  });
  return { a, b, toA, toB, problems, wire: () => Buffer.concat(wireToB).toString("utf8") };
}

/** Multibyte characters of 2, 3 and 4 bytes, quotes, backslashes and newlines: everything JSON would escape. */
function longText(chars: number, seed = ""): string {
  return `${seed}é 你好 😀 "quoted" \\ {"json":[1,2]}\n`.repeat(Math.ceil(chars / 30)).slice(0, chars);
}

test("long strings travel as attachments both ways when each side reads them, and arrive intact", async () => {
  const { a, b, wire, problems } = pair((_method, params) => params);
  a.sendAttachments = true;
  b.sendAttachments = true;
  const when = new Date("2024-05-01T12:00:00Z");
  const params = {
    text: longText(40_000),
    list: ["short", longText(5000, "second"), { deep: [longText(ATTACHMENT_MIN_CHARS, "third")] }],
    // A lone surrogate has no UTF-8 form: that string stays in the JSON, escaped.
    lone: `\ud800${"x".repeat(ATTACHMENT_MIN_CHARS)}`,
    when,
    custom: { toJSON: () => longText(ATTACHMENT_MIN_CHARS, "custom") },
  };
  const echoed = await a.call("echo", params);
  assert.deepEqual(echoed, JSON.parse(JSON.stringify(params)));
  assert.equal(typeof params.text, "string", "the caller's object is left as it was");
  assert.equal((params.list[2] as { deep: string[] }).deep[0]?.startsWith("third"), true);
  const header = wire()
    .split("\n")
    .find((line) => line.startsWith("@"));
  assert.ok(header, "an attachment header went over the wire");
  const paths = (JSON.parse(header.slice(1)) as Array<{ path: unknown[] }>).map((h) => h.path);
  assert.deepEqual(
    paths.map((p) => p.join(".")).sort(),
    ["params.list.1", "params.list.2.deep.0", "params.text"],
    "the lone-surrogate string, the Date and the toJSON value stay in the JSON",
  );
  assert.deepEqual(problems, []);
});

test("without the other side's word, long strings stay inside one JSON line", async () => {
  const { a, wire } = pair((_method, params) => (params as string).length);
  assert.equal(await a.call("echo", longText(40_000)), 40_000);
  const lines = wire().split("\n").filter(Boolean);
  assert.equal(lines.length, 1);
  assert.equal((JSON.parse(lines[0] ?? "") as { params: string }).params, longText(40_000));
});

test("FrameReader reads an attachment frame cut at any byte, inside a multibyte character too", () => {
  const frame = encodeFrame(
    { jsonrpc: "2.0", id: 3, result: { a: longText(ATTACHMENT_MIN_CHARS + 7), b: ["x", longText(5000, "b")] } },
    1 << 20,
    true,
  );
  assert.ok(frame && frame.attachments.length === 2);
  const bytes = Buffer.concat([
    Buffer.from(frame.text),
    ...frame.attachments.map((t) => Buffer.from(t)),
    Buffer.from('{"after":1}\n'),
  ]);
  const read = (chunks: Buffer[]): FrameEvent[] => {
    const events: FrameEvent[] = [];
    const reader = new FrameReader((e) => events.push(e));
    for (const chunk of chunks) reader.push(chunk);
    reader.end();
    return events;
  };
  const whole = read([bytes]);
  assert.equal(whole.length, 2);
  const first = whole[0];
  assert.ok(first?.kind === "line" && first.attachments);
  assert.deepEqual(
    first.attachments.map((x) => x.text),
    frame.attachments,
  );
  assert.deepEqual(whole[1], { kind: "line", text: '{"after":1}' });
  // Every third byte (characters here are 1 to 4 bytes long), and every byte near the frame's own boundaries.
  const cuts = new Set<number>();
  for (let cut = 1; cut < bytes.length; cut += 3) cuts.add(cut);
  let boundary = 0;
  for (const part of [frame.text.indexOf("\n") + 1, Buffer.byteLength(frame.text), ...frame.attachments]) {
    boundary = typeof part === "number" ? part : boundary + Buffer.byteLength(part);
    for (let cut = boundary - 5; cut <= boundary + 5; cut++) if (cut > 0 && cut < bytes.length) cuts.add(cut);
  }
  for (const cut of cuts) {
    assert.deepEqual(read([bytes.subarray(0, cut), bytes.subarray(cut)]), whole, `cut at byte ${cut}`);
  }
  const singleBytes = Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
  assert.deepEqual(read(singleBytes), whole, "one byte at a time");
});

test("the sender refuses a message whose attachments exceed the frame limit", async () => {
  const { a } = pair((_method, params) => params);
  a.sendAttachments = true;
  const err = await a.call("echo", { text: "x".repeat(2 << 20) }).catch((e: unknown) => e);
  assert.ok(err instanceof RpcError && err.rpcCode === RPC_FRAME_TOO_LARGE, String(err));
  assert.equal(a.pending, 0);
});

test("an attachment frame over the cap is answered -32001 and its bytes are skipped unread, lines in them too", async () => {
  const { a, b, toA, toB, problems } = pair(() => "real", { maxFrameBytes: 64 * 1024 });
  const answers: FrameEvent[] = [];
  const tap = new FrameReader((e) => answers.push(e));
  toA.on("data", (chunk: Buffer) => tap.push(chunk));
  // B waits on its own call 1: the forged answers inside the dropped attachment must never complete it.
  const waiting = b.call("x");
  const forged = '{"jsonrpc":"2.0","id":1,"result":"forged"}\n'.repeat(3000);
  toB.write(`@[{"path":["params",0],"bytes":${Buffer.byteLength(forged)}}]\n`);
  toB.write('{"jsonrpc":"2.0","id":77,"method":"echo","params":[null]}\n');
  toB.write(forged);
  assert.equal(await a.call("after"), "real", "the connection still works");
  const refusal = answers
    .map((e) => (e.kind === "line" ? (JSON.parse(e.text) as { id?: number; error?: { code: number } }) : {}))
    .find((m) => m.id === 77);
  assert.equal(refusal?.error?.code, RPC_FRAME_TOO_LARGE);
  assert.match(problems.join("\n"), /byte line .* was dropped \(id 77\)/);
  assert.equal(b.pending, 1, "no forged answer was taken");
  b.close("done");
  await assert.rejects(waiting, /done/);
});

test("a malformed header is skipped like any bad line; a misplaced attachment skips its message", async () => {
  const { a, toB, problems } = pair(() => "fine");
  toB.write("@not a header\n");
  toB.write('@[{"path":["params","missing"],"bytes":3}]\n{"jsonrpc":"2.0","id":5,"method":"m","params":{}}\nabc');
  toB.write('@[{"path":["params",0],"bytes":3}]\n{"jsonrpc":"2.0","id":6,"method":"m","params":["kept"]}\nabc');
  assert.equal(await a.call("x"), "fine");
  assert.equal(problems.length, 3, problems.join("\n"));
  assert.match(problems[0] ?? "", /not JSON: @not a header/);
  assert.match(problems[1] ?? "", /attachment path \["params","missing"\] is not in the message/);
  assert.match(problems[2] ?? "", /attachment path \["params",0\] does not end at a null/);
});
