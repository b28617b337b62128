/**
 * The file operations behind the tools, each through the confinement of confine.ts: reading text by lines,
 * writing atomically (a temporary file in the same folder, then a rename, the file's mode kept), editing by
 * unique replacements all or nothing, listing a folder. Every size has a limit and every refusal says why.
 */

import type { Dirent } from "node:fs";
import {
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  readSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { lstat, opendir } from "node:fs/promises";
import { basename, dirname, join, relative } from "node:path";
import { SdkError } from "@homeagent/sdk";
import { type Area, checkReal, holdFolderMaking, openChecked, openFolderChecked, resolvePath } from "./confine.js";
import { type DocumentKind, documentKind, extractDocument, MAX_DOCUMENT_BYTES } from "./documents.js";
import { binaryKind } from "./file-type.js";

const HEAD_BYTES = 8_192;

function invalid(message: string): SdkError {
  return new SdkError({ code: "invalid_argument", message });
}

/** The whole file (at most `max` bytes, else refused) read through a checked descriptor. */
function readWhole(area: Area, path: string, max: number): { text: string; mode: number } {
  const fd = openChecked(area, path, constants.O_RDONLY);
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw invalid(`${path} is not a file`);
    if (stat.size > max) {
      throw new SdkError({
        code: "too_large",
        message: `${path} has ${stat.size} bytes, more than ${max} (plugin.files.max_write_bytes)`,
      });
    }
    const buf = Buffer.alloc(stat.size);
    let got = 0;
    while (got < stat.size) {
      const n = readSync(fd, buf, got, stat.size - got, got);
      if (n === 0) break;
      got += n;
    }
    const kind = binaryKind(buf.subarray(0, Math.min(got, HEAD_BYTES)));
    if (kind) throw invalid(`${path} is ${kind} (${stat.size} bytes), not text`);
    return { text: buf.subarray(0, got).toString("utf8"), mode: stat.mode & 0o777 };
  } finally {
    closeSync(fd);
  }
}

export interface ReadResult {
  path: string;
  /** 1-based line number of the first line returned. */
  from: number;
  lines: number;
  /** -1 when the file was not read to its end. */
  totalLines: number;
  text: string;
  /** For a PDF or DOCX: what the text was taken from. */
  document?: string;
  /** Said when the text stops before the file does. */
  more?: string;
}

/**
 * Lines `offset` (1-based) to `offset + limit - 1` of a text file, at most `maxBytes` of them; of a PDF or
 * DOCX, of the text extracted from it (documents.ts). Any other binary file is refused with its type.
 */
export async function readText(
  area: Area,
  path: string,
  offset: number,
  limit: number,
  maxBytes: number,
): Promise<ReadResult> {
  const fd = openChecked(area, path, constants.O_RDONLY);
  let buf: Buffer;
  let size: number;
  let document: DocumentKind | undefined;
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw invalid(`${path} is a folder: list it with files_ls`);
    size = stat.size;
    const head = Buffer.alloc(Math.min(size, HEAD_BYTES));
    readSync(fd, head, 0, head.length, 0);
    document = documentKind(head);
    // Enough to reach past the lines asked for, without reading a huge text file whole.
    const budget = document ? Math.min(size, MAX_DOCUMENT_BYTES + 1) : Math.min(size, maxBytes * 4 + HEAD_BYTES);
    buf = Buffer.alloc(budget);
    let got = 0;
    while (got < budget) {
      const n = readSync(fd, buf, got, budget - got, got);
      if (n === 0) break;
      got += n;
    }
    buf = buf.subarray(0, got);
  } finally {
    closeSync(fd);
  }
  if (document) {
    const extracted = await extractDocument(document, buf, path);
    const what = document === "pdf" ? `PDF, ${extracted.pages} page(s)` : "DOCX";
    return pageLines(path, extracted.text.split("\n"), offset, limit, maxBytes, extracted.cut, `text of a ${what}`);
  }
  const kind = binaryKind(buf.subarray(0, HEAD_BYTES));
  if (kind) throw invalid(`${path} is ${kind} (${size} bytes), not text; files_read reads text files, PDF and DOCX`);
  return pageLines(path, buf.toString("utf8").split("\n"), offset, limit, maxBytes, buf.length < size);
}

function pageLines(
  path: string,
  all: string[],
  offset: number,
  limit: number,
  maxBytes: number,
  partial: boolean,
  document?: string,
): ReadResult {
  const start = Math.max(1, offset);
  const picked: string[] = [];
  let bytes = 0;
  for (let i = start - 1; i < all.length && picked.length < limit; i++) {
    bytes += Buffer.byteLength(all[i]) + 1;
    if (bytes > maxBytes && picked.length > 0) break;
    picked.push(all[i]);
  }
  const shownTo = start + picked.length - 1;
  const result: ReadResult = {
    path,
    from: start,
    lines: picked.length,
    totalLines: partial ? -1 : all.length,
    text: picked.join("\n"),
    ...(document ? { document } : {}),
  };
  if (shownTo < all.length || partial) {
    result.more = `more after line ${shownTo}: call files_read again with offset ${shownTo + 1}`;
  }
  return result;
}

/**
 * Writes `text` as the whole new content of `path`, atomically; the mode of an existing file is kept. The
 * temporary file, the rename and any new folders all go through the held folder (confine.ts), so a folder
 * swapped for a link meanwhile cannot put a byte elsewhere.
 */
export function writeAtomic(area: Area, path: string, text: string, maxBytes: number, mustBeNew = false): void {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length > maxBytes) {
    throw new SdkError({
      code: "too_large",
      message: `${bytes.length} bytes is more than ${maxBytes} (plugin.files.max_write_bytes)`,
    });
  }
  const target = resolvePath(area, path);
  const name = basename(target);
  const folder = holdFolderMaking(area, dirname(target), path);
  try {
    let mode = 0o600;
    const stat = lstatSync(folder.at(name), { throwIfNoEntry: false });
    if (stat) {
      if (mustBeNew) throw invalid(`${path} exists already (mode create)`);
      if (!stat.isFile()) throw invalid(`${path} is not a file`);
      mode = stat.mode & 0o777;
    }
    const temp = `.${name}.${process.pid}.${Date.now()}.tmp`;
    const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    const fd = openSync(folder.at(temp), flags, mode);
    try {
      fchmodSync(fd, mode);
      let off = 0;
      while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
      fsyncSync(fd);
    } catch (err) {
      closeSync(fd);
      unlinkSync(folder.at(temp));
      throw err;
    }
    closeSync(fd);
    try {
      renameSync(folder.at(temp), folder.at(name));
    } catch (err) {
      unlinkSync(folder.at(temp));
      throw err;
    }
  } finally {
    folder.close();
  }
}

export type WriteMode = "overwrite" | "append" | "insert" | "create";

export function writeFile(
  area: Area,
  path: string,
  content: string,
  mode: WriteMode,
  line: number | undefined,
  maxBytes: number,
): string {
  if (mode === "overwrite" || mode === "create") {
    writeAtomic(area, path, content, maxBytes, mode === "create");
    return `${mode === "create" ? "created" : "wrote"} ${path} (${Buffer.byteLength(content)} bytes)`;
  }
  const old = existing(area, path, maxBytes);
  if (mode === "append") {
    writeAtomic(area, path, old + content, maxBytes);
    return `appended ${Buffer.byteLength(content)} bytes to ${path}`;
  }
  const lines = old.split("\n");
  if (line === undefined || !Number.isInteger(line) || line < 1 || line > lines.length + 1) {
    throw invalid(`insert needs line, from 1 to ${lines.length + 1} (the line the content goes before)`);
  }
  lines.splice(line - 1, 0, ...content.split("\n"));
  writeAtomic(area, path, lines.join("\n"), maxBytes);
  return `inserted ${content.split("\n").length} line(s) into ${path} before line ${line}`;
}

function existing(area: Area, path: string, maxBytes: number): string {
  try {
    return readWhole(area, path, maxBytes).text;
  } catch (err) {
    if ((err as { code?: string }).code === "not_found") return "";
    throw err;
  }
}

export interface Edit {
  old: string;
  new: string;
}

/** Every `old` must occur exactly once; all are applied, or none (nothing is written on a refusal). */
export function editFile(area: Area, path: string, edits: Edit[], maxBytes: number): string {
  if (!Array.isArray(edits) || edits.length === 0 || edits.length > 100)
    throw invalid("edits is a list of 1 to 100 {old, new}");
  let text = readWhole(area, path, maxBytes).text;
  for (const [i, e] of edits.entries()) {
    if (typeof e?.old !== "string" || typeof e?.new !== "string" || e.old === "") {
      throw invalid(`edit ${i + 1}: needs a non-empty old and a new text`);
    }
    const first = text.indexOf(e.old);
    if (first === -1) throw invalid(`edit ${i + 1}: its old text is not in ${path}; nothing was changed`);
    if (text.indexOf(e.old, first + 1) !== -1) {
      throw invalid(
        `edit ${i + 1}: its old text occurs more than once in ${path}; give more context. Nothing was changed`,
      );
    }
    text = text.slice(0, first) + e.new + text.slice(first + e.old.length);
  }
  writeAtomic(area, path, text, maxBytes);
  return `edited ${path}: ${edits.length} change(s)`;
}

export interface Entry {
  name: string;
  type: "file" | "folder" | "link" | "other";
  size: number;
  modifiedAt: number;
}

/** Entries of one folder read at most: the list is sorted, so a huge folder is sorted in part. */
const MAX_LISTED = 10_000;

/** The first `max` entries of a folder, read one by one: a folder of a million files is not read whole. */
async function firstEntries(path: string, max: number): Promise<Dirent[]> {
  const dir = await opendir(path);
  const out: Dirent[] = [];
  try {
    for (let d = await dir.read(); d !== null && out.length < max; d = await dir.read()) out.push(d);
  } finally {
    await dir.close();
  }
  return out;
}

/** A folder's entries, sorted, at most `limit`; links are described as links, never followed. */
export async function listFolder(
  area: Area,
  path: string,
  limit: number,
): Promise<{ path: string; entries: Entry[]; more?: number }> {
  const folder = openFolderChecked(area, path);
  try {
    const names = await firstEntries(folder.at("."), MAX_LISTED);
    const entries: Entry[] = [];
    for (const d of names.sort((a, b) => a.name.localeCompare(b.name))) {
      if (entries.length >= limit) break;
      // What the tools never reach is not listed either.
      try {
        checkReal(area, join(folder.real, d.name), d.name);
      } catch {
        continue;
      }
      const s = await lstat(folder.at(d.name)).catch(() => undefined);
      const type = d.isSymbolicLink() ? "link" : d.isDirectory() ? "folder" : d.isFile() ? "file" : "other";
      entries.push({ name: d.name, type, size: s?.size ?? 0, modifiedAt: Math.round(s?.mtimeMs ?? 0) });
    }
    const shown = relative(area.root, folder.real) || ".";
    return names.length > entries.length
      ? { path: shown, entries, more: names.length - entries.length }
      : { path: shown, entries };
  } finally {
    folder.close();
  }
}
