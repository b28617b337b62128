/**
 * The web UI's onForget handler over real files and its real hub and chat runner (mock SDK): uploads matched
 * by name or by text (a term cut by a chunk border too, case-insensitively, in Chinese too), binary files by
 * name only, links and unfinished uploads never touched; replayable events and cached chat replies that
 * mention the terms. A preview counts and removes nothing; a confirmed forget removes exactly what it counted.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createMockSDK } from "@homeagent/sdk/test";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { TEST_LIMITS } from "../../../test/fixtures/webui-routes.js";
import { ChatRunner } from "./chat-runner.js";
import { webuiForget } from "./forget.js";
import { SseHub } from "./sse-hub.js";

const MIB = 1024 * 1024;

function setup() {
  const sdk = createMockSDK({ pluginName: "webui", respond: (input) => `you said: ${input.text}` });
  const hub = new SseHub(sdk, TEST_LIMITS);
  hub.start();
  const runner = new ChatRunner(sdk, TEST_LIMITS);
  const uploadsDir = join(tempDir("webui-forget-"), "uploads");
  mkdirSync(uploadsDir);
  const outside = join(tempDir("webui-forget-outside-"), "secret.txt");
  writeFileSync(outside, "pin 7391-zebra-quartz");
  const files: Record<string, string | Buffer> = {
    "pin-7391-ZEBRA-quartz.txt": "nothing inside",
    "notes.md": `${"x".repeat(MIB - 5)}7391-Zebra-Quartz and more`,
    "笔记.txt": "暗号是青鸟七三九一",
    "photo.png": Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]), Buffer.from("no text here")]),
    "data.bin": Buffer.concat([
      Buffer.from([0, 1, 2, 0]),
      Buffer.from("7391-ZEBRA-quartz", "utf16le"),
      Buffer.alloc(9),
    ]),
    ".part-0123": "7391-zebra-quartz arriving",
    "plain.txt": "nothing to see",
  };
  for (const [name, content] of Object.entries(files)) writeFileSync(join(uploadsDir, name), content);
  symlinkSync(outside, join(uploadsDir, "link-7391-zebra-quartz.txt"));
  return { sdk, hub, runner, uploadsDir, outside, forget: webuiForget({ uploadsDir, hub, runner }) };
}

test("uploads: by name, text or bytes (a binary's UTF-16 too), across a chunk border, in any case, in Chinese; never links or parts", async () => {
  const { uploadsDir, outside, forget } = setup();
  const preview = await forget({ terms: ["7391-zebra-quartz"], confirm: false });
  assert.equal(preview.counts.uploads, 3);
  assert.deepEqual(preview.samples, ["data.bin", "notes.md", "pin-7391-ZEBRA-quartz.txt"]);
  assert.equal(readdirSync(uploadsDir).length, 8, "a preview removes nothing");
  assert.deepEqual((await forget({ terms: ["青鸟七三九一"], confirm: false })).samples, ["笔记.txt"]);

  const done = await forget({ terms: ["7391-zebra-quartz"], confirm: true });
  assert.equal(done.counts.uploads, 3);
  assert.deepEqual(
    readdirSync(uploadsDir).sort(),
    [".part-0123", "link-7391-zebra-quartz.txt", "photo.png", "plain.txt", "笔记.txt"].sort(),
  );
  assert.ok(existsSync(outside), "a link's target outside the folder is never touched");
});

test("the replay ring and the cached chat replies give up what mentions the terms", async () => {
  const { sdk, hub, runner, forget } = setup();
  sdk.emit("agent_output", { requestId: "r1", content: 'My PIN is "7391-zebra-quartz"' });
  sdk.emit("agent_output", { requestId: "r2", content: "unrelated" });
  // A tool's result is a JSON string inside the event's JSON: the term is escaped twice there.
  sdk.emit("tool_call", { phase: "end", requestId: "r3", result: JSON.stringify({ note: 'pin "7391-zebra-quartz"' }) });
  const reply = await runner.chat({ source: "webui", text: "remember 7391-zebra-quartz", clientMsgId: "m1" });
  assert.match(reply.reply.content, /7391-zebra-quartz/);
  await runner.chat({ source: "webui", text: "hello", clientMsgId: "m2" });

  const preview = await forget({ terms: ['"7391-zebra-quartz"'], confirm: false });
  assert.equal(preview.counts.events, 2, "a quoted term is found in the events' JSON, escaped once and twice");
  const terms = ["7391-zebra-quartz"];
  assert.deepEqual((await forget({ terms, confirm: false })).counts, { uploads: 3, events: 2, replies: 1 });
  assert.deepEqual((await forget({ terms, confirm: true })).counts, { uploads: 3, events: 2, replies: 1 });
  assert.deepEqual((await forget({ terms, confirm: false })).counts, { uploads: 0, events: 0, replies: 0 });
  assert.equal(hub.stats().ring, 1, "the unrelated event stays");
  const again = await runner.chat({ source: "webui", text: "remember 7391-zebra-quartz", clientMsgId: "m1" });
  assert.equal(again.deduplicated, false, "a repeat of the forgotten message is answered anew, not from the cache");
});
