/**
 * files_read on documents: the text of a PDF and of a DOCX comes back by lines, like a text file's; a
 * corrupt document, one over the size limit and a zip bomb are refused with a reason, and nothing hangs.
 * The readers run in a child process bounded in memory, time and number; those bounds are lowered here
 * (createDocumentReader) so that a bomb whose directory lies is stopped in a second, not at 512 MB.
 */
import assert from "node:assert/strict";
import { closeSync, existsSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createMockSDK } from "@homeagent/sdk/test";
import { makeDocx, makeDocxBomb, makePdf } from "../../../test/fixtures/documents.js";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { createDocumentReader, MAX_DOCUMENT_BYTES } from "./documents.js";
import { createFilesPlugin } from "./plugin.js";

async function start() {
  const data = tempDir("ha-docs-");
  const sdk = createMockSDK({ pluginName: "files", daemonDataDir: data });
  await createFilesPlugin().start(sdk);
  const read = (path: string) => sdk.callTool("files_read", { path }) as Promise<Record<string, unknown>>;
  return { ws: join(data, "workspace"), read };
}

const code = (expected: string) => (err: unknown) => {
  assert.equal((err as { code?: string }).code, expected, String(err));
  return true;
};

test("the text of a PDF and of a DOCX is read like a text file's", async () => {
  const { ws, read } = await start();
  writeFileSync(join(ws, "report.pdf"), makePdf("Quarterly report: 42 apples"));
  writeFileSync(join(ws, "letter.docx"), makeDocx(["Dear Ada,", "the 菠萝 arrived."]));
  const pdf = await read("report.pdf");
  assert.equal(pdf.document, "text of a PDF, 1 page(s)");
  assert.match(String(pdf.text), /Quarterly report: 42 apples/);
  const docx = await read("letter.docx");
  assert.equal(docx.document, "text of a DOCX");
  assert.match(String(docx.text), /Dear Ada,\n+the 菠萝 arrived\./);
});

test("a corrupt PDF and one over the size limit are refused clearly", async () => {
  const { ws, read } = await start();
  writeFileSync(join(ws, "broken.pdf"), "%PDF-1.4\nthis is no pdf at all\n");
  await assert.rejects(read("broken.pdf"), /broken.pdf could not be read as a PDF document: /);
  const big = join(ws, "huge.pdf");
  const fd = openSync(big, "w");
  writeSync(fd, "%PDF-1.4\n");
  writeSync(fd, "x", MAX_DOCUMENT_BYTES + 10);
  closeSync(fd);
  await assert.rejects(read("huge.pdf"), code("too_large"));
});

test("a zip-bomb DOCX is refused by what it declares, before any reader starts", async () => {
  const { ws, read } = await start();
  const bomb = makeDocxBomb(1024);
  assert.ok(bomb.length < 2 * 1024 * 1024, `the bomb is small: ${bomb.length} bytes`);
  writeFileSync(join(ws, "bomb.docx"), bomb);
  await assert.rejects(read("bomb.docx"), (err: unknown) => {
    code("too_large")(err);
    assert.match(String(err), /bomb\.docx was refused unread: its part "word\/document\.xml" declares 1024\.0 MB/);
    return true;
  });
  // A reader with no slot and no queue refuses whatever reaches them: the bomb never got that far.
  const noSlots = createDocumentReader({ concurrency: 0, queue: 0 });
  await assert.rejects(noSlots("docx", bomb, "bomb.docx"), code("too_large"));
  await assert.rejects(noSlots("docx", makeDocx(["fine"]), "fine.docx"), code("queue_full"));
});

test("a DOCX that is no valid ZIP is refused before any reader starts", async () => {
  const { ws, read } = await start();
  writeFileSync(join(ws, "fake.docx"), Buffer.from("PK\x03\x04 word/document.xml and then nothing of a zip"));
  await assert.rejects(
    read("fake.docx"),
    /fake\.docx is not a readable DOCX: its ZIP end-of-directory record is missing/,
  );
  const noSlots = createDocumentReader({ concurrency: 0, queue: 0 });
  const cut = makeDocx(["cut short"]).subarray(0, 200);
  await assert.rejects(noSlots("docx", cut, "cut.docx"), code("invalid_argument"));
});

test("a bomb whose directory lies about its size is killed at the reader's memory limit", {
  skip: !existsSync("/proc/self/status") && "the memory watchdog reads /proc",
}, async () => {
  // Declares twice its compressed size, a ratio no check can fault, and inflates to 1 GB.
  const liar = makeDocxBomb(1024, 2 * 1024 * 1024);
  const read = createDocumentReader({ concurrency: 1, memoryMb: 200 });
  const started = Date.now();
  await assert.rejects(read("docx", liar, "liar.docx"), (err: unknown) => {
    code("too_large")(err);
    assert.match(String(err), /reading liar\.docx needed over 200 MB of memory and was stopped/);
    return true;
  });
  assert.ok(Date.now() - started < 15_000, "stopped well before the time limit");
  // The killed child's slot is free again.
  const after = await read("docx", makeDocx(["still reading"]), "after.docx");
  assert.match(after.text, /still reading/);
});

test("a reader over its time limit is killed and says so", async () => {
  // No child starts, reads its input and loads mammoth in 1 ms.
  const read = createDocumentReader({ timeLimitMs: 1 });
  await assert.rejects(read("docx", makeDocx(["slow"]), "slow.docx"), (err: unknown) => {
    code("timeout")(err);
    assert.match(String(err), /reading slow\.docx took over 0\.001 s and was stopped/);
    return true;
  });
});

test("extractions beyond the slots wait in a bounded queue; beyond it they are refused", async () => {
  const read = createDocumentReader({ concurrency: 1, queue: 1 });
  const docx = (word: string) => read("docx", makeDocx([word]), `${word}.docx`);
  const first = docx("first");
  const second = docx("second");
  await assert.rejects(docx("third"), (err: unknown) => {
    code("queue_full")(err);
    assert.match(String(err), /2 documents are being read already; try third\.docx again shortly/);
    return true;
  });
  assert.match((await first).text, /first/);
  assert.match((await second).text, /second/);
  assert.match((await docx("fourth")).text, /fourth/);
});
