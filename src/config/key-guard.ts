/**
 * A stored API key goes only to the host it was given for. When a write moves a source's base_url (or the
 * embeddings server's) to another origin and gives no key with it, the stored key is dropped, so whoever
 * may change settings but never read secrets (a dashboard session) cannot send the key to a host of their
 * own choosing with "Test connection" or the next turn. The user types the key again for the new host. A
 * key stored before any base_url was (a source set up key first) is kept.
 */
import type { Write } from "./write-check.js";

const PAIRS: ReadonlyArray<[RegExp, string]> = [
  [/^(core\.llm\.sources\.[^.]+\.)base_url$/, "api_key"],
  [/^(core\.embedding\.http\.)base_url$/, "api_key"],
];

/** The deletions of stored keys that `writes` leave behind on another host. */
export function keysLeftBehind(
  writes: readonly Write[],
  current: (key: string) => string | undefined,
  isStored: (key: string) => boolean,
): Write[] {
  const writing = new Set(writes.map(([key]) => key));
  const dropped: Write[] = [];
  for (const [key, value] of writes) {
    for (const [pattern, secret] of PAIRS) {
      const prefix = pattern.exec(key)?.[1];
      if (prefix === undefined) continue;
      const keyOfSecret = prefix + secret;
      const before = current(key) ?? "";
      if (writing.has(keyOfSecret) || !isStored(keyOfSecret) || before === "") continue;
      if (originOf(value ?? "") !== originOf(before)) dropped.push([keyOfSecret, undefined]);
    }
  }
  return dropped;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}
