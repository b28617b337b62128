/**
 * The knowledge base: a folder tree the user can edit by hand. `<root>/<category…>/<name>/content.md` is
 * an item; a folder without content.md is a category; dot folders are skipped. The folder is the source
 * of truth. Its index is a separate SQLite file, `<root>/.index.db` (hidden, so the scan skips it), kept
 * apart from memory.db as the architecture asks: the knowledge base stays self-contained (copy or delete
 * the folder and the index goes with it) and the index is only a cache, rebuilt from the files if lost.
 * Before every search and listing the tree is rescanned by mtime and size, so edits made on disk count.
 */
import { mkdirSync, readdirSync, readFileSync, rmdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { EmbeddingProvider } from "../embedding/spi.js";
import { SearchIndex } from "../retrieval/search.js";
import { HomeAgentError } from "../util/errors.js";
import { fileStamp } from "../util/file-stamp.js";
import { writePrivateFile } from "../util/private-file.js";
import { contentFile, itemDir, KnowledgeNameError, sanitizeName } from "./paths.js";

export interface KnowledgeItem {
  /** "category/sub/name"; the index id. */
  path: string;
  name: string;
  /** "" for an item at the top level. */
  category: string;
}

export interface KnowledgeHit extends KnowledgeItem {
  score: number;
  /** The first 200 characters of content.md. */
  content: string;
}

const PREVIEW_CHARS = 200;

export class KnowledgeBase {
  readonly index: SearchIndex;
  private readonly st;

  constructor(
    readonly root: string,
    opts: { embedder?: EmbeddingProvider | null; onError?: (err: Error) => void } = {},
  ) {
    mkdirSync(root, { recursive: true });
    this.index = new SearchIndex(join(root, ".index.db"), opts);
    const db = this.index.db;
    db.exec("CREATE TABLE IF NOT EXISTS knowledge_files (path TEXT PRIMARY KEY, stamp TEXT NOT NULL)");
    this.st = {
      all: db.prepare<[], { path: string; stamp: string }>("SELECT path, stamp FROM knowledge_files"),
      put: db.prepare("INSERT OR REPLACE INTO knowledge_files(path, stamp) VALUES (?, ?)"),
      delete: db.prepare("DELETE FROM knowledge_files WHERE path = ?"),
    };
  }

  /** Brings the index up to date with the folder; returns the items found. */
  async rescan(): Promise<KnowledgeItem[]> {
    const found = new Map<string, { item: KnowledgeItem; stamp: string }>();
    this.walk(this.root, [], found);
    const known = new Map(this.st.all.all().map((r) => [r.path, r.stamp]));
    const gone = [...known.keys()].filter((p) => !found.has(p));
    if (gone.length > 0) {
      this.index.remove(gone);
      for (const p of gone) this.st.delete.run(p);
    }
    for (const { item, stamp } of found.values()) {
      if (known.get(item.path) !== stamp) await this.reindex(item, stamp);
    }
    return [...found.values()].map((f) => f.item);
  }

  /** Creates or replaces an item; `name` may carry a category path ("recipes/soup"), and is sanitised. */
  create(name: string, content: string): Promise<{ item: KnowledgeItem; created: boolean }> {
    return this.write(sanitizeName(name), content);
  }

  /**
   * Creates or replaces the item at exactly these segments (checked by the caller); resolves once the index
   * holds the new text.
   */
  async write(segments: readonly string[], content: string): Promise<{ item: KnowledgeItem; created: boolean }> {
    if (typeof content !== "string") {
      throw new HomeAgentError({ code: "invalid_argument", message: "knowledge content must be a string" });
    }
    const name = segments.join("/");
    const dir = itemDir(this.root, segments);
    for (let i = 1; i < segments.length; i++) {
      if (isFile(contentFile(join(this.root, ...segments.slice(0, i))))) {
        throw new KnowledgeNameError(name, `"${segments.slice(0, i).join("/")}" is an item, not a category`);
      }
    }
    const file = contentFile(dir);
    const created = !isFile(file);
    if (created && isDir(dir) && readdirSync(dir).length > 0) {
      throw new KnowledgeNameError(name, `"${name}" is a category; choose another name`);
    }
    mkdirSync(dir, { recursive: true });
    writePrivateFile(file, content);
    const item = toItem(segments);
    // No stamp (the file is gone again already): the next scan sees a difference and looks again.
    await this.reindex(item, fileStamp(file) ?? "");
    return { item, created };
  }

  /** The item at exactly these segments, or undefined when there is none (a category is none). */
  stat(segments: readonly string[]): { file: string; size: number; updatedAt: number } | undefined {
    const file = contentFile(itemDir(this.root, segments));
    const st = statSync(file, { throwIfNoEntry: false });
    return st?.isFile() ? { file, size: st.size, updatedAt: Math.round(st.mtimeMs) } : undefined;
  }

  /**
   * Removes the item's content.md, its folder when nothing else is left in it, and its index entry. False
   * when there is no item; a category is refused, so a whole subtree never goes by mistake.
   */
  remove(segments: readonly string[]): boolean {
    const path = segments.join("/");
    const dir = itemDir(this.root, segments);
    const file = contentFile(dir);
    if (!isFile(file)) {
      if (isDir(dir)) throw new KnowledgeNameError(path, `"${path}" is a category; only items can be removed`);
      return false;
    }
    rmSync(file);
    if (readdirSync(dir).length === 0) rmdirSync(dir);
    this.index.remove([path]);
    this.st.delete.run(path);
    return true;
  }

  async search(query: string, topK = 5): Promise<KnowledgeHit[]> {
    await this.rescan();
    const hits = await this.index.search(query, { k: topK });
    const out: KnowledgeHit[] = [];
    for (const h of hits) {
      const item = h.meta as unknown as KnowledgeItem;
      let text: string;
      try {
        text = readFileSync(contentFile(join(this.root, h.id)), "utf8");
      } catch {
        continue; // removed since the scan
      }
      const content = text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}…` : text;
      out.push({ path: h.id, name: item.name, category: item.category, score: round(h.score), content });
    }
    return out;
  }

  /** Items grouped by category, categories and names sorted; "" is the top level. */
  async list(): Promise<Array<{ category: string; items: string[] }>> {
    const groups = new Map<string, string[]>();
    for (const item of await this.rescan()) {
      const g = groups.get(item.category) ?? [];
      g.push(item.name);
      groups.set(item.category, g);
    }
    return [...groups.entries()]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([category, items]) => ({ category, items: items.sort() }));
  }

  close(): Promise<void> {
    return this.index.close();
  }

  private async reindex(item: KnowledgeItem, stamp: string): Promise<void> {
    const content = readFileSync(contentFile(join(this.root, item.path)), "utf8");
    // The name and category are searchable too: "soup" should find recipes/family_soup.
    const title = `${item.category.replaceAll("/", " ")} ${item.name}`.replaceAll("_", " ");
    await this.index.add([{ id: item.path, kind: "knowledge", text: `${title}\n${content}`, meta: { ...item } }]);
    this.st.put.run(item.path, stamp);
  }

  private walk(dir: string, segments: string[], out: Map<string, { item: KnowledgeItem; stamp: string }>): void {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
      const path = [...segments, entry.name];
      const sub = join(dir, entry.name);
      const file = contentFile(sub);
      const stamp = isFile(file) ? fileStamp(file) : undefined;
      if (stamp !== undefined) {
        const item = toItem(path);
        out.set(item.path, { item, stamp });
      } else {
        this.walk(sub, path, out);
      }
    }
  }
}

function toItem(segments: readonly string[]): KnowledgeItem {
  return {
    path: segments.join("/"),
    name: segments[segments.length - 1],
    category: segments.slice(0, -1).join("/"),
  };
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() ?? false;
}

function isDir(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

function round(x: number): number {
  return Math.round(x * 10000) / 10000;
}
