/**
 * Forgetting and the knowledge base. The knowledge base is the user's own writing (notes, recipes, manuals),
 * not what the agent remembered of a conversation, so forget never touches it by itself: it lists the items
 * whose path or text mentions what is forgotten, and removes them only when the user opts in (`/memory
 * forget --yes --knowledge …`). Removing goes through KnowledgeBase.remove, so the index follows.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { KnowledgeForgetReport } from "@homeagent/sdk";
import type { KnowledgeBase } from "./base.js";
import { contentFile, itemDir } from "./paths.js";

/** Paths listed in a report. */
const LISTED = 20;
/** Bytes of one content.md searched; a larger file is matched on its first this many bytes. */
const MAX_SCAN_BYTES = 16 * 1024 * 1024;

/** Items mentioning every (lower-case) term; removed when `remove`. */
export async function forgetKnowledge(
  kb: KnowledgeBase,
  terms: readonly string[],
  remove: boolean,
): Promise<KnowledgeForgetReport> {
  const matched = (await kb.rescan()).filter((item) => {
    const text = `${item.path}\n${head(contentFile(itemDir(kb.root, item.path.split("/"))))}`.toLowerCase();
    return terms.every((t) => text.includes(t));
  });
  let removed = 0;
  if (remove) for (const item of matched) if (kb.remove(item.path.split("/"))) removed++;
  return { matched: matched.length, paths: matched.slice(0, LISTED).map((i) => i.path), removed };
}

/** The first MAX_SCAN_BYTES of a file as text; "" when it is gone. */
function head(file: string): string {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return "";
  }
  try {
    const buf = Buffer.alloc(Math.min(fstatSync(fd).size, MAX_SCAN_BYTES));
    const n = readSync(fd, buf, 0, buf.length, 0);
    return buf.subarray(0, n).toString("utf8");
  } finally {
    closeSync(fd);
  }
}
