/**
 * Knowledge item names → folders. A name like "Recipes/Family Soup" is the category path "recipes" and
 * the item "family_soup". Names come from the LLM, so anything that could leave the knowledge folder
 * (absolute paths, "..", symlinks pointing out) or hide the item (dot folders, which the scan skips) is
 * refused with a message the model can act on.
 *
 * Paths from the knowledge API are taken as they are instead (itemSegments): they come from the tree the
 * API listed, folders the user may have named by hand, so rewriting them would miss the item.
 */
import { existsSync, realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { HomeAgentError } from "../util/errors.js";

export class KnowledgeNameError extends HomeAgentError {
  constructor(
    name: string,
    /** What is wrong, without the name: the knowledge API words it as a path problem. */
    readonly reason: string,
  ) {
    super({ code: "knowledge_name", message: `invalid knowledge name ${JSON.stringify(name)}: ${reason}` });
  }
}

const MAX_SEGMENT = 100;

/** The sanitised path segments of `name`: lower-case, trimmed, spaces and backslashes → "_". */
export function sanitizeName(name: unknown): string[] {
  if (typeof name !== "string") throw new KnowledgeNameError(String(name), "a name must be a string");
  if (name.includes("\0")) throw new KnowledgeNameError(name, "it contains a NUL character");
  const trimmed = name.trim();
  if (!trimmed) throw new KnowledgeNameError(name, "it is empty");
  if (trimmed.startsWith("/") || isAbsolute(trimmed)) {
    throw new KnowledgeNameError(name, 'absolute paths are not allowed; use "category/name"');
  }
  const segments = trimmed.toLowerCase().replace(/[ \\]/g, "_").split("/");
  for (const s of segments) {
    if (!s) throw new KnowledgeNameError(name, 'empty path segment ("//" or a leading/trailing "/")');
    if (s === "." || s === "..") throw new KnowledgeNameError(name, '"." and ".." are not allowed');
    if (s.startsWith(".")) throw new KnowledgeNameError(name, 'a segment may not start with "." (hidden)');
    if (s.length > MAX_SEGMENT) throw new KnowledgeNameError(name, `a segment is longer than ${MAX_SEGMENT}`);
  }
  return segments;
}

export class KnowledgePathError extends HomeAgentError {
  constructor(path: string, reason: string, cause?: unknown) {
    const shown = path.length > 120 ? `${path.slice(0, 120)}…` : path;
    super({ code: "invalid_path", message: `invalid knowledge path ${JSON.stringify(shown)}: ${reason}`, cause });
  }
}

const MAX_PATH = 1024;
const MAX_DEPTH = 16;
/** Letters of any script (with their combining marks), digits, "_", "-", "." and spaces. */
const SEGMENT = /^[\p{L}\p{M}\p{N}_\-. ]+$/u;

/** The segments of a knowledge API path ("category/sub/name"), unchanged; throws KnowledgePathError. */
export function itemSegments(path: unknown): string[] {
  if (typeof path !== "string") throw new KnowledgePathError(String(path), "a path must be a string");
  if (path.length > MAX_PATH) throw new KnowledgePathError(path, `it is longer than ${MAX_PATH} characters`);
  const segments = path.split("/");
  if (segments.length > MAX_DEPTH) throw new KnowledgePathError(path, `it is deeper than ${MAX_DEPTH} levels`);
  for (const s of segments) {
    if (!s) throw new KnowledgePathError(path, 'empty segment (an empty path, "//" or a leading/trailing "/")');
    if (s.startsWith("."))
      throw new KnowledgePathError(path, 'a segment may not start with "." (no "..", no hidden folders)');
    if (s.trim() !== s) throw new KnowledgePathError(path, "a segment may not start or end with a space");
    if (s.length > MAX_SEGMENT)
      throw new KnowledgePathError(path, `a segment is longer than ${MAX_SEGMENT} characters`);
    if (!SEGMENT.test(s)) {
      throw new KnowledgePathError(
        path,
        'use letters, digits, "_", "-", "." and spaces in each segment, "/" between them',
      );
    }
  }
  return segments;
}

/** The item's folder under `root`, after checking that it (and any symlink on the way) stays inside. */
export function itemDir(root: string, segments: readonly string[]): string {
  const dir = resolve(root, ...segments);
  const rel = relative(root, dir);
  if (!rel || rel.startsWith("..") || isAbsolute(rel)) {
    throw new KnowledgeNameError(segments.join("/"), "it points outside the knowledge folder");
  }
  let existing = dir;
  while (!existsSync(existing)) existing = dirname(existing);
  const real = realpathSync(existing);
  const realRoot = realpathSync(root);
  if (real !== realRoot && !real.startsWith(realRoot + sep)) {
    throw new KnowledgeNameError(segments.join("/"), "it leads through a link outside the knowledge folder");
  }
  return dir;
}

export function contentFile(dir: string): string {
  return join(dir, "content.md");
}
