/**
 * What the web UI keeps of the user's words outside memory, and gives up when the user forgets something:
 * uploaded files whose name or text mentions it (`<data>/workspace/uploads`), events in the SSE replay ring
 * (a reconnecting browser would be sent them again), and answered chats kept for a repeated
 * `client_msg_id`. Registered as the plugin's `onForget` handler; the daemon asks it for the preview
 * (counts and file names) and then to remove.
 */
import { open, readdir, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { ForgetHandler } from "@homeagent/sdk";
import type { ChatRunner } from "./chat-runner.js";
import type { SseHub } from "./sse-hub.js";

export interface WebuiForgetDeps {
  uploadsDir: string;
  hub: SseHub;
  runner: ChatRunner;
}

const CHUNK_BYTES = 1024 * 1024;
/** A NUL in the first bytes: a binary file, matched by its name only (its text cannot be read as such). */
const SNIFF_BYTES = 8192;
const SAMPLES = 8;
const TEMP_PREFIX = ".part-";

export function webuiForget(deps: WebuiForgetDeps): ForgetHandler {
  return async ({ terms, confirm }) => {
    const lower = terms.map((t) => t.toLowerCase());
    const mentions = (text: string) => {
      const folded = text.toLowerCase();
      return lower.every((t) => folded.includes(t));
    };
    const decoder = new TextDecoder();
    // Frames are JSON: a term with quotes or backslashes is in them escaped.
    const escaped = lower.map((t) => JSON.stringify(t).slice(1, -1));
    const inFrame = (frame: Uint8Array) => {
      const text = decoder.decode(frame).toLowerCase();
      return lower.every((t, i) => text.includes(t) || text.includes(escaped[i]));
    };
    const uploads = await matchingUploads(deps.uploadsDir, lower);
    if (confirm) for (const name of uploads) await unlink(join(deps.uploadsDir, name)).catch(() => {});
    return {
      counts: {
        uploads: uploads.length,
        events: deps.hub.forget(inFrame, confirm),
        replies: deps.runner.forget(mentions, confirm),
      },
      samples: uploads.slice(0, SAMPLES),
    };
  };
}

/** Uploaded files whose name, or whose text, mentions every term. */
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
  const found: string[] = [];
  for (const name of names) {
    const folded = name.toLowerCase();
    const left = terms.filter((t) => !folded.includes(t));
    if (left.length === 0 || (await textMentions(join(dir, name), left))) found.push(name);
  }
  return found;
}

/**
 * Whether the file's text holds every term, read a chunk at a time (an upload may be 64 MB); the end of
 * each chunk is carried over so a term cut by a chunk border is still found.
 */
async function textMentions(path: string, terms: readonly string[]): Promise<boolean> {
  const handle = await open(path, "r").catch(() => null);
  if (!handle) return false;
  try {
    const decoder = new TextDecoder();
    const buf = Buffer.alloc(CHUNK_BYTES);
    const keep = Math.max(...terms.map((t) => t.length)) - 1;
    const missing = new Set(terms);
    let carry = "";
    let first = true;
    for (;;) {
      const { bytesRead } = await handle.read(buf, 0, CHUNK_BYTES, null);
      if (bytesRead === 0) return false;
      const bytes = buf.subarray(0, bytesRead);
      if (first && bytes.subarray(0, SNIFF_BYTES).includes(0)) return false;
      first = false;
      const text = carry + decoder.decode(bytes, { stream: true }).toLowerCase();
      for (const t of missing) if (text.includes(t)) missing.delete(t);
      if (missing.size === 0) return true;
      carry = keep > 0 ? text.slice(-keep) : "";
    }
  } finally {
    await handle.close();
  }
}
