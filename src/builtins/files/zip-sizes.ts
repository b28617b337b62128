/**
 * What a DOCX (a ZIP) declares it inflates to, read from its central directory before any reader inflates
 * a byte: a zip bomb — a small file whose word/document.xml inflates to gigabytes — is refused here, in
 * the daemon, in microseconds. The walk follows the directory the way JSZip (mammoth's unzipper) reads it
 * and refuses whatever JSZip would read differently (data before or after the directory, counts that do
 * not match, ZIP64, several disks), so the sizes checked are the sizes it will use. Declared sizes can
 * lie; the extraction child's memory watchdog (documents.ts) is the bound that holds when they do.
 */
import { SdkError } from "@homeagent/sdk";

export interface ZipLimits {
  /** Entries in the directory; a document has a few dozen, a few hundred with many images. */
  maxEntries: number;
  /** All entries' uncompressed sizes together. */
  maxTotalBytes: number;
  /** Uncompressed to compressed, for an entry over `ratioFromBytes`: text XML deflates 5–50:1. */
  maxRatio: number;
  ratioFromBytes: number;
}

export const ZIP_LIMITS: ZipLimits = {
  maxEntries: 10_000,
  maxTotalBytes: 100 * 1024 * 1024,
  maxRatio: 200,
  ratioFromBytes: 1024 * 1024,
};

const END_SIGNATURE = 0x06054b50;
const END_BYTES = 22;
const ENTRY_SIGNATURE = 0x02014b50;
const ENTRY_BYTES = 46;
/** A field at its 16- or 32-bit maximum means "see the ZIP64 record". */
const ZIP64_16 = 0xffff;
const ZIP64_32 = 0xffffffff;

interface ZipEntry {
  name: string;
  compressed: number;
  uncompressed: number;
}

/** Refuses `zip` (named `name` in messages) if its directory is malformed or declares more than `limits`. */
export function checkZipSizes(zip: Buffer, name: string, limits: ZipLimits = ZIP_LIMITS): void {
  let total = 0;
  for (const entry of centralDirectory(zip, name, limits.maxEntries)) {
    total += entry.uncompressed;
    if (entry.uncompressed > limits.ratioFromBytes && entry.uncompressed > entry.compressed * limits.maxRatio) {
      throw new SdkError({
        code: "too_large",
        message:
          `${name} was refused unread: its part ${entry.name} declares ${mb(entry.uncompressed)} uncompressed ` +
          `from ${entry.compressed} bytes, over ${limits.maxRatio}:1 — the mark of a zip bomb. If the document ` +
          "is genuine, save it again from its editor or as PDF",
      });
    }
  }
  if (total > limits.maxTotalBytes) {
    throw new SdkError({
      code: "too_large",
      message:
        `${name} was refused unread: its parts declare ${mb(total)} uncompressed; documents of at most ` +
        `${mb(limits.maxTotalBytes)} are read. Split it into smaller documents or save it as PDF`,
    });
  }
}

/** The directory's entries, with its end record found where JSZip finds it: the last one in the file. */
function centralDirectory(zip: Buffer, name: string, maxEntries: number): ZipEntry[] {
  const malformed = (why: string) =>
    new SdkError({
      code: "invalid_argument",
      message: `${name} is not a readable DOCX: ${why}. Save it again from its editor (Word, LibreOffice) and retry`,
    });
  // The record is 22 bytes and a comment of at most 65,535: a signature further back is no end record.
  let end = -1;
  for (let at = zip.length - 4; at >= Math.max(0, zip.length - END_BYTES - ZIP64_16); at--) {
    if (zip.readUInt32LE(at) === END_SIGNATURE) {
      end = at;
      break;
    }
  }
  if (end < 0 || end + END_BYTES > zip.length) throw malformed("its ZIP end-of-directory record is missing");
  const disk = zip.readUInt16LE(end + 4);
  const directoryDisk = zip.readUInt16LE(end + 6);
  const onThisDisk = zip.readUInt16LE(end + 8);
  const count = zip.readUInt16LE(end + 10);
  const size = zip.readUInt32LE(end + 12);
  const offset = zip.readUInt32LE(end + 16);
  if ([disk, directoryDisk, onThisDisk, count].includes(ZIP64_16) || size === ZIP64_32 || offset === ZIP64_32) {
    throw malformed("it uses ZIP64, which no document under 4 GB needs");
  }
  if (disk !== 0 || directoryDisk !== 0 || onThisDisk !== count) throw malformed("it spans several ZIP disks");
  if (count > maxEntries) {
    throw new SdkError({
      code: "too_large",
      message: `${name} was refused unread: it has ${count} ZIP entries; documents of at most ${maxEntries} are read`,
    });
  }
  // The directory ends where the end record starts: JSZip would shift every offset otherwise.
  if (offset + size !== end) throw malformed("its ZIP directory is not where its end record says");
  const entries: ZipEntry[] = [];
  for (let at = offset; at < end; ) {
    if (entries.length === count) throw malformed(`its ZIP directory holds more than the ${count} entries it declares`);
    if (at + ENTRY_BYTES > end || zip.readUInt32LE(at) !== ENTRY_SIGNATURE) {
      throw malformed(`ZIP directory entry ${entries.length + 1} is damaged`);
    }
    const compressed = zip.readUInt32LE(at + 20);
    const uncompressed = zip.readUInt32LE(at + 24);
    const nameBytes = zip.readUInt16LE(at + 28);
    const next = at + ENTRY_BYTES + nameBytes + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
    if (next > end) throw malformed(`ZIP directory entry ${entries.length + 1} runs past the directory`);
    if (compressed === ZIP64_32 || uncompressed === ZIP64_32 || zip.readUInt32LE(at + 42) === ZIP64_32) {
      throw malformed("it uses ZIP64, which no document under 4 GB needs");
    }
    const entryName = zip.toString("utf8", at + ENTRY_BYTES, at + ENTRY_BYTES + Math.min(nameBytes, 200));
    entries.push({ name: JSON.stringify(entryName), compressed, uncompressed });
    at = next;
  }
  if (entries.length !== count)
    throw malformed(`its ZIP directory declares ${count} entries but holds ${entries.length}`);
  return entries;
}

function mb(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
