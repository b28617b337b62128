/**
 * How deeply a JSON-like value nests, found without recursion. JSON.parse accepts a 100,000-deep array, but
 * JSON.stringify, structuredClone and every recursive walker in the daemon overflow the stack on it, so a
 * value from outside (a plugin's params, a tool schema) is measured here before anything recursive sees it.
 */

/** "ok", or why `value` is refused: it nests deeper than `maxDepth`, or holds more than `maxNodes` values. */
export type NestingVerdict = "ok" | "too_deep" | "too_many";

/**
 * A scalar has depth 0, `{}` and `[]` depth 1, `{"a": []}` depth 2. A cycle counts as too deep. `maxNodes`
 * bounds the walk for in-memory values that share sub-objects (a DAG can have far more paths than objects).
 */
export function checkNesting(value: unknown, maxDepth: number, maxNodes = Number.POSITIVE_INFINITY): NestingVerdict {
  const stack: Array<[unknown, number]> = [[value, 0]];
  let nodes = 0;
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (++nodes > maxNodes) return "too_many";
    if (current === null || typeof current !== "object") continue;
    if (depth + 1 > maxDepth) return "too_deep";
    for (const inner of Array.isArray(current) ? current : Object.values(current)) stack.push([inner, depth + 1]);
  }
  return "ok";
}
