/**
 * What the web UI keeps of the user's words outside memory, and gives up when the user forgets something:
 * uploaded files whose name or text mentions it (`<data>/workspace/uploads`), events in the SSE replay ring
 * (a reconnecting browser would be sent them again), and answered chats kept for a repeated
 * `client_msg_id`. Registered as the plugin's `onForget` handler; the daemon asks it for the preview
 * (counts and file names) and then to remove.
 */
import { open, readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import { type ForgetHandler, foldForForget, forgetMatcher } from "@homeagent/sdk";
import type { ChatRunner } from "./chat-runner.js";
import type { SseHub } from "./sse-hub.js";

export interface WebuiForgetDeps {
  uploadsDir: string;
  hub: SseHub;
  runner: ChatRunner;
}

const CHUNK_BYTES = 1024 * 1024;
/** Text carried from one chunk to the next: longer than any term a forget takes (its query is bounded). */
const KEEP_CHARS = 64 * 1024;
const SAMPLES = 8;
const TEMP_PREFIX = ".part-";

export function webuiForget(deps: WebuiForgetDeps): ForgetHandler {
  return async ({ terms, confirm }) => {
    const mentions = forgetMatcher(terms);
    const decoder = new TextDecoder();
    const uploads = await matchingUploads(deps.uploadsDir, terms);
    if (confirm) for (const name of uploads) await unlink(join(deps.uploadsDir, name)).catch(() => {});
    return {
      counts: {
        uploads: uploads.length,
        events: deps.hub.forget((frame) => mentions(decoder.decode(frame)), confirm),
        replies: deps.runner.forget(mentions, confirm),
      },
      samples: uploads.slice(0, SAMPLES),
    };
  };
}

/** One term as an upload is searched for: as text, and as the bytes of its UTF-8 and UTF-16 forms. */
interface Needle {
  inText: (text: string) => boolean;
  bytes: Buffer[];
}

function needleOf(term: string): Needle {
  const folded = foldForForget(term).trim();
  return { inText: forgetMatcher([term]), bytes: [Buffer.from(folded, "utf8"), Buffer.from(folded, "utf16le")] };
}

/** Uploaded files whose name, or whose content, mentions every term. */
async function matchingUploads(dir: string, terms: readonly string[]): Promise<string[]> {
  let names: string[];
  try {
    // Regular files only: a link planted there is not followed out of the folder.
    names = (await readdir(dir, { withFileTypes: true }))
      .filter((e) => e.isFile() && !e.name.startsWith(TEMP_PREFIX))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
  const needles = terms.map(needleOf);
  const found: string[] = [];
  for (const name of names) {
    const left = needles.filter((n) => !n.inText(name));
    if (left.length === 0 || (await contentMentions(join(dir, name), left))) found.push(name);
  }
  return found;
}

/**
 * Whether the file holds every needle, read a chunk at a time (an upload may be 64 MB), the end of each
 * chunk carried over so a term cut by a chunk border is still found. Looked for as text (any script, any
 * case) and as bytes — UTF-8 and UTF-16, ASCII letters in any case — so the readable parts of a binary file
 * (a PDF's, a spreadsheet's) count too.
 */
async function contentMentions(path: string, needles: readonly Needle[]): Promise<boolean> {
  const handle = await open(path, "r").catch(() => null);
  if (!handle) return false;
  try {
    const decoder = new TextDecoder();
    const keepBytes = Math.max(...needles.flatMap((n) => n.bytes.map((b) => b.length))) - 1;
    const missing = new Set(needles);
    const buf = Buffer.alloc(CHUNK_BYTES);
    let text = "";
    let bytes: Buffer = Buffer.alloc(0);
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) return false;
      const chunk = buf.subarray(0, bytesRead);
      text = text.slice(-KEEP_CHARS) + decoder.decode(chunk, { stream: true });
      bytes = asciiLower(Buffer.concat([bytes.subarray(Math.max(0, bytes.length - keepBytes)), chunk]));
      for (const n of missing) {
        if (n.inText(text) || n.bytes.some((form) => bytes.includes(form))) missing.delete(n);
      }
      if (missing.size === 0) return true;
    }
  } finally {
    await handle.close();
  }
}

/** The ASCII capitals of `buf` made small, in place (the bytes of other letters are left as they are). */
function asciiLower(buf: Buffer): Buffer {
  for (let i = 0; i < buf.length; i++) if (buf[i] >= 0x41 && buf[i] <= 0x5a) buf[i] |= 0x20;
  return buf;
}
