/** Narrowing for parsed JSON: a plain object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Deletes the entries of `map` whose value is owned by `owner` (a plugin that stopped); returns how many. */
export function deleteOwned<T extends { owner: string }>(map: Map<string, T>, owner: string): number {
  let n = 0;
  for (const [key, value] of map) {
    if (value.owner === owner) {
      map.delete(key);
      n++;
    }
  }
  return n;
}
