/**
 * files_read on documents: the text of a PDF and of a DOCX comes back by lines, like a text file's; a
 * corrupt PDF and one over the size limit are refused with a reason, and nothing hangs.
 */
import assert from "node:assert/strict";
import { closeSync, openSync, writeFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createMockSDK } from "@homeagent/sdk/test";
import { makeDocx, makePdf } from "../../../test/fixtures/documents.js";
import { tempDir } from "../../../test/fixtures/temp-dir.js";
import { MAX_DOCUMENT_BYTES } from "./documents.js";
import { createFilesPlugin } from "./plugin.js";

async function start() {
  const data = tempDir("ha-docs-");
  const sdk = createMockSDK({ pluginName: "files", daemonDataDir: data });
  await createFilesPlugin().start(sdk);
  const read = (path: string) => sdk.callTool("files_read", { path }) as Promise<Record<string, unknown>>;
  return { ws: join(data, "workspace"), read };
}

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
  await assert.rejects(read("huge.pdf"), (err: unknown) => (err as { code?: string }).code === "too_large");
});
