/**
 * How deep a value crossing between JS and Lua may be nested. wasmoon copies tables recursively on the Lua
 * stack; the worker makes room level by level (lua-worker.js), and this bound keeps the copy, the recursion
 * on both sides and the error a caller sees reasonable: no adapter or plugin needs more.
 */
export const MAX_VALUE_DEPTH = 20;

/** True if `value` has objects or arrays nested more than `max` deep (a cycle counts as too deep). */
export function nestedDeeperThan(value: unknown, max: number, path = new Set<object>()): boolean {
  if (value === null || typeof value !== "object") return false;
  if (max <= 0 || path.has(value)) return true;
  path.add(value);
  const deeper = Object.values(value).some((v) => nestedDeeperThan(v, max - 1, path));
  path.delete(value);
  return deeper;
}
