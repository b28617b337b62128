/**
 * Text from the documents users upload most — PDF and DOCX — for files_read, extracted in a worker thread
 * (document-worker.js) that is terminated at its time limit and dies at its memory limit, bounded in input
 * size, pages and output. A corrupt document is refused with the reader's own reason.
 */
import { Worker } from "node:worker_threads";
import { SdkError } from "@homeagent/sdk";

/** The largest document read. */
export const MAX_DOCUMENT_BYTES = 50 * 1024 * 1024;
const MAX_PAGES = 500;
const MAX_CHARS = 2_000_000;
const TIME_LIMIT_MS = 30_000;
const MEMORY_LIMIT_MB = 256;
const WORKER_URL = new URL("./document-worker.js", import.meta.url);

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

export function extractDocument(kind: DocumentKind, bytes: Buffer, name: string): Promise<Extracted> {
  if (bytes.length > MAX_DOCUMENT_BYTES) {
    return Promise.reject(
      new SdkError({
        code: "too_large",
        message: `${name} has ${bytes.length} bytes; documents of at most ${MAX_DOCUMENT_BYTES} are read`,
      }),
    );
  }
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_URL, {
      workerData: { kind, bytes, maxPages: MAX_PAGES, maxChars: MAX_CHARS },
      resourceLimits: { maxOldGenerationSizeMb: MEMORY_LIMIT_MB, maxYoungGenerationSizeMb: 32 },
      stdout: true,
      stderr: true,
    });
    // pdf.js talks on the console; nobody reads it.
    worker.stdout.resume();
    worker.stderr.resume();
    let settled = false;
    const done = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      fn();
    };
    const timer = setTimeout(
      () =>
        done(() =>
          reject(
            new SdkError({
              code: "timeout",
              message: `reading ${name} took over ${TIME_LIMIT_MS / 1000} s; it was given up`,
            }),
          ),
        ),
      TIME_LIMIT_MS,
    );
    worker.once("message", (msg: { ok: boolean; text?: string; pages?: number; cut?: boolean; error?: string }) =>
      done(() =>
        msg.ok
          ? resolve({ text: msg.text ?? "", pages: msg.pages, cut: msg.cut === true })
          : reject(
              new SdkError({
                code: "invalid_argument",
                message: `${name} could not be read as a ${kind === "pdf" ? "PDF" : "DOCX"} document: ${msg.error}`,
              }),
            ),
      ),
    );
    worker.once("error", (err) =>
      done(() =>
        reject(
          new SdkError({
            code: "too_large",
            message: `reading ${name} failed (${err.message}); it may be too large or damaged`,
            cause: err,
          }),
        ),
      ),
    );
    worker.once("exit", (code) =>
      done(() =>
        reject(new SdkError({ code: "internal_error", message: `the document reader stopped (exit ${code})` })),
      ),
    );
  });
}
