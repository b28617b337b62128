/**
 * Attachments: long strings of a message sent as raw UTF-8 after its JSON line instead of inside it. Node 20's
 * JSON.stringify spends ~1 ns per character on a long string (more when it must escape quotes, as in a tool
 * result that is itself JSON), and JSON.parse as much again on the other side; raw bytes are only encoded
 * and decoded. Each attachment is named by its path from the message's root, where the message holds `null`
 * in its place, so no value a plugin sends can ever be mistaken for one (docs/plugin-protocol.md,
 * "Attachments").
 */

/** Strings shorter than this stay in the JSON: below it the header costs more than the encoding it saves. */
export const ATTACHMENT_MIN_CHARS = 4096;
/** At most this many attachments per message; further long strings stay in the JSON. */
export const MAX_ATTACHMENTS = 64;
/** The longest header line a receiver takes for one (longer is skipped as a malformed line). */
export const MAX_HEADER_BYTES = 16 * 1024;
/** How many values the search for long strings looks at before it sends the rest as plain JSON. */
const MAX_VISITED = 10_000;
/** Attachments hang below these top-level keys only: `jsonrpc`, `id` and `method` always stay in the line. */
const ROOTS = ["params", "result", "error"];

export type AttachmentPath = Array<string | number>;

/** One attachment as sent: its place in the message, its text and that text's UTF-8 length. */
export interface OutgoingAttachment {
  path: AttachmentPath;
  text: string;
  bytes: number;
}

/** One attachment as received, decoded. */
export interface IncomingAttachment {
  path: AttachmentPath;
  text: string;
}

/** What the header line (after its `@`) lists, in the order the bytes follow. */
export interface AttachmentHeader {
  path: AttachmentPath;
  bytes: number;
}

/**
 * `message` with its long strings set to null, and those strings; null when it has none. The message is not
 * changed: only the objects and arrays on the way to a long string are copied.
 */
export function extractAttachments(
  message: Record<string, unknown>,
): { message: Record<string, unknown>; attachments: OutgoingAttachment[] } | null {
  const found = findLongStrings(message);
  if (found === null) return null;
  const root: Record<string, unknown> = { ...message };
  const copies = new Map<object, Record<string | number, unknown>>();
  const attachments: OutgoingAttachment[] = [];
  for (const [path, text] of found) {
    let node = root as Record<string | number, unknown>;
    for (let i = 0; i < path.length - 1; i++) {
      const key = path[i] as string | number;
      const original = node[key] as object;
      let copy = copies.get(original);
      if (copy === undefined) {
        copy = (Array.isArray(original) ? original.slice() : { ...original }) as Record<string | number, unknown>;
        copies.set(original, copy);
      }
      node[key] = copy;
      node = copy;
    }
    node[path[path.length - 1] as string | number] = null;
    attachments.push({ path, text, bytes: Buffer.byteLength(text) });
  }
  return { message: root, attachments };
}

/** Paths and values of the long strings JSON.stringify would write, in the order they are found. */
function findLongStrings(message: Record<string, unknown>): Array<[AttachmentPath, string]> | null {
  let found: Array<[AttachmentPath, string]> | null = null;
  const stack: Array<[unknown, AttachmentPath]> = [];
  for (const key of ROOTS) if (worthVisiting(message[key])) stack.push([message[key], [key]]);
  let visited = 0;
  while (stack.length > 0 && visited++ < MAX_VISITED) {
    const [value, path] = stack.pop() as [unknown, AttachmentPath];
    if (typeof value === "string") {
      // A lone surrogate has no UTF-8 form; JSON escapes it, so such a string stays in the JSON.
      if ((value as WellFormedCheck).isWellFormed()) {
        found ??= [];
        found.push([path, value]);
        if (found.length === MAX_ATTACHMENTS) return found;
      }
      continue;
    }
    if (typeof value !== "object" || value === null || !isWalked(value)) continue;
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) if (worthVisiting(value[i])) stack.push([value[i], [...path, i]]);
    } else {
      for (const key of Object.keys(value)) {
        const inner = (value as Record<string, unknown>)[key];
        if (worthVisiting(inner)) stack.push([inner, [...path, key]]);
      }
    }
  }
  return found;
}

/** String.prototype.isWellFormed: ES2024, in Node 20, but not in the ES2023 library the project compiles with. */
type WellFormedCheck = string & { isWellFormed(): boolean };

function worthVisiting(value: unknown): boolean {
  return typeof value === "string" ? value.length >= ATTACHMENT_MIN_CHARS : typeof value === "object" && value !== null;
}

/** Arrays and objects JSON writes key by key; a toJSON (Date, Buffer) or a boxed value is written otherwise. */
function isWalked(value: object): boolean {
  if (Array.isArray(value)) return true;
  if (typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  return !(value instanceof String || value instanceof Number || value instanceof Boolean);
}

/** The header line's JSON: `[{"path":[…],"bytes":n},…]`. */
export function attachmentHeader(attachments: readonly OutgoingAttachment[]): string {
  return JSON.stringify(attachments.map(({ path, bytes }) => ({ path, bytes })));
}

/** The header after its `@`, or undefined when it is not a valid one (the line is then an ordinary bad line). */
export function parseAttachmentHeader(text: string): AttachmentHeader[] | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(parsed) || parsed.length === 0 || parsed.length > MAX_ATTACHMENTS) return undefined;
  const header: AttachmentHeader[] = [];
  for (const entry of parsed as unknown[]) {
    if (typeof entry !== "object" || entry === null) return undefined;
    const { path, bytes } = entry as { path?: unknown; bytes?: unknown };
    if (!Number.isSafeInteger(bytes) || (bytes as number) < 0 || !isPath(path)) return undefined;
    header.push({ path, bytes: bytes as number });
  }
  return header;
}

function isPath(path: unknown): path is AttachmentPath {
  return (
    Array.isArray(path) &&
    path.length >= 1 &&
    ROOTS.includes(path[0]) &&
    path.every((key) => typeof key === "string" || (Number.isSafeInteger(key) && key >= 0))
  );
}

/**
 * Puts each attachment's text where its path says; returns why it cannot (a path that does not end at a
 * `null` of the message), leaving the message partly filled: the caller then skips it.
 */
export function placeAttachments(message: unknown, attachments: readonly IncomingAttachment[]): string | undefined {
  for (const { path, text } of attachments) {
    let node: unknown = message;
    for (let i = 0; i < path.length; i++) {
      const key = path[i] as string | number;
      const holds =
        typeof node === "object" &&
        node !== null &&
        (Array.isArray(node) ? typeof key === "number" && key < node.length : typeof key === "string") &&
        Object.hasOwn(node, key);
      if (!holds) return `attachment path ${JSON.stringify(path)} is not in the message`;
      if (i === path.length - 1) {
        if ((node as Record<string | number, unknown>)[key] !== null) {
          return `attachment path ${JSON.stringify(path)} does not end at a null`;
        }
        (node as Record<string | number, unknown>)[key] = text;
      } else {
        node = (node as Record<string | number, unknown>)[key];
      }
    }
  }
  return undefined;
}
