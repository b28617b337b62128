/**
 * MCP results as the model reads them, on real files: text parts in order, images, audio and binary
 * resources written once (by content) to uploads and named with the chat's attachment note, text resources
 * inline, links named; files over the limit are left out and said, and long text is cut and said.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { resultText } from "./result.js";

const PNG = Buffer.from("89504e470d0a1a0a0000000d49484452", "hex");

test("text, an image, audio, a text resource, a blob and a link", async () => {
  const uploadsDir = join(tempDir("mcp-result-"), "uploads");
  const out = await resultText(
    {
      content: [
        { type: "text", text: "first" },
        { type: "image", data: PNG.toString("base64"), mimeType: "image/png" },
        { type: "audio", data: Buffer.from("RIFF").toString("base64"), mimeType: "audio/wav" },
        { type: "resource", resource: { uri: "file:///a.txt", text: "inline text" } },
        { type: "resource", resource: { uri: "mem://x", blob: Buffer.from([1, 2]).toString("base64") } },
        { type: "resource_link", uri: "file:///b.md", name: "b\u200b.md", description: "a note" },
        { type: "image", data: PNG.toString("base64"), mimeType: "image/png" },
      ],
    },
    { server: "s", uploadsDir, maxChars: 10_000 },
  );
  const lines = out.text.split("\n");
  assert.equal(lines[0], "first");
  assert.match(lines[1], /^\[attached file: uploads\/mcp-s-[0-9a-f]{16}\.png \(16 B, image\/png\)\]$/);
  assert.match(lines[2], /^\[attached file: uploads\/mcp-s-[0-9a-f]{16}\.wav \(4 B, audio\/wav\)\]$/);
  assert.deepEqual(lines.slice(3, 5), ["[resource file:///a.txt]", "inline text"]);
  assert.match(
    lines[5],
    /^\[resource mem:\/\/x\] \[attached file: uploads\/mcp-s-[0-9a-f]{16}\.bin \(2 B, application\/octet-stream\)\]$/,
  );
  assert.equal(lines[6], "[resource link: b.md file:///b.md — a note]");
  assert.equal(lines[7], lines[1], "the same bytes, the same file");
  const names = readdirSync(uploadsDir).sort();
  assert.equal(names.length, 3, "no temporary files left");
  const png = names.find((n) => n.endsWith(".png")) ?? "";
  assert.deepEqual(readFileSync(join(uploadsDir, png)), PNG);
  assert.equal(statSync(join(uploadsDir, png)).mode & 0o777, 0o600);
  assert.equal(out.isError, false);
});

test("an oversized file is left out and said; long text is cut and said; an error result says so", async () => {
  const uploadsDir = join(tempDir("mcp-result-"), "uploads");
  const huge = "A".repeat(12 * 1024 * 1024);
  const out = await resultText(
    {
      content: [
        { type: "image", data: huge, mimeType: "image/png" },
        { type: "text", text: "y".repeat(5_000) },
      ],
      isError: true,
    },
    { server: "s", uploadsDir, maxChars: 2_000 },
  );
  assert.match(out.text, /^\[a image\/png file of 9\.0 MB was left out: over the 8\.0 MB a result may attach\]/);
  assert.match(out.text, /\[… cut: the result was \d+ characters; plugin\.mcp\.max_result_chars keeps 2000\]$/);
  assert.equal(out.isError, true);
  assert.deepEqual(out.files, []);
});
