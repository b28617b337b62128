/**
 * The knowledge base as plugins see it (capability `knowledge`): a folder tree of Markdown items that the
 * user curates. Paths are "category/sub/name" (letters of any script, digits, "_", "-", "." and spaces per
 * segment; no "..", no leading "."); an item is a folder holding content.md, a category a folder without one.
 */

export interface KnowledgeNode {
  /** The last segment. */
  name: string;
  /** "category/sub/name". */
  path: string;
  kind: "category" | "item";
  /** Categories only: what is inside, sorted by name. */
  children?: KnowledgeNode[];
}

export interface KnowledgeEntry {
  path: string;
  content: string;
  /** Bytes of content.md. */
  size: number;
  /** Unix milliseconds of content.md's last change. */
  updatedAt: number;
}

export interface KnowledgeSearchHit {
  path: string;
  score: number;
  /** The first 200 characters of the item. */
  preview: string;
}

export interface KnowledgeAPI {
  tree(): Promise<KnowledgeNode[]>;
  /** null when there is no such item. */
  get(path: string): Promise<KnowledgeEntry | null>;
  /** Creates or replaces the item (at most 1 MiB of text); the index is updated before it resolves. */
  put(path: string, content: string): Promise<KnowledgeEntry>;
  /** Removes the item (not a category); true when there was one. */
  delete(path: string): Promise<boolean>;
  /** Hybrid search over the items; `limit` default 10, at most 50. */
  search(query: string, limit?: number): Promise<KnowledgeSearchHit[]>;
}
