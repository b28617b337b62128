/**
 * Text from the documents users upload most — PDF and DOCX — for files_read. The readers (pdf.js, mammoth)
 * parse hostile input, so they run in a child process (document-worker.js), not in the daemon and not in a
 * worker thread: a thread's resourceLimits cap only the V8 heap, and a zip-bomb DOCX inflating outside it
 * took the daemon to 1.9 GB. The child's heap is capped by flag, its resident memory is watched and it is
 * SIGKILLed over the limit or at the time limit, which bounds it whatever the document declares. A DOCX
 * whose ZIP directory already declares too much is refused before anything starts (zip-sizes.ts). At most
 * two children run at once and a few requests wait, so a burst of uploads cannot fork one child each. The
 * child runs under Node's permission model: it may read the installed code and nothing else.
 */
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Readable } from "node:stream";
import { fileURLToPath } from "node:url";
import { SdkError } from "@homeagent/sdk";
import { checkZipSizes } from "./zip-sizes.js";

/** The largest document read. */
export const MAX_DOCUMENT_BYTES = 50 * 1024 * 1024;
const MAX_PAGES = 500;
const MAX_CHARS = 2_000_000;
/** Its JSON, \u-escaped at worst (6 bytes a character): more means the child misbehaved. */
const MAX_RESULT_BYTES = 16 * 1024 * 1024;
/** How often the child's resident memory is read; it grows by tens of MB between two reads at most. */
const POLL_MS = 50;
/** Plain JavaScript beside this file, in src/ and in dist/ alike (scripts/copy-assets.mjs). */
const WORKER_PATH = fileURLToPath(new URL("./document-worker.js", import.meta.url));
/** The installed package the worker and its readers (unpdf, mammoth) are in: all the reader may read. */
const PACKAGE_ROOT = packageRoot(dirname(WORKER_PATH));

export interface ReaderLimits {
  /** Children extracting at once. */
  concurrency: number;
  /** Requests waiting for a child; any more are refused. */
  queue: number;
  /** The child's resident memory; its V8 heap gets half, the rest is for buffers outside it. */
  memoryMb: number;
  timeLimitMs: number;
}

const READER_LIMITS: ReaderLimits = { concurrency: 2, queue: 8, memoryMb: 512, timeLimitMs: 30_000 };

export type DocumentKind = "pdf" | "docx";

/** The kind of document these bytes are, if one files_read extracts. */
export function documentKind(head: Buffer): DocumentKind | undefined {
  if (head.subarray(0, 5).toString("latin1") === "%PDF-") return "pdf";
  // A DOCX is a ZIP whose entries include word/document.xml (named in its local headers near the start).
  if (head[0] === 0x50 && head[1] === 0x4b && head.includes("word/")) return "docx";
  return undefined;
}

export interface Extracted {
  text: string;
  pages?: number;
  /** The document held more text than is kept. */
  cut: boolean;
}

export type DocumentReader = (kind: DocumentKind, bytes: Buffer, name: string) => Promise<Extracted>;

/** A reader with its own slots and queue; the daemon's one is extractDocument. */
export function createDocumentReader(overrides: Partial<ReaderLimits> = {}): DocumentReader {
  const limits = { ...READER_LIMITS, ...overrides };
  let running = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return async (kind, bytes, name) => {
    if (bytes.length > MAX_DOCUMENT_BYTES) {
      throw new SdkError({
        code: "too_large",
        message: `${name} has ${bytes.length} bytes; documents of at most ${MAX_DOCUMENT_BYTES} are read`,
      });
    }
    if (kind === "docx") checkZipSizes(bytes, name);
    if (running < limits.concurrency) running++;
    else if (waiting.length < limits.queue) await new Promise<void>((resolve) => waiting.push(resolve));
    else {
      throw new SdkError({
        code: "queue_full",
        message: `${running + waiting.length} documents are being read already; try ${name} again shortly`,
      });
    }
    try {
      return await extractInChild(kind, bytes, name, limits);
    } finally {
      release();
    }
  };
}

export const extractDocument: DocumentReader = createDocumentReader();

/** Settles once the child is gone, so its slot is free only when its memory is. */
function extractInChild(kind: DocumentKind, bytes: Buffer, name: string, limits: ReaderLimits): Promise<Extracted> {
  const heapMb = Math.floor(limits.memoryMb / 2);
  const notStarted = (err: Error) =>
    new SdkError({ code: "internal_error", message: `the document reader did not start: ${err.message}`, cause: err });
  return new Promise((resolve, reject) => {
    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(
        process.execPath,
        [
          `--max-old-space-size=${heapMb}`,
          // A parser bug must not read the user's files (the credentials least of all) or start programs:
          // the reader may read only the installed code it runs.
          "--experimental-permission",
          `--allow-fs-read=${PACKAGE_ROOT}`,
          "--no-warnings=ExperimentalWarning",
          WORKER_PATH,
          kind,
          String(MAX_PAGES),
          String(MAX_CHARS),
        ],
        // pdf.js talks on the console, so the result comes on a pipe of its own (fd 3) and stdout is nobody's.
        { stdio: ["pipe", "ignore", "ignore", "pipe"], env: childEnv() },
      );
    } catch (err) {
      return reject(notStarted(err as Error));
    }
    let stopped: "memory" | "time" | "output" | undefined;
    const stop = (why: typeof stopped) => {
      if (stopped) return;
      stopped = why;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(() => stop("time"), limits.timeLimitMs);
    const watch = setInterval(() => {
      const rss = child.pid === undefined ? undefined : residentBytes(child.pid);
      // Without /proc (or once the child is gone) the heap flag and the time limit are the bounds left.
      if (rss === undefined) clearInterval(watch);
      else if (rss > limits.memoryMb * 1024 * 1024) stop("memory");
    }, POLL_MS);
    const result: Buffer[] = [];
    let resultBytes = 0;
    (child.stdio[3] as Readable | null)?.on("data", (chunk: Buffer) => {
      resultBytes += chunk.length;
      if (resultBytes > MAX_RESULT_BYTES) stop("output");
      else result.push(chunk);
    });
    // A child that dies before reading it all breaks the pipe; its exit says why.
    child.stdin?.on("error", () => {});
    child.stdin?.end(bytes);

    let settled = false;
    const settle = (err: SdkError | undefined, value?: Extracted) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearInterval(watch);
      if (err) reject(err);
      else resolve(value as Extracted);
    };
    // Out of processes or descriptors: no child, and perhaps no pipes either.
    child.once("error", (err) => settle(notStarted(err)));
    child.once("close", (code, signal) => {
      if (stopped === "memory" || signal === "SIGABRT") {
        // SIGABRT: V8 aborts the child when its heap is full.
        const needed = stopped === "memory" ? `${limits.memoryMb} MB of memory` : `${heapMb} MB of heap`;
        return settle(
          new SdkError({
            code: "too_large",
            message: `reading ${name} needed over ${needed} and was stopped; split the document or save it as plain text`,
          }),
        );
      }
      if (stopped === "time") {
        return settle(
          new SdkError({
            code: "timeout",
            message: `reading ${name} took over ${limits.timeLimitMs / 1000} s and was stopped; split the document or save it as plain text`,
          }),
        );
      }
      if (stopped === "output") {
        return settle(
          new SdkError({
            code: "internal_error",
            message: `the document reader sent back over ${MAX_RESULT_BYTES} bytes for ${name} and was stopped`,
          }),
        );
      }
      let msg: { ok: boolean; text?: string; pages?: number; cut?: boolean; error?: string } | undefined;
      try {
        msg = JSON.parse(Buffer.concat(result).toString("utf8"));
      } catch {
        msg = undefined;
      }
      if (!msg) {
        const how = signal ? `signal ${signal}` : `exit ${code}`;
        return settle(new SdkError({ code: "internal_error", message: `the document reader stopped (${how})` }));
      }
      if (msg.ok) return settle(undefined, { text: msg.text ?? "", pages: msg.pages, cut: msg.cut === true });
      settle(
        new SdkError({
          code: "invalid_argument",
          message: `${name} could not be read as a ${kind === "pdf" ? "PDF" : "DOCX"} document: ${msg.error}`,
        }),
      );
    });
  });
}

/** The nearest folder above `from` whose node_modules holds the readers. */
function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, "node_modules", "mammoth"))) return dir;
    if (dirname(dir) === dir) return from;
  }
}

/** The daemon's environment without its own variables: the reader gets none of its keys or settings. */
function childEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("HOMEAGENT_")));
}

/** A process's resident memory in bytes, from /proc (Linux); undefined where there is none. */
function residentBytes(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "latin1"));
    return kb ? Number(kb[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
