/**
 * The ZIP directory check that stands before the DOCX reader: a document's declared sizes pass, a bomb's
 * are refused by ratio or total, and a directory JSZip would read differently — cut short, miscounted,
 * misplaced, ZIP64 — is refused as malformed, with the reason said.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { makeDocx, makeDocxBomb } from "../../../test/fixtures/documents.js";
import { checkZipSizes, ZIP_LIMITS, type ZipLimits } from "./zip-sizes.js";

const docx = makeDocx(["Dear Ada,", "the pineapples arrived."]);
/** Offsets in `docx`: it has no comment, so its end record is its last 22 bytes. */
const END = docx.length - 22;
const DIRECTORY = docx.readUInt32LE(END + 16);

/** `docx` with little-endian fields (offset → [bytes, value]) overwritten. */
function patched(fields: Record<number, [2 | 4, number]>): Buffer {
  const zip = Buffer.from(docx);
  for (const [at, [bytes, value]] of Object.entries(fields)) zip.writeUIntLE(value, Number(at), bytes);
  return zip;
}

function refused(zip: Buffer, code: string, message: RegExp, limits: ZipLimits = ZIP_LIMITS) {
  assert.throws(
    () => checkZipSizes(zip, "x.docx", limits),
    (err: unknown) => {
      assert.equal((err as { code?: string }).code, code);
      assert.match(String(err), message);
      return true;
    },
  );
}

test("a real document's directory passes, also with a comment after it", () => {
  checkZipSizes(docx, "x.docx");
  const commented = Buffer.concat([docx, Buffer.from("a comment")]);
  commented.writeUInt16LE(9, END + 20);
  checkZipSizes(commented, "x.docx");
});

test("a bomb is refused by its ratio, big parts by their total, many parts by their number", () => {
  const bomb = makeDocxBomb(64);
  refused(
    bomb,
    "too_large",
    /x\.docx was refused unread: its part "word\/document\.xml" declares 64\.0 MB uncompressed from \d+ bytes, over 200:1/,
  );
  refused(bomb, "too_large", /its parts declare 64\.0 MB uncompressed; documents of at most 32\.0 MB are read/, {
    ...ZIP_LIMITS,
    maxRatio: 10_000,
    maxTotalBytes: 32 * 1024 * 1024,
  });
  refused(docx, "too_large", /it has 3 ZIP entries; documents of at most 2 are read/, { ...ZIP_LIMITS, maxEntries: 2 });
});

test("a malformed directory is refused with what is wrong", () => {
  const missing = /x\.docx is not a readable DOCX: its ZIP end-of-directory record is missing/;
  refused(Buffer.from("PK\x03\x04 nothing more"), "invalid_argument", missing);
  refused(docx.subarray(0, docx.length - 5), "invalid_argument", missing);
  const counted = (n: number) => patched({ [END + 8]: [2, n], [END + 10]: [2, n] });
  refused(counted(2), "invalid_argument", /its ZIP directory holds more than the 2 entries it declares/);
  refused(counted(4), "invalid_argument", /its ZIP directory declares 4 entries but holds 3/);
  refused(patched({ [END + 16]: [4, DIRECTORY + 1] }), "invalid_argument", /not where its end record says/);
  refused(patched({ [END + 4]: [2, 1] }), "invalid_argument", /it spans several ZIP disks/);
  refused(patched({ [DIRECTORY]: [4, 0] }), "invalid_argument", /ZIP directory entry 1 is damaged/);
  refused(patched({ [DIRECTORY + 28]: [2, 0xffff] }), "invalid_argument", /entry 1 runs past the directory/);
});

test("ZIP64, which JSZip would read from other fields, is refused", () => {
  const zip64 = /it uses ZIP64, which no document under 4 GB needs/;
  refused(patched({ [END + 10]: [2, 0xffff] }), "invalid_argument", zip64);
  refused(patched({ [END + 12]: [4, 0xffffffff] }), "invalid_argument", zip64);
  refused(patched({ [DIRECTORY + 24]: [4, 0xffffffff] }), "invalid_argument", zip64);
});
