/**
 * Forgetting and the knowledge base. The knowledge base is the user's own writing (notes, recipes, manuals),
 * not what the agent remembered of a conversation, so forget never touches it by itself: it lists the items
 * whose path or text mentions what is forgotten, and removes them only when the user opts in (`/memory
 * forget --yes --knowledge …`). Removing goes through KnowledgeBase.remove, so the index follows.
 */
import { closeSync, fstatSync, openSync, readdirSync, readSync, rmdirSync } from "node:fs";
import { join, relative } from "node:path";
import { forgetMatcher, type KnowledgeForgetReport } from "@homeagent/sdk";
import type { KnowledgeBase } from "./base.js";
import { contentFile, itemDir } from "./paths.js";

/** Paths listed in a report. */
const LISTED = 20;
/** Bytes of one content.md searched; a larger file is matched on its first this many bytes. */
const MAX_SCAN_BYTES = 16 * 1024 * 1024;

/** Items whose path or text mentions every term; removed when `remove`, with the empty folders named so. */
export async function forgetKnowledge(
  kb: KnowledgeBase,
  terms: readonly string[],
  remove: boolean,
): Promise<KnowledgeForgetReport> {
  const mentions = forgetMatcher(terms);
  const matched = (await kb.rescan()).filter((item) =>
    mentions(`${item.path}\n${head(contentFile(itemDir(kb.root, item.path.split("/"))))}`),
  );
  let removed = 0;
  if (remove) {
    for (const item of matched) if (kb.remove(item.path.split("/"))) removed++;
    pruneEmptyFolders(kb.root, mentions);
  }
  return { matched: matched.length, paths: matched.slice(0, LISTED).map((i) => i.path), removed };
}

/**
 * Empty folders whose path mentions the forgotten text, deepest first: a category's name is the user's
 * words too, and removing its items leaves it empty. Returns whether `dir` is empty now.
 */
function pruneEmptyFolders(root: string, mentions: (text: string) => boolean, dir = root): boolean {
  let empty = true;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    const gone =
      entry.isDirectory() &&
      !entry.name.startsWith(".") &&
      pruneEmptyFolders(root, mentions, path) &&
      mentions(relative(root, path));
    if (gone) rmdirSync(path);
    else empty = false;
  }
  return empty;
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
